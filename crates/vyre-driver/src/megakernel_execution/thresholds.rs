//! The policy's thresholds and the hysteresis bands derived from them: the
//! one place each number is written (the runtime's chain bands use these
//! too).
//!
//! Densities are fractions of the graph's vertices in the frontier; pressures
//! are basis points (10 000 = 100 %). The derived bands are computed here, at
//! compile time, with the same floating-point expressions the selectors
//! compare against, so a threshold is written down once.

/// At or below this density (with a low average degree) one warp owns each
/// frontier vertex.
pub const WARP_SPARSE_DENSITY: f64 = 0.03125;
/// At or below this density the frontier is a queue.
pub const SPARSE_DENSITY: f64 = 0.125;
/// At or above this density (with enough degree) the frontier is a bitmap.
pub const DENSE_DENSITY: f64 = 0.70;
/// At or above this density a workgroup owns a tile of bitmap words.
pub const BLOCK_DENSE_DENSITY: f64 = 0.85;
/// Fusion pressure at which adjacent waves are fused.
pub const FUSION_PRESSURE: f64 = 0.70;
/// How far fusion pressure may fall before a fused wave is released.
pub const FUSION_PRESSURE_HYSTERESIS: f64 = 0.10;
/// How far density may cross a band edge before the previous topology is
/// released.
pub const FRONTIER_HYSTERESIS: f64 = 0.025;
/// Memory pressure at which only the sparse topology is safe.
pub const MEMORY_RED_ZONE_BPS: u32 = 9_000;
/// Memory pressure below the red zone at which a sparse wave stays sparse.
pub const MEMORY_HYSTERESIS_BPS: u32 = 250;
/// Extra memory margin a fused wave needs below the red zone.
pub const FUSION_MEMORY_MARGIN_BPS: u32 = 500;
/// Launch overhead relative to dispatch cost at which fusion pays off.
pub const LAUNCH_PRESSURE_BPS: u32 = 1_500;
/// How far launch pressure may fall before a fused wave is released.
pub const LAUNCH_HYSTERESIS_BPS: u32 = 250;
/// Readback volume at which fusing waves saves a meaningful copy.
pub const FUSION_READBACK_BYTES: u64 = 4_096;
/// Average degree (basis points of edges per node) a dense topology needs.
pub const DENSE_AVERAGE_DEGREE_BPS: u64 = 20_000;
/// Largest average degree (basis points) a warp-sparse wave accepts.
pub const WARP_SPARSE_AVERAGE_DEGREE_BPS: u64 = 80_000;

/// Highest memory pressure at which a fresh fused wave is chosen (8 500).
pub const FUSION_MEMORY_CEILING_BPS: u32 = bps_sub(MEMORY_RED_ZONE_BPS, FUSION_MEMORY_MARGIN_BPS);
/// Memory pressure from which a sparse wave is held sparse, and up to which a
/// fused wave is held fused (8 750).
pub const MEMORY_HYSTERESIS_FLOOR_BPS: u32 = bps_sub(MEMORY_RED_ZONE_BPS, MEMORY_HYSTERESIS_BPS);
/// Lowest launch pressure at which a fused wave is held (1 250).
pub const LAUNCH_HYSTERESIS_FLOOR_BPS: u32 = bps_sub(LAUNCH_PRESSURE_BPS, LAUNCH_HYSTERESIS_BPS);

/// Highest density at which a warp-sparse wave is held.
pub const WARP_SPARSE_HOLD_DENSITY: f64 = WARP_SPARSE_DENSITY + FRONTIER_HYSTERESIS;
/// Highest density at which a sparse wave is held.
pub const SPARSE_HOLD_DENSITY: f64 = SPARSE_DENSITY + FRONTIER_HYSTERESIS;
/// Lowest density at which a hybrid wave is held against a sparse answer.
pub const HYBRID_HOLD_OVER_SPARSE_DENSITY: f64 = SPARSE_DENSITY - FRONTIER_HYSTERESIS;
/// Highest density at which a hybrid wave is held against a dense answer.
pub const HYBRID_HOLD_UNDER_DENSE_DENSITY: f64 = DENSE_DENSITY + FRONTIER_HYSTERESIS;
/// Lowest density at which a dense wave is held.
pub const DENSE_HOLD_DENSITY: f64 = DENSE_DENSITY - FRONTIER_HYSTERESIS;
/// Lowest density at which a block-dense wave is held.
pub const BLOCK_DENSE_HOLD_DENSITY: f64 = BLOCK_DENSE_DENSITY - FRONTIER_HYSTERESIS;
/// Lowest fusion pressure at which a fused wave is held.
pub const FUSION_HOLD_PRESSURE: f64 = FUSION_PRESSURE - FUSION_PRESSURE_HYSTERESIS;

/// `value - margin`; a margin above its threshold fails the build instead of
/// wrapping.
const fn bps_sub(value: u32, margin: u32) -> u32 {
    match value.checked_sub(margin) {
        Some(result) => result,
        None => panic!("hysteresis margin exceeds its threshold"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_basis_point_bands_have_their_documented_values() {
        assert_eq!(FUSION_MEMORY_CEILING_BPS, 8_500);
        assert_eq!(MEMORY_HYSTERESIS_FLOOR_BPS, 8_750);
        assert_eq!(LAUNCH_HYSTERESIS_FLOOR_BPS, 1_250);
    }

    #[test]
    fn derived_density_bands_lie_on_the_expected_side_of_their_threshold() {
        assert!((WARP_SPARSE_HOLD_DENSITY - 0.05625).abs() < 1e-12);
        assert!((SPARSE_HOLD_DENSITY - 0.15).abs() < 1e-12);
        assert!((HYBRID_HOLD_OVER_SPARSE_DENSITY - 0.10).abs() < 1e-12);
        assert!((HYBRID_HOLD_UNDER_DENSE_DENSITY - 0.725).abs() < 1e-12);
        assert!((DENSE_HOLD_DENSITY - 0.675).abs() < 1e-12);
        assert!((BLOCK_DENSE_HOLD_DENSITY - 0.825).abs() < 1e-12);
        assert!((FUSION_HOLD_PRESSURE - 0.60).abs() < 1e-12);
    }
}
