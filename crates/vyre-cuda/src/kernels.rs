//! The loaded kernels, their shared-memory needs, and how they are launched.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaStream, DriverError, LaunchConfig, PushKernelArg,
    sys,
};
use cudarc::nvrtc::Ptx;
use vyre_driver::backend::BackendError;

use crate::args::{KernelArgs, RankArgs};
use crate::error::during;

/// Block width the fused kernel is built for (`VYRE_FUSED_MAX_BLOCK` in
/// `fused.cu`); the capabilities report it as `resident_workgroup_size`.
pub(crate) const FUSED_WIDTH: u32 = 256;

/// Blocks and block width of the fused kernel's launch as one thread-block
/// cluster (`vyre_fused_cluster`, `VYRE_CLUSTER_WIDTH` in `fused.cu`): 16
/// blocks, the largest cluster compute capability 9.0 allows (beyond the
/// portable 8), of the widest block, so that a wide frontier still gets a
/// lane a vertex.
pub(crate) const CLUSTER_BLOCKS: u32 = 16;
pub(crate) const CLUSTER_WIDTH: u32 = 1024;

/// Out-degree below which the kernels expand a vertex in one lane, and of
/// the lightest vertex they cut into pieces (`VYRE_LIGHT_DEGREE` in
/// `common.cuh`): a frontier with fewer out-edges has none.
pub(crate) const LIGHT_DEGREE: u32 = 32;

/// Widest block any per-wave kernel is built for (`VYRE_MAX_BLOCK`).
pub(crate) const MAX_WIDTH: u32 = 1024;

/// Block width of the launches the backend sizes itself (set-up and
/// conversions).
pub(crate) const SETUP_WIDTH: u32 = 256;

/// Every kernel of the program, loaded from one module.
pub(crate) struct Kernels {
    pub noop: CudaFunction,
    pub init_search: CudaFunction,
    pub seed_sources: CudaFunction,
    pub queue_to_bitmap: CudaFunction,
    pub bitmap_to_queue: CudaFunction,
    pub warp_sparse: CudaFunction,
    pub sparse: CudaFunction,
    pub hybrid: CudaFunction,
    pub dense: CudaFunction,
    pub block_dense: CudaFunction,
    pub fused: CudaFunction,
    pub fused_cluster: CudaFunction,
    pub batch_init: CudaFunction,
    pub batch_seed: CudaFunction,
    pub batch_words_to_queue: CudaFunction,
    pub batch_push: CudaFunction,
    pub batch_push_pieces: CudaFunction,
    pub batch_pull: CudaFunction,
    pub batch_warp_pull: CudaFunction,
    pub batch_fused: CudaFunction,
    pub rank: RankKernels,
    _module: Arc<CudaModule>,
}

/// The kernels of one rank of a partitioned search (`ranks.cu`), each
/// taking one [`RankArgs`].
pub(crate) struct RankKernels {
    pub init: CudaFunction,
    pub seed: CudaFunction,
    pub expand: CudaFunction,
    pub expand_pieces: CudaFunction,
    pub merge: CudaFunction,
    pub clear_sent: CudaFunction,
    pub frontier_words: CudaFunction,
    pub pull: CudaFunction,
}

impl Kernels {
    /// Load `ptx` into `ctx` and look up every kernel.
    pub(crate) fn load(ctx: &Arc<CudaContext>, ptx: &str) -> Result<Self, BackendError> {
        let module = ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(during("module load (PTX JIT)"))?;
        let get = |name: &str| module.load_function(name).map_err(during("kernel lookup"));
        Ok(Self {
            noop: get("vyre_noop")?,
            init_search: get("vyre_init_search")?,
            seed_sources: get("vyre_seed_sources")?,
            queue_to_bitmap: get("vyre_queue_to_bitmap")?,
            bitmap_to_queue: get("vyre_bitmap_to_queue")?,
            warp_sparse: get("vyre_warp_sparse")?,
            sparse: get("vyre_sparse")?,
            hybrid: get("vyre_hybrid")?,
            dense: get("vyre_dense")?,
            block_dense: get("vyre_block_dense")?,
            fused: get("vyre_fused")?,
            fused_cluster: get("vyre_fused_cluster")?,
            batch_init: get("vyre_batch_init")?,
            batch_seed: get("vyre_batch_seed")?,
            batch_words_to_queue: get("vyre_batch_words_to_queue")?,
            batch_push: get("vyre_batch_push")?,
            batch_push_pieces: get("vyre_batch_push_pieces")?,
            batch_pull: get("vyre_batch_pull")?,
            batch_warp_pull: get("vyre_batch_warp_pull")?,
            batch_fused: get("vyre_batch_fused")?,
            rank: RankKernels {
                init: get("vyre_rank_init")?,
                seed: get("vyre_rank_seed")?,
                expand: get("vyre_rank_expand")?,
                expand_pieces: get("vyre_rank_expand_pieces")?,
                merge: get("vyre_rank_merge")?,
                clear_sent: get("vyre_rank_clear_sent")?,
                frontier_words: get("vyre_rank_frontier_words")?,
                pull: get("vyre_rank_pull")?,
            },
            _module: module,
        })
    }
}

