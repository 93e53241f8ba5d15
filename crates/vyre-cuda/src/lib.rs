//! vyre's CUDA backend: kernels written in CUDA C (`shaders/cuda`), compiled
//! at run time by NVRTC for the device's exact architecture, and the
//! persistent cooperative megakernel (`FusedWave`) that runs many BFS levels
//! in one launch with a device-wide barrier between them.
//!
//! The crate builds without CUDA: the driver and NVRTC are loaded when a
//! backend opens. With no driver, [`CudaBackend::open`] reports an
//! `Unavailable` error instead of panicking ([`driver_present`] asks
//! first). [`compile_ptx`] needs only NVRTC.
//!
//! Every topology of the policy has a kernel: warp-per-vertex, edge-balanced
//! and degree-tiered top-down pushes over a queue, thread-per-vertex and
//! tile-per-block bottom-up pulls over a bitmap, and the fused persistent
//! top-down kernel. Each computes exact BFS depths from any frontier.
//! SparseFrontier, HybridFrontier and the fused kernel share a frontier's
//! edges over the whole grid (a device-wide degree scan, or heavy vertices
//! cut into pieces in the layout's work array), so a few hubs never land in
//! one block.
//!
//! The backend decides nothing: the engine's command, checked once by the
//! driver, carries the topology, every grid (the first level's and the rule
//! for later levels of a chain), the chain length, the band and where the
//! frontier lies; the backend holds device buffers only. Per command the
//! host enqueues the launches on those grids, waits once, and reads the
//! level records the kernels wrote into mapped host memory; a chain is
//! enqueued only a few levels ahead of the device and stops once a level
//! ends it.
//!
//! Every wait on the device has a deadline
//! ([`vyre_driver::backend::DEVICE_WAIT_LIMIT`], or
//! [`CudaOpenRequest::wait_limit`]): past it the host sets an abort word that
//! spinning kernels read, and a stuck command becomes an error instead of a
//! process that never returns.
//!
//! [`CudaRanks`] partitions one graph over several GPUs (or, for tests,
//! several ranks on one GPU), each rank's state on its own device and every
//! exchange on device buffers through NCCL.
//!
//! Testing: `tests/` runs whole searches against the reference BFS on a CUDA
//! device and prints `skipped: no CUDA driver` without one (set
//! `VYRE_REQUIRE_BACKENDS=cuda` to make that a failure). Without a GPU,
//! `emu/run.sh` runs the kernels on the CPU and `emu/cargo_test.sh` runs
//! these same tests against a stand-in libcuda that does (see
//! `emu/README.md`).

mod args;
mod backend;
mod batch;
mod buffers;
mod cluster;
mod compile;
mod device;
mod error;
mod kernels;
mod nccl;
mod pacing;
mod pinned;
mod ptx_cache;
mod ranks;
mod records;
mod source;
mod timing;
mod wait;
mod wave;

pub use backend::CudaBackend;
pub use cluster::CLUSTER_SHAPE_ENV;
pub use compile::{
    GpuArch, NVRTC_OPTIONS_ENV, STUCK_BARRIER_ENV, compile_options, compile_ptx, nvrtc_present,
};
pub use device::{CudaOpenRequest, driver_present, memory_margin};
pub use nccl::{NCCL_DIR_ENV, NcclRank, nccl_present, open_nccl_group};
pub use ptx_cache::{PtxCachePolicy, PtxOrigin};
pub use ranks::{CudaRanks, CudaRanksOpenRequest};
pub use source::{KERNEL_NAMES, kernel_source};
