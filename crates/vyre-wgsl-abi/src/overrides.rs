//! The values of the kernels' WGSL `override`s, set by both backends (wgpu
//! as pipeline constants, vyre-spirv when it resolves them into SPIR-V), so
//! that host and device decide alike.

use vyre_driver::backend::WORK_PIECE_EDGES;

/// Most entries one workgroup scans in workgroup memory (`SCAN_CAP`): a
/// Sparse frontier of more vertices is scanned in chunks.
pub const SCAN_CAP: u32 = 2048;

/// Degree loads above which (and above the level's edges) a Sparse frontier
/// that one workgroup could scan is scanned in chunks instead, where the
/// scan is recorded (`REPEATED_SCAN_LOADS`): every workgroup of the
/// expansion scans the whole frontier otherwise.
pub const REPEATED_SCAN_LOADS: u64 = 1 << 18;

/// Rounds of a Hybrid chunk's width its mid-degree vertices are walked for
/// (`MID_ROUNDS`); beyond them they become pieces.
pub const MID_ROUNDS: u32 = 8;

/// Most out-edges of a frontier vertex expanded by its own invocation in
/// Hybrid, or by its workgroup's shared pass in a fused launch
/// (`LIGHT_DEGREE`). A vertex above it may become pieces.
pub const LIGHT_DEGREE: u32 = 32;

/// Most edges of one heavy-vertex piece (`PIECE_EDGES`).
pub const PIECE_EDGES: u32 = WORK_PIECE_EDGES as u32;

/// Workgroup width the fused (persistent) kernel is built for: the width
/// its co-residency is measured and launched at.
pub const FUSED_WIDTH: u32 = 256;

/// Width of the search-start kernels (`reset_state`, `seed_sources`).
pub const START_WIDTH: u32 = 256;

/// Workgroup memory the hungriest per-wave kernels need per invocation
/// (BlockDense: five arrays of WG words; Sparse and Hybrid: a scan array of
/// WG words and an append list of 2 * WG), in bytes.
pub const WORKGROUP_BYTES_PER_LANE: u32 = 20;
/// The largest fixed part (Sparse's scan of `SCAN_CAP` words, a few
/// counters, and a batch pass's 64 lane counts), in bytes.
pub const WORKGROUP_BYTES_FIXED: u32 = 4 * SCAN_CAP + 64 + 256;

/// Every override but `WG`, by name, with the value both backends set.
#[must_use]
pub fn pipeline_constants() -> [(&'static str, f64); 5] {
    [
        ("SCAN_CAP", f64::from(SCAN_CAP)),
        ("PIECE_EDGES", f64::from(PIECE_EDGES)),
        ("LIGHT_DEGREE", f64::from(LIGHT_DEGREE)),
        ("REPEATED_SCAN_LOADS", REPEATED_SCAN_LOADS as f64),
        ("MID_ROUNDS", f64::from(MID_ROUNDS)),
    ]
}

/// Largest power-of-two width at most `limit` (1 for 0).
#[must_use]
pub fn power_of_two_at_most(limit: u32) -> u32 {
    match limit {
        0 => 1,
        l => 1 << (31 - l.leading_zeros()),
    }
}

/// Largest power-of-two width every per-wave kernel can be built at on a
/// device with these limits (invocations and workgroup memory bytes).
#[must_use]
pub fn max_kernel_width(max_invocations_x: u32, workgroup_memory_bytes: u32) -> u32 {
    let by_memory =
        workgroup_memory_bytes.saturating_sub(WORKGROUP_BYTES_FIXED) / WORKGROUP_BYTES_PER_LANE;
    power_of_two_at_most(max_invocations_x.min(by_memory).max(1))
}

/// Workgroups of [`START_WIDTH`] for a start kernel over `items` (the
/// kernels stride over the rest), within `max_per_dimension`.
#[must_use]
pub fn start_groups(items: u32, max_per_dimension: u32) -> u32 {
    items
        .div_ceil(START_WIDTH)
        .clamp(1, max_per_dimension.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_fit_the_device_and_are_powers_of_two() {
        assert_eq!(power_of_two_at_most(0), 1);
        assert_eq!(power_of_two_at_most(192), 128);
        assert_eq!(power_of_two_at_most(256), 256);
        // 16 KiB of workgroup memory: (16384 - 8512) / 20 = 393 lanes.
        assert_eq!(max_kernel_width(1024, 16 << 10), 256);
        assert_eq!(max_kernel_width(1024, 48 << 10), 1024);
        assert_eq!(max_kernel_width(64, 48 << 10), 64);
        assert_eq!(max_kernel_width(1024, 0), 1);
    }

    #[test]
    fn constants_are_whole_numbers_the_wgsl_declares() {
        for (name, value) in pipeline_constants() {
            assert!(value.fract() == 0.0 && value >= 0.0, "{name} = {value}");
            assert!(value <= f64::from(u32::MAX), "{name} = {value}");
        }
        assert_eq!(start_groups(0, 10), 1);
        assert_eq!(start_groups(257, 10), 2);
        assert_eq!(start_groups(1 << 30, 10), 10);
    }
}
