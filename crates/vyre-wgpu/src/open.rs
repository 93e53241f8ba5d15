//! Opening a wgpu device and measuring what it can do: limits, memory
//! budget, launch overhead and the device-wide barrier probe.

use std::time::Instant;

use vyre_driver::backend::{BackendError, DeviceCapabilities};

use vyre_wgsl_abi::bindings::{EDGE_SEGMENT_BINDINGS, STORAGE_BINDINGS};
use vyre_wgsl_abi::overrides::max_kernel_width;
use vyre_wgsl_abi::probe::{BarrierRequest, DeviceBarrier};

use crate::errors::{ErrorSink, wait_idle};
use crate::kernels::{Kernel, Kernels};
use crate::memory_budget::memory_budget;
use crate::probe::{ProbeRequest, probe_device, probe_limits};

/// Empty round trips timed at open; the median is the launch overhead.
const CALIBRATION_ROUNDS: usize = 15;

/// How to open a [`crate::WgpuBackend`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WgpuOpenRequest {
    /// Use only an adapter whose name contains this (case-insensitive).
    pub adapter_name_contains: Option<String>,
    /// Memory budget to report instead of the measured one, in bytes.
    pub memory_budget_bytes: Option<u64>,
    /// Report at most this many bytes per edge binding, so that small graphs
    /// are split into several edge segments (for tests of the split).
    pub max_binding_bytes_override: Option<u64>,
    /// Refuse software adapters (CPU devices such as lavapipe). Automatic
    /// backend selection sets this, since vyre's own CPU backend is much
    /// faster than a software GPU; naming the wgpu backend accepts them.
    pub skip_software_adapters: bool,
    /// Tests only: report a device-wide barrier for this many workgroups of
    /// the fused kernel whatever the probe measured (1 runs the fused
    /// kernel on any device, lavapipe included, since one workgroup is
    /// trivially co-resident; more exercises the bounded waits).
    pub force_resident_workgroups_for_tests: Option<u32>,
}

/// An opened device with everything measured at open.
pub(crate) struct OpenedDevice {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub caps: DeviceCapabilities,
    pub kernels: Kernels,
    pub errors: ErrorSink,
    /// The real storage-binding limit (the capability may be lowered).
    pub binding_limit: u64,
    /// Storage buffers one kernel may bind (a batch pass's bind more).
    pub storage_buffers: u32,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f64,
}

