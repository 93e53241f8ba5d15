//! The host side of what kernels share with the host: the argument block
//! every kernel takes, and the sizes of the control block and level records
//! they write. Layouts mirror `shaders/cuda/common.cuh`.

use cudarc::driver::DeviceRepr;
use vyre_driver::backend::{CONTROL_BYTES, LEVEL_RECORD_BYTES};

/// `VyreArgs` of `common.cuh`: device pointers and per-launch scalars.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub(crate) struct KernelArgs {
    pub out_offsets: u64,
    pub out_targets: u64,
    pub in_offsets: u64,
    pub in_targets: u64,
    pub depth: u64,
    pub parent: u64,
    pub queue_in: u64,
    pub queue_out: u64,
    pub bitmap_in: u64,
    pub bitmap_out: u64,
    pub control: u64,
    /// Mapped host memory: the level records the host reads.
    pub history: u64,
    /// Device memory of the same size, where the fused kernel keeps its
    /// records while it runs (copied to `history` as it exits).
    pub level_log: u64,
    pub work: u64,
    pub band_max_frontier_edges: u64,
    pub work_words: u64,
    pub vertex_count: u32,
    pub level: u32,
    pub history_index: u32,
    pub epoch: u32,
    pub max_levels: u32,
    pub aux: u32,
    /// Largest out-degree of the graph, saturated at `u32::MAX`: below
    /// `VYRE_LIGHT_DEGREE` (32) the fused kernel needs no heavy-vertex
    /// pieces.
    pub max_out_degree: u32,
    /// Padding to a whole 8 bytes, always 0.
    pub reserved: u32,
}

// The kernels static_assert the same size.
const _: () = assert!(std::mem::size_of::<KernelArgs>() == 160);
const _: () = assert!(std::mem::align_of::<KernelArgs>() == 8);

// SAFETY: `KernelArgs` is `repr(C)`, plain integers with no padding (16
// u64 then 8 u32 = 160 bytes, asserted above), and matches `VyreArgs`
// field for field, so its bytes are a valid kernel parameter.
unsafe impl DeviceRepr for KernelArgs {}

/// `u32` words of the control block.
pub(crate) const CONTROL_WORDS: usize = (CONTROL_BYTES / 4) as usize;
/// `u32` words of one level record.
pub(crate) const RECORD_WORDS: usize = (LEVEL_RECORD_BYTES / 4) as usize;

#[cfg(test)]
mod tests {
    use std::mem::offset_of;

    use super::*;

    #[test]
    fn layouts_match_the_kernels() {
        // common.cuh: VyreLevelRecord is 8 words, VyreControl 64.
        assert_eq!(RECORD_WORDS, 8);
        assert_eq!(CONTROL_WORDS, 64);
        // VyreArgs: level_log after history, work_words after the band.
        assert_eq!(offset_of!(KernelArgs, history), 88);
        assert_eq!(offset_of!(KernelArgs, level_log), 96);
        assert_eq!(offset_of!(KernelArgs, work), 104);
        assert_eq!(offset_of!(KernelArgs, band_max_frontier_edges), 112);
        assert_eq!(offset_of!(KernelArgs, work_words), 120);
        assert_eq!(offset_of!(KernelArgs, vertex_count), 128);
        assert_eq!(offset_of!(KernelArgs, aux), 148);
        assert_eq!(offset_of!(KernelArgs, max_out_degree), 152);
    }
}
