//! vyre's wgpu backend: BFS waves as WGSL compute kernels on any adapter wgpu
//! drives (Vulkan, Metal, DX12, and lavapipe on the CPU).
//!
//! Five per-wave kernels, one per topology (`shaders/wgsl/`): WarpSparse
//! (a 32-lane virtual warp per frontier vertex), Sparse (every workgroup
//! expands an equal share of the frontier's out-edges, found through a scan
//! of degrees), Hybrid (light vertices per invocation, mid-degree ones per
//! workgroup, hubs cut into pieces spread over a second dispatch), Dense
//! (bottom-up per vertex) and BlockDense (bottom-up by tiles of bitmap
//! words, assembled in workgroup memory and written whole), plus
//! queue/bitmap conversions and per-level bookkeeping.
//!
//! Batch passes (up to 64 searches at once, `Backend::begin_batch`) run
//! the same top-down kernels built with the batch's visits, and bottom-up
//! kernels of their own, on a second bind group of batch state.
//!
//! WebGPU promises no forward progress between workgroups, so at open the
//! backend runs the barrier probe (vyre-wgsl-abi's `probe`: the fused
//! kernel in its probe mode, bounded spins) and reports a device-wide
//! barrier only for the workgroup count every trial saw co-resident (never
//! on a software adapter). There it runs `FusedWave` as the persistent
//! kernel `fused.wgsl`, the one Vulkan runs, launched with at most that
//! count; its waits are bounded, so a launch that cannot complete a
//! barrier ends in a typed error. Without a barrier it chains levels:
//! several levels recorded into one submission, each later level's
//! dispatch sized on the device (indirect dispatch) by the engine's rule
//! from the previous level's frontier, and one readback per chain. The
//! backend decides nothing: topology, every grid, chain length, band and
//! where the frontier lives come in the checked command; it holds device
//! buffers only.
//!
//! No kernel lets one invocation loop long: lavapipe silently ends every
//! loop after 65,535 iterations per invocation, so long adjacency lists are
//! always walked by a whole warp or workgroup.

mod backend;
mod batch;
mod device_graph;
mod errors;
mod host_writes;
mod kernels;
#[cfg(test)]
mod level_sizing_probe;
mod memory_budget;
mod open;
mod probe;
mod readback;
mod record;
mod region;
mod timing;
mod upload;
mod wave;

pub use backend::WgpuBackend;
pub use memory_budget::{FALLBACK_BUDGET_BYTES, HEAP_SHARE_PERCENT};
pub use open::WgpuOpenRequest;
pub use timing::CommandTiming;
