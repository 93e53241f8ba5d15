//! The SPIR-V modules of `shaders/spirv/` (generated from `shaders/wgsl/` by
//! `cargo xtask spirv`): one per entry point and workgroup width, as
//! vyre-spirv's catalog lists them.

use vyre_wgsl_abi::{FUSED_WIDTH, Kernel};

/// Every power-of-two width a per-wave kernel is generated at, from 1.
macro_rules! at_every_width {
    ($entry:literal) => {
        [
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w1.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w2.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w4.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w8.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w16.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w32.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w64.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w128.spv")).as_slice(),
            include_bytes!(concat!("../../../shaders/spirv/", $entry, ".w256.spv")).as_slice(),
        ]
    };
}

/// Widest per-wave kernel generated (`vyre_spirv::KERNEL_WIDTHS`).
pub(crate) const LARGEST_WIDTH: u32 = 256;

type Widths = [&'static [u8]; 9];

const RESET_STATE: Widths = at_every_width!("reset_state");
const SEED_SOURCES: Widths = at_every_width!("seed_sources");
const QUEUE_TO_BITMAP: Widths = at_every_width!("queue_to_bitmap");
const BITMAP_TO_QUEUE: Widths = at_every_width!("bitmap_to_queue");
const WARP_SPARSE: Widths = at_every_width!("warp_sparse");
const SPARSE_SCAN: Widths = at_every_width!("sparse_scan");
const SPARSE: Widths = at_every_width!("sparse");
const HYBRID: Widths = at_every_width!("hybrid");
const HYBRID_PIECES: Widths = at_every_width!("hybrid_pieces");
const DENSE: Widths = at_every_width!("dense");
const DENSE_CLEAR_NEXT: Widths = at_every_width!("dense_clear_next");
const BLOCK_DENSE: Widths = at_every_width!("block_dense");
const BATCH_TO_QUEUE: Widths = at_every_width!("batch_to_queue");
const BATCH_PUSH_END: Widths = at_every_width!("batch_push_end");
const BATCH_WARP_SPARSE: Widths = at_every_width!("batch_warp_sparse");
const BATCH_SPARSE_SCAN: Widths = at_every_width!("batch_sparse_scan");
const BATCH_SPARSE: Widths = at_every_width!("batch_sparse");
const BATCH_HYBRID: Widths = at_every_width!("batch_hybrid");
const BATCH_HYBRID_PIECES: Widths = at_every_width!("batch_hybrid_pieces");
const BATCH_DENSE: Widths = at_every_width!("batch_dense");
const BATCH_BLOCK_DENSE: Widths = at_every_width!("batch_block_dense");
const NOOP: &[u8] = include_bytes!("../../../shaders/spirv/noop.w1.spv");
const FUSED: &[u8] = include_bytes!("../../../shaders/spirv/fused.w256.spv");

/// The module of `kernel` at workgroup width `width` (`None` when it is not
/// generated at that width).
pub(crate) fn module(kernel: Kernel, width: u32) -> Option<&'static [u8]> {
    let widths = match kernel {
        Kernel::Noop => return (width == 1).then_some(NOOP),
        Kernel::Fused => return (width == FUSED_WIDTH).then_some(FUSED),
        Kernel::ResetState => &RESET_STATE,
        Kernel::SeedSources => &SEED_SOURCES,
        Kernel::QueueToBitmap => &QUEUE_TO_BITMAP,
        Kernel::BitmapToQueue => &BITMAP_TO_QUEUE,
        Kernel::WarpSparse => &WARP_SPARSE,
        Kernel::SparseScan => &SPARSE_SCAN,
        Kernel::Sparse => &SPARSE,
        Kernel::Hybrid => &HYBRID,
        Kernel::HybridPieces => &HYBRID_PIECES,
        Kernel::Dense => &DENSE,
        Kernel::DenseClearNext => &DENSE_CLEAR_NEXT,
        Kernel::BlockDense => &BLOCK_DENSE,
        Kernel::BatchToQueue => &BATCH_TO_QUEUE,
        Kernel::BatchPushEnd => &BATCH_PUSH_END,
        Kernel::BatchWarpSparse => &BATCH_WARP_SPARSE,
        Kernel::BatchSparseScan => &BATCH_SPARSE_SCAN,
        Kernel::BatchSparse => &BATCH_SPARSE,
        Kernel::BatchHybrid => &BATCH_HYBRID,
        Kernel::BatchHybridPieces => &BATCH_HYBRID_PIECES,
        Kernel::BatchDense => &BATCH_DENSE,
        Kernel::BatchBlockDense => &BATCH_BLOCK_DENSE,
    };
    if !width.is_power_of_two() || width > LARGEST_WIDTH {
        return None;
    }
    widths.get(width.trailing_zeros() as usize).copied()
}

/// SPIR-V words of little-endian bytes (the files hold nothing else).
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use vyre_wgsl_abi::Module;

    use super::*;

    #[test]
    fn every_kernel_has_its_modules_and_they_name_their_entry_point() {
        for module_id in Module::ALL {
            for &kernel in module_id.kernels() {
                let widths: Vec<u32> = match kernel {
                    Kernel::Noop => vec![1],
                    Kernel::Fused => vec![FUSED_WIDTH],
                    _ => (0..9).map(|i| 1 << i).collect(),
                };
                for width in widths {
                    let bytes = module(kernel, width).expect("generated");
                    let words = words(bytes);
                    assert_eq!(words[0], 0x0723_0203, "{kernel:?} at {width}");
                    let name = kernel.entry_point().as_bytes();
                    assert!(
                        bytes.windows(name.len()).any(|w| w == name),
                        "{kernel:?} at {width}"
                    );
                }
            }
        }
        assert!(module(Kernel::Sparse, 512).is_none());
        assert!(module(Kernel::Sparse, 48).is_none());
        assert!(module(Kernel::Fused, 128).is_none());
    }
}
