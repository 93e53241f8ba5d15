//! The CPU "device": threads, memory and a measured dispatch overhead.

use std::time::Instant;

use vyre_driver::backend::DeviceCapabilities;
use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;

/// Capabilities of a CPU pool of `threads` threads with `budget` bytes.
pub(crate) fn cpu_capabilities(pool: &rayon::ThreadPool, budget: u64) -> DeviceCapabilities {
    host_capabilities(HostDevice {
        device_name: format!("CPU ({} threads)", pool.current_num_threads()),
        barrier_reason: "each level runs as its own parallel step on the host; there is no persistent kernel to fuse levels into".into(),
        resident_lanes: u32::try_from(pool.current_num_threads()).unwrap_or(u32::MAX),
        budget,
        launch_overhead_ns: calibrate_dispatch_ns(pool),
    })
}

/// What differs between the host's devices (one pool, simulated ranks).
pub(crate) struct HostDevice {
    pub device_name: String,
    pub barrier_reason: String,
    pub resident_lanes: u32,
    pub budget: u64,
    pub launch_overhead_ns: f64,
}

/// Capabilities of a device made of host threads: no device-wide barrier,
/// no binding limits, 64-bit offsets.
pub(crate) fn host_capabilities(device: HostDevice) -> DeviceCapabilities {
    DeviceCapabilities {
        fused_cluster: vyre_driver::backend::FusedCluster::NONE,
        device_name: device.device_name,
        megakernel: MegakernelDeviceCapabilities::FUSION_INCAPABLE,
        barrier_reason: device.barrier_reason,
        batch_fused_wave: false,
        max_workgroup_size_x: 1024,
        max_compute_workgroups_per_dimension: u32::MAX,
        max_compute_invocations_per_workgroup: 1024,
        subgroup_size: 1,
        workgroup_width_multiple: 1,
        resident_lanes: device.resident_lanes,
        resident_workgroups: 0,
        resident_workgroup_size: 0,
        memory_budget_bytes: device.budget,
        max_binding_bytes: u64::MAX,
        max_edge_segments: 1,
        offset_bytes: 8,
        needs_readback_staging: false,
        launch_overhead_ns: device.launch_overhead_ns,
        device_timestamps: true,
    }
}

/// Median cost of dispatching an empty parallel loop onto the pool: the CPU
/// counterpart of a launch.
fn calibrate_dispatch_ns(pool: &rayon::ThreadPool) -> f64 {
    use rayon::prelude::*;
    let threads = pool.current_num_threads();
    let mut samples: Vec<u64> = (0..64)
        .map(|_| {
            let start = Instant::now();
            pool.install(|| {
                (0..threads).into_par_iter().for_each(|i| {
                    std::hint::black_box(i);
                })
            });
            u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
        })
        .collect();
    samples.sort_unstable();
    samples[samples.len() / 2] as f64
}

/// Bytes of memory available to new allocations, from `/proc/meminfo`
/// (`MemAvailable`); `None` where that is not readable.
pub(crate) fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