/// Most frontier vertices one `vyre_sparse` block scans in shared memory
/// (`VYRE_SMALL_FRONTIER_MAX`).
const SMALL_FRONTIER_MAX: u32 = 1024;

/// Most chunks of `vyre_sparse`'s device-wide scan (`VYRE_SCAN_CHUNKS`).
const SCAN_CHUNKS: u32 = 256;

/// Frontier vertices one `vyre_sparse` block of `width` threads scans in
/// shared memory (`sparse_capacity()`).
pub(crate) fn sparse_capacity(width: u32) -> u32 {
    (4 * width).min(SMALL_FRONTIER_MAX)
}

/// Dynamic shared memory of `vyre_sparse`: scan (capacity + 1), row starts
/// (capacity), a block scan (width + 1) and chunk bases (SCAN_CHUNKS + 1) as
/// u64, sources (capacity) as u32.
pub(crate) fn sparse_shared_bytes(width: u32) -> u32 {
    20 * sparse_capacity(width) + 8 * width + 8 * SCAN_CHUNKS + 24
}

/// Dynamic shared memory of `vyre_hybrid` and `vyre_fused`: a tile of
/// pieces as items: scan (width + 1) and row starts (width) as u64, sources
/// (width) as u32.
pub(crate) fn hybrid_shared_bytes(width: u32) -> u32 {
    20 * width + 8
}

/// Dynamic shared memory of `vyre_block_dense`: next-frontier words (width)
/// and the compaction list (4 * width) as u32, and its count.
pub(crate) fn block_dense_shared_bytes(width: u32) -> u32 {
    20 * width + 16
}

/// One launch: grid and block in x, dynamic shared memory.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Launch {
    pub blocks: u32,
    pub width: u32,
    pub shared_bytes: u32,
}

impl Launch {
    /// A set-up launch over `items` work items: SETUP_WIDTH threads per
    /// block, at most `max_blocks` blocks (the kernels stride).
    pub(crate) fn setup(items: u64, max_blocks: u32) -> Self {
        let blocks = items
            .div_ceil(u64::from(SETUP_WIDTH))
            .clamp(1, u64::from(max_blocks.max(1)));
        Self {
            blocks: u32::try_from(blocks).unwrap_or(u32::MAX),
            width: SETUP_WIDTH,
            shared_bytes: 0,
        }
    }

    fn config(self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (self.blocks, 1, 1),
            block_dim: (self.width, 1, 1),
            shared_mem_bytes: self.shared_bytes,
        }
    }
}

/// Enqueue `kernel` on `stream` with `args`. `cooperative` uses
/// cuLaunchCooperativeKernel, which refuses grids that cannot be resident
/// at once.
pub(crate) fn launch(
    stream: &CudaStream,
    kernel: &CudaFunction,
    launch: Launch,
    args: &KernelArgs,
    cooperative: bool,
) -> Result<(), BackendError> {
    launch_raw(stream, kernel, launch, args, cooperative).map_err(during(if cooperative {
        "cooperative kernel launch"
    } else {
        "kernel launch"
    }))
}

/// [`launch`], with the driver's own error.
pub(crate) fn launch_raw(
    stream: &CudaStream,
    kernel: &CudaFunction,
    launch: Launch,
    args: &KernelArgs,
    cooperative: bool,
) -> Result<(), DriverError> {
    let mut builder = stream.launch_builder(kernel);
    builder.arg(args);
    // SAFETY: every kernel of the program takes exactly one `VyreArgs`, which
    // `KernelArgs` mirrors (size asserted on both sides). Its pointers come
    // from buffers the backend owns and frees only after the stream has
    // finished with them (stream-ordered frees), and the kernels index them
    // only below the lengths the layout gave them (vertex and edge counts
    // passed in the same struct). The block width never exceeds what the
    // kernel was compiled for (the driver's check of the command, and whole
    // warps by the caller's).
    let result = unsafe {
        if cooperative {
            builder.launch_cooperative(launch.config())
        } else {
            builder.launch(launch.config())
        }
    };
    result.map(|_| ())
}