fn preference(device_type: wgpu::DeviceType) -> u8 {
    match device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn no_adapter(detail: &str) -> BackendError {
    BackendError::unavailable(format!(
        "no wgpu adapter {detail}. Fix: install a Vulkan driver (on Debian/Ubuntu `apt-get install mesa-vulkan-drivers libvulkan1` gives the lavapipe CPU device; on an NVIDIA machine the NVIDIA ICD loads only beside libvulkan1 and the GLVND libraries: libglvnd0, libglx0, libegl1 and the rest of that set), or check WGPU_BACKEND and the adapter name filter."
    ))
}

fn pick_adapter(request: &WgpuOpenRequest) -> Result<wgpu::Adapter, BackendError> {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    // wgpu checks every indirect dispatch with an extra dispatch of its own.
    // vyre's device-sized dispatches are capped at the per-dimension limit by
    // construction (the command's LevelSizing::max_workgroups, checked by the
    // driver), so the check only costs time. DX12 needs it
    // for `num_workgroups`, so it stays on Windows; WGPU_VALIDATION_INDIRECT_CALL
    // still decides when set.
    if !cfg!(windows) && std::env::var_os("WGPU_VALIDATION_INDIRECT_CALL").is_none() {
        descriptor
            .flags
            .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    }
    let instance = wgpu::Instance::new(descriptor);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let filter = request
        .adapter_name_contains
        .as_ref()
        .map(|f| f.to_lowercase());
    let found = adapters.len();
    let best = adapters
        .into_iter()
        .filter(|a| {
            filter
                .as_ref()
                .is_none_or(|f| a.get_info().name.to_lowercase().contains(f))
        })
        .filter(|a| {
            a.get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        })
        .filter(|a| {
            !request.skip_software_adapters || a.get_info().device_type != wgpu::DeviceType::Cpu
        })
        .min_by_key(|a| preference(a.get_info().device_type));
    match (best, filter) {
        (Some(adapter), _) => Ok(adapter),
        (None, Some(f)) => Err(no_adapter(&format!(
            "with compute shaders whose name contains {f:?} ({found} adapters found)"
        ))),
        (None, None) if request.skip_software_adapters => Err(no_adapter(&format!(
            "with compute shaders on hardware was found ({found} adapters found, software ones skipped)"
        ))),
        (None, None) => Err(no_adapter(&format!(
            "with compute shaders was found ({found} adapters found)"
        ))),
    }
}

/// Open the best adapter that matches `request`.
pub(crate) fn open(request: &WgpuOpenRequest) -> Result<OpenedDevice, BackendError> {
    let adapter = pick_adapter(request)?;
    let info = adapter.get_info();
    let limits = adapter.limits();
    if limits.max_storage_buffers_per_shader_stage < STORAGE_BINDINGS {
        return Err(BackendError::unavailable(format!(
            "adapter {} allows {} storage buffers per shader stage; vyre's kernels bind {STORAGE_BINDINGS}. Fix: use another adapter (Vulkan drivers allow far more) or another backend.",
            info.name, limits.max_storage_buffers_per_shader_stage
        )));
    }
    let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let required_features = if timestamps {
        wgpu::Features::TIMESTAMP_QUERY
    } else {
        wgpu::Features::empty()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("vyre"),
        required_features,
        required_limits: limits.clone(),
        ..Default::default()
    }))
    .map_err(|e| {
        BackendError::unavailable(format!(
            "adapter {} refused to open a device: {e}. Fix: update the driver or pick another adapter (WgpuOpenRequest::adapter_name_contains).",
            info.name
        ))
    })?;
    let budget = memory_budget(&adapter, request.memory_budget_bytes);
    let errors = ErrorSink::install(&device, budget);
    let mut kernels = Kernels::new(&device);
    let launch_overhead_ns = calibrate(&device, &queue, &mut kernels, &errors)?;
    let probe = ProbeRequest {
        device: &device,
        queue: &queue,
        errors: &errors,
        limits: probe_limits(&limits),
    };
    let verdict = probe_device(&probe, &mut kernels)?;
    let barrier = DeviceBarrier::of(&BarrierRequest {
        verdict: &verdict,
        software: info.device_type == wgpu::DeviceType::Cpu,
        forced_workgroups: request.force_resident_workgroups_for_tests,
    });
    let binding_limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let max_binding_bytes = request
        .max_binding_bytes_override
        .map_or(binding_limit, |o| o.min(binding_limit));
    let subgroup_size =
        if info.subgroup_min_size == info.subgroup_max_size && info.subgroup_max_size > 0 {
            info.subgroup_max_size
        } else {
            32
        };
    let caps = DeviceCapabilities {
        fused_cluster: vyre_driver::backend::FusedCluster::NONE,
        device_name: format!("{} ({:?}, {})", info.name, info.backend, info.driver_info),
        megakernel: barrier.megakernel,
        barrier_reason: barrier.reason,
        // No batch persistent kernel: batch passes run per-wave topologies.
        batch_fused_wave: false,
        max_workgroup_size_x: max_kernel_width(
            limits
                .max_compute_workgroup_size_x
                .min(limits.max_compute_invocations_per_workgroup),
            limits.max_compute_workgroup_storage_size,
        ),
        max_compute_workgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
        max_compute_invocations_per_workgroup: limits.max_compute_invocations_per_workgroup,
        subgroup_size,
        // The WGSL kernels run virtual warps: any power-of-two width works.
        workgroup_width_multiple: 1,
        // Measured, not guessed: the lanes the probe found running at once
        // (wgpu does not say).
        resident_lanes: barrier.resident_lanes,
        resident_workgroups: barrier.resident_workgroups,
        resident_workgroup_size: barrier.resident_workgroup_size,
        memory_budget_bytes: budget.bytes,
        max_binding_bytes,
        max_edge_segments: EDGE_SEGMENT_BINDINGS,
        offset_bytes: 4,
        needs_readback_staging: true,
        launch_overhead_ns,
        device_timestamps: timestamps,
    };
    tracing::info!(
        target: "vyre::wgpu",
        device = %caps.device_name,
        barrier = %caps.barrier_reason,
        resident_workgroups = caps.resident_workgroups,
        launch_overhead_ns = caps.launch_overhead_ns,
        "opened a wgpu device"
    );
    Ok(OpenedDevice {
        timestamp_period_ns: f64::from(queue.get_timestamp_period()),
        device,
        queue,
        caps,
        kernels,
        errors,
        binding_limit,
        storage_buffers: limits.max_storage_buffers_per_shader_stage,
    })
}

/// Median time of an empty dispatch, submit and wait, in ns.
fn calibrate(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    kernels: &mut Kernels,
    errors: &ErrorSink,
) -> Result<f64, BackendError> {
    let pipeline = kernels.pipeline(device, Kernel::Noop, 1);
    let mut samples = Vec::with_capacity(CALIBRATION_ROUNDS + 1);
    // The first round also pays for pipeline compilation: not a sample.
    for round in 0..=CALIBRATION_ROUNDS {
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre calibration"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
        queue.submit([encoder.finish()]);
        wait_idle(device, "calibrating launch overhead")?;
        if round > 0 {
            samples.push(start.elapsed().as_nanos() as f64);
        }
    }
    errors.check("calibrating launch overhead")?;
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}

/// The default adapter for a unit test, or `None` (with the reason printed)
/// where there is none and `VYRE_REQUIRE_BACKENDS` does not list wgpu.
#[cfg(test)]
pub(crate) fn open_for_tests() -> Option<OpenedDevice> {
    match open(&WgpuOpenRequest::default()) {
        Ok(opened) => Some(opened),
        Err(error) => {
            let required = std::env::var("VYRE_REQUIRE_BACKENDS")
                .is_ok_and(|list| list.split(',').any(|b| b.trim() == "wgpu"));
            assert!(!required, "VYRE_REQUIRE_BACKENDS has wgpu but: {error}");
            println!("skipped: no wgpu adapter ({error})");
            None
        }
    }
}
