//! Opening a CUDA device: context, kernels, and the capabilities measured
//! from it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys::CUdevice_attribute as Attr;
use cudarc::driver::{CudaContext, CudaStream, DriverError, sys};
use vyre_driver::backend::{BackendError, DEVICE_WAIT_LIMIT, DeviceCapabilities, FusedCluster};
use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;

use crate::args::KernelArgs;
use crate::compile::{GpuArch, compile_for, nvrtc_version};
use crate::error::during;
use crate::kernels::{
    FUSED_WIDTH, Kernels, Launch, MAX_WIDTH, hybrid_shared_bytes, launch, launch_raw,
};
use crate::ptx_cache::{PtxCachePolicy, PtxOrigin, Toolchain, forget, load_or_compile};
use crate::wait::Watchdog;

/// How to open the CUDA backend.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct CudaOpenRequest {
    /// Device ordinal (0 = the first GPU, as `nvidia-smi` numbers them
    /// unless `CUDA_VISIBLE_DEVICES` says otherwise).
    pub ordinal: usize,
    /// Where compiled PTX is cached between runs.
    pub ptx_cache: PtxCachePolicy,
    /// Bytes the engine may plan for; `None` = free device memory at open
    /// minus [`memory_margin`].
    pub memory_budget_bytes: Option<u64>,
    /// Longest the backend waits on the device for one command, upload or
    /// readback before it aborts the kernels and reports an error; `None` =
    /// [`DEVICE_WAIT_LIMIT`]. Tests of the deadline use a short one.
    pub wait_limit: Option<Duration>,
    /// Offer light graphs' fused commands a launch of one thread-block
    /// cluster (`FusedCluster`, measured at open: compute capability 9.0).
    /// Off by default: on H100s a level took longer on it than on the grid
    /// barrier's launches at every cluster shape timed (docs/BENCHMARKS.md);
    /// `xtask bench --cuda-cluster` turns it on, `VYRE_CUDA_CLUSTER_SHAPE`
    /// picks its shape for such timings.
    pub fused_cluster: bool,
}

/// Whether a CUDA driver library (libcuda) can be loaded on this machine.
/// Without one every cudarc call would panic, so the backend checks this
/// first and reports itself unavailable.
#[must_use]
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen libcuda by its usual names; no driver
    // function is called.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Device memory left out of the budget: 256 MiB plus 1/64 of the device
/// (2.4 GiB on a 141 GB H200). The driver needs room beyond vyre's buffers
/// (module code, the local memory of resident threads, the stream-ordered
/// allocator's 2 MiB pages), and other processes may allocate meanwhile.
#[must_use]
pub fn memory_margin(total_bytes: u64) -> u64 {
    (256 << 20) + total_bytes / 64
}

/// What the backend knows about its device beyond the capabilities.
pub(crate) struct Device {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub kernels: Kernels,
    pub caps: DeviceCapabilities,
    pub arch: GpuArch,
    pub ptx_origin: PtxOrigin,
    /// The deadline of every wait, and the abort word the kernels read.
    pub watchdog: Watchdog,
}