/// Enqueue `kernel` on `stream` as one thread-block cluster of
/// `launch.blocks` blocks: the hardware schedules them together (or refuses
/// the launch), so the kernel may wait at the cluster's barrier.
pub(crate) fn launch_cluster(
    stream: &CudaStream,
    kernel: &CudaFunction,
    launch: Launch,
    args: &KernelArgs,
) -> Result<(), DriverError> {
    let mut attr = cluster_attribute(launch.blocks);
    let config = cluster_config(stream, launch, &mut attr);
    let mut params = [std::ptr::from_ref(args)
        .cast_mut()
        .cast::<std::ffi::c_void>()];
    // SAFETY: as `launch_raw`: the kernel takes exactly one `VyreArgs`, which
    // `KernelArgs` mirrors, whose buffers outlive the stream's work; the
    // driver copies the parameters before returning. `config` and `attr`
    // live across the call.
    unsafe {
        sys::cuLaunchKernelEx(
            &raw const config,
            kernel.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
}

/// The launch attribute that makes a grid of `blocks` blocks one cluster.
pub(crate) fn cluster_attribute(blocks: u32) -> sys::CUlaunchAttribute {
    // SAFETY: a zeroed launch attribute is a valid plain C value; the id and
    // the cluster's dimensions are then set.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: blocks,
        y: 1,
        z: 1,
    };
    attr
}

/// The driver's configuration of `launch` on `stream` with `attr` (from
/// [`cluster_attribute`]), which must outlive its use.
pub(crate) fn cluster_config(
    stream: &CudaStream,
    launch: Launch,
    attr: &mut sys::CUlaunchAttribute,
) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: launch.blocks,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: launch.width,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: launch.shared_bytes,
        hStream: stream.cu_stream(),
        attrs: std::ptr::from_mut(attr),
        numAttrs: 1,
    }
}

/// Enqueue rank kernel `kernel` on `stream`.
pub(crate) fn launch_rank(
    stream: &CudaStream,
    kernel: &CudaFunction,
    launch: Launch,
    args: &RankArgs,
) -> Result<(), BackendError> {
    let mut builder = stream.launch_builder(kernel);
    builder.arg(args);
    // SAFETY: every rank kernel takes exactly one `VyreRankArgs`, which
    // `RankArgs` mirrors (asserted when the kernels compile). Its pointers
    // are the rank's buffers, alive until the stream has finished with
    // them, and the kernels index them only below the lengths the rank was
    // allocated for (its range, the graph's vertex count, the outbox room
    // in `outbox_start`, `pair_count`); widths are whole warps within
    // VYRE_MAX_BLOCK (the engine's checked command).
    unsafe { builder.launch(launch.config()) }
        .map(|_| ())
        .map_err(during("rank kernel launch"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_launches_cover_the_items_within_the_cap() {
        assert_eq!(Launch::setup(0, 100).blocks, 1);
        assert_eq!(Launch::setup(256, 100).blocks, 1);
        assert_eq!(Launch::setup(257, 100).blocks, 2);
        assert_eq!(Launch::setup(1 << 40, 100).blocks, 100);
        assert_eq!(Launch::setup(10, 0).blocks, 1);
    }

    #[test]
    fn sparse_scans_up_to_four_widths_in_shared_memory() {
        assert_eq!(sparse_capacity(64), 256);
        assert_eq!(sparse_capacity(256), 1024);
        assert_eq!(sparse_capacity(1024), 1024);
        // Width 64: 20 * 256 + 512 + 2048 + 24.
        assert_eq!(sparse_shared_bytes(64), 7704);
    }

    #[test]
    fn shared_memory_fits_the_default_48_kib_at_the_widest_block() {
        for bytes in [
            sparse_shared_bytes(MAX_WIDTH),
            hybrid_shared_bytes(MAX_WIDTH),
            block_dense_shared_bytes(MAX_WIDTH),
        ] {
            // Plus at most 1 KiB of static shared memory (ptxas -v).
            assert!(bytes + 1024 <= 48 * 1024, "{bytes}");
        }
    }
}