pub(crate) fn open_device(request: &CudaOpenRequest) -> Result<Device, BackendError> {
    if !driver_present() {
        return Err(BackendError::unavailable(
            "no CUDA driver (libcuda.so) was found on this machine. Fix: install the NVIDIA driver (and put its library directory on LD_LIBRARY_PATH), or use the wgpu or cpu backend.",
        ));
    }
    let count = CudaContext::device_count().map_err(during("driver initialisation"))?;
    let count = usize::try_from(count).unwrap_or(0);
    if request.ordinal >= count {
        return Err(BackendError::unavailable(format!(
            "CUDA device {} was asked for but the driver sees {count} device(s). Fix: pass an ordinal below {count} (check CUDA_VISIBLE_DEVICES and nvidia-smi).",
            request.ordinal
        )));
    }
    let ctx = CudaContext::new(request.ordinal).map_err(during("context creation"))?;
    // SAFETY: the backend issues all its work on one stream, so cudarc's
    // cross-stream event tracking has nothing to order; turning it off before
    // any allocation saves two event records per buffer per launch.
    unsafe { ctx.disable_event_tracking() };
    let (major, minor) = ctx.compute_capability().map_err(during("device query"))?;
    let name = ctx.name().map_err(during("device query"))?;
    let arch = GpuArch::from_compute_capability(major, minor);
    let (kernels, ptx_origin) = load_kernels(&ctx, &arch, &request.ptx_cache)?;
    let stream = ctx.new_stream().map_err(during("stream creation"))?;
    let mut watchdog = Watchdog::new(&ctx, request.wait_limit.unwrap_or(DEVICE_WAIT_LIMIT))?;
    let attr = |a: Attr| {
        ctx.attribute(a)
            .map(|v| u32::try_from(v).unwrap_or(0))
            .map_err(during("device attribute query"))
    };
    let sm_count = attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let cooperative = attr(Attr::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0;
    let max_block_x = attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?.min(MAX_WIDTH);
    let max_threads = attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?.min(MAX_WIDTH);
    let max_grid_x = attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?;
    let warp = attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?;
    let threads_per_sm = attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?;
    let barrier = if !cooperative || major < 6 {
        Barrier::none(format!(
            "{name} has no cooperative launch (compute capability {major}.{minor}, cooperative launch attribute {}), which the fused kernel's grid barrier needs",
            u32::from(cooperative)
        ))
    } else {
        fused_barrier(&stream, &kernels, &mut watchdog, sm_count)?
    };
    if barrier.blocks == 0 {
        tracing::info!("{name}: no FusedWave: {}", barrier.reason);
    }
    let (free, total) = ctx.mem_get_info().map_err(during("memory query"))?;
    let budget = request
        .memory_budget_bytes
        .unwrap_or_else(|| (free as u64).saturating_sub(memory_margin(total as u64)));
    let (fused_cluster, cluster_reason) = if !request.fused_cluster {
        (
            FusedCluster::NONE,
            "no cluster launch (not asked for)".to_owned(),
        )
    } else if barrier.blocks == 0 {
        (
            FusedCluster::NONE,
            "no cluster launch without a fused kernel".to_owned(),
        )
    } else {
        crate::cluster::fused_cluster(&stream, &kernels, major, &mut watchdog)?
    };
    let launch_overhead_ns = calibrate_launch(&stream, &kernels, &mut watchdog)?;
    let resident = barrier.blocks;
    let caps = DeviceCapabilities {
        fused_cluster,
        device_name: format!("{name} (sm_{major}{minor}, {sm_count} SMs)"),
        megakernel: if resident > 0 {
            MegakernelDeviceCapabilities::FUSION_CAPABLE
        } else {
            MegakernelDeviceCapabilities::FUSION_INCAPABLE
        },
        barrier_reason: format!("{}; {cluster_reason}", barrier.reason),
        batch_fused_wave: true,
        max_workgroup_size_x: max_block_x,
        max_compute_workgroups_per_dimension: max_grid_x,
        max_compute_invocations_per_workgroup: max_threads,
        subgroup_size: warp,
        // The kernels use warp intrinsics: whole warps only.
        workgroup_width_multiple: warp,
        resident_lanes: sm_count.saturating_mul(threads_per_sm),
        resident_workgroups: resident,
        resident_workgroup_size: if resident > 0 { FUSED_WIDTH } else { 0 },
        memory_budget_bytes: budget,
        max_binding_bytes: u64::MAX,
        max_edge_segments: 1,
        offset_bytes: 8,
        needs_readback_staging: false,
        launch_overhead_ns,
        device_timestamps: true,
    };
    tracing::debug!(
        "opened {} (PTX {:?}, {}, launch {:.0} ns)",
        caps.device_name,
        ptx_origin,
        caps.barrier_reason,
        launch_overhead_ns
    );
    Ok(Device {
        ctx,
        stream,
        kernels,
        caps,
        arch,
        ptx_origin,
        watchdog,
    })
}

/// The fused kernel's device-wide barrier: how many blocks are resident at
/// once (0: no barrier), and in words how that was established or why
/// there is none.
struct Barrier {
    blocks: u32,
    reason: String,
}

impl Barrier {
    fn none(reason: String) -> Self {
        Self { blocks: 0, reason }
    }
}

/// Measure the resident grid of the fused kernel and launch it once
/// cooperatively: the barrier exists only if that launch is accepted.
fn fused_barrier(
    stream: &Arc<CudaStream>,
    kernels: &Kernels,
    watchdog: &mut Watchdog,
    sm_count: u32,
) -> Result<Barrier, BackendError> {
    let occupancy = |kernel: &cudarc::driver::CudaFunction, shared_bytes: u32| {
        kernel
            .occupancy_max_active_blocks_per_multiprocessor(
                FUSED_WIDTH,
                shared_bytes as usize,
                None,
            )
            .map_err(during("occupancy query"))
    };
    // Both fused kernels (a single search's and a batch pass's) run on the
    // grid the capabilities report.
    let per_sm = occupancy(&kernels.fused, hybrid_shared_bytes(FUSED_WIDTH))?
        .min(occupancy(&kernels.batch_fused, 0)?);
    let blocks = per_sm.saturating_mul(sm_count);
    if blocks == 0 {
        return Ok(Barrier::none(format!(
            "no block of the fused kernel ({FUSED_WIDTH} threads) can be resident on an SM"
        )));
    }
    if let Err(DriverError(code)) = warm_up_fused(stream, kernels, blocks) {
        return Ok(Barrier::none(format!(
            "the cooperative launch of the fused kernel's {blocks} resident blocks of {FUSED_WIDTH} threads was refused ({code:?})"
        )));
    }
    watchdog.wait(stream, "the fused kernel's warm-up launch")?;
    Ok(Barrier {
        blocks,
        reason: format!(
            "cooperative launch: {blocks} blocks of {FUSED_WIDTH} threads resident ({per_sm} per SM on {sm_count} SMs)"
        ),
    })
}

/// The driver's version, as `cuDriverGetVersion` reports it.
fn driver_version() -> Result<i32, BackendError> {
    let mut version = 0;
    // SAFETY: the driver library is loaded (the context exists); the call
    // only writes the integer.
    unsafe { sys::cuDriverGetVersion(&raw mut version) }
        .result()
        .map_err(during("driver version query"))?;
    Ok(version)
}

/// Load the kernels from cached PTX; cached PTX that the driver refuses (a
/// newer NVRTC wrote it, or it is damaged) is dropped and compiled afresh.
fn load_kernels(
    ctx: &Arc<CudaContext>,
    arch: &GpuArch,
    policy: &PtxCachePolicy,
) -> Result<(Kernels, PtxOrigin), BackendError> {
    let tools = Toolchain {
        nvrtc: nvrtc_version()?,
        driver: driver_version()?,
    };
    let cached = load_or_compile(arch, tools, policy, || compile_for(arch))?;
    match Kernels::load(ctx, &cached.ptx) {
        Ok(kernels) => Ok((kernels, cached.origin)),
        Err(e) if cached.origin != PtxOrigin::Compiled => {
            tracing::debug!("cached PTX {} did not load ({e}); recompiling", cached.key);
            forget(&cached.key, policy);
            let fresh = load_or_compile(arch, tools, policy, || compile_for(arch))?;
            Ok((Kernels::load(ctx, &fresh.ptx)?, fresh.origin))
        }
        Err(e) => Err(e),
    }
}

/// Enqueue one cooperative launch of the fused kernel over the whole
/// resident grid that runs no level (`max_levels` 0): it shows whether the
/// driver accepts the grid, and it moves the driver's costlier first
/// cooperative launch of the kernel from the first fused wave of a search to
/// start-up.
fn warm_up_fused(
    stream: &Arc<CudaStream>,
    kernels: &Kernels,
    blocks: u32,
) -> Result<(), DriverError> {
    let grid = Launch {
        blocks,
        width: FUSED_WIDTH,
        shared_bytes: hybrid_shared_bytes(FUSED_WIDTH),
    };
    launch_raw(stream, &kernels.fused, grid, &KernelArgs::default(), true)
}

/// Median time of an empty launch plus the wait for it, in ns.
fn calibrate_launch(
    stream: &Arc<CudaStream>,
    kernels: &Kernels,
    watchdog: &mut Watchdog,
) -> Result<f64, BackendError> {
    const WARM_UP: usize = 5;
    const SAMPLES: usize = 31;
    let args = KernelArgs::default();
    let one = Launch {
        blocks: 1,
        width: 32,
        shared_bytes: 0,
    };
    let mut samples = Vec::with_capacity(SAMPLES);
    for i in 0..WARM_UP + SAMPLES {
        let start = Instant::now();
        launch(stream, &kernels.noop, one, &args, false)?;
        watchdog.wait(stream, "the launch calibration")?;
        if i >= WARM_UP {
            samples.push(start.elapsed().as_nanos() as f64);
        }
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn margin_is_256_mib_plus_a_64th() {
        assert_eq!(memory_margin(0), 256 << 20);
        assert_eq!(memory_margin(64 << 30), (256 << 20) + (1 << 30));
    }

    #[test]
    fn the_default_request_opens_device_zero_with_the_default_cache() {
        let r = CudaOpenRequest::default();
        assert_eq!(r.ordinal, 0);
        assert_eq!(r.ptx_cache, PtxCachePolicy::Default);
        assert_eq!(r.memory_budget_bytes, None);
        assert_eq!(r.wait_limit, None);
    }
}
