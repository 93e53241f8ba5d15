//! [`DeviceCapabilities`] from a device's facts and what vyre measured on it
//! (launch overhead, the barrier probe).

use std::fmt;

use ash::vk;
use vyre_driver::backend::{BackendError, DeviceCapabilities};

use crate::facts::DeviceFacts;
use vyre_wgsl_abi::bindings::{EDGE_SEGMENT_BINDINGS, FUSED_STORAGE_BINDINGS};
use vyre_wgsl_abi::overrides::{max_kernel_width, power_of_two_at_most};
use vyre_wgsl_abi::probe::{BarrierRequest, BarrierVerdict, DeviceBarrier};

use crate::select::is_software;
use crate::spirv::LARGEST_WIDTH;

/// Share of the largest device-local heap the engine may plan for when the
/// driver gives no budget (no `VK_EXT_memory_budget`): the rest is left to
/// the driver and other processes.
pub const HEAP_SHARE_PERCENT: u64 = 80;

/// Where the memory budget came from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum BudgetSource {
    /// The caller's `VulkanOpenRequest::memory_budget_bytes`.
    Requested,
    /// `VK_EXT_memory_budget`: the driver's budget for this process on the
    /// largest device-local heap.
    MemoryBudgetExtension,
    /// [`HEAP_SHARE_PERCENT`] of the largest device-local heap.
    HeapShare,
}

impl fmt::Display for BudgetSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Requested => f.write_str("requested by the caller"),
            Self::MemoryBudgetExtension => {
                f.write_str("VK_EXT_memory_budget's budget of the largest device-local heap")
            }
            Self::HeapShare => write!(
                f,
                "{HEAP_SHARE_PERCENT}% of the largest device-local heap (no VK_EXT_memory_budget)"
            ),
        }
    }
}

/// The memory budget and how it was found.
pub(crate) fn memory_budget(facts: &DeviceFacts, requested: Option<u64>) -> (u64, BudgetSource) {
    if let Some(bytes) = requested {
        return (bytes, BudgetSource::Requested);
    }
    let largest = (0..facts.device_local_heaps.len()).max_by_key(|&i| facts.device_local_heaps[i]);
    let by_budget = largest
        .and_then(|i| facts.heap_budgets.as_ref()?.get(i).copied())
        .filter(|&bytes| bytes > 0);
    match (by_budget, largest) {
        (Some(bytes), _) => (bytes, BudgetSource::MemoryBudgetExtension),
        (None, Some(i)) => (
            facts.device_local_heaps[i] / 100 * HEAP_SHARE_PERCENT,
            BudgetSource::HeapShare,
        ),
        (None, None) => (0, BudgetSource::HeapShare),
    }
}

/// What vyre measured on the device at open.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Measured {
    pub launch_overhead_ns: f64,
    pub barrier: BarrierVerdict,
}

/// Overrides a caller may put on the measured capabilities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Overrides {
    pub memory_budget_bytes: Option<u64>,
    pub max_binding_bytes: Option<u64>,
    /// Tests only: a device-wide barrier for this many fused workgroups.
    pub resident_workgroups: Option<u32>,
}

/// Whether the device can run vyre's kernels at all.
pub(crate) fn check_usable(facts: &DeviceFacts) -> Result<(), BackendError> {
    if !facts.zero_workgroup_memory {
        return Err(BackendError::unavailable(format!(
            "{} cannot zero workgroup memory for shaders (shaderZeroInitializeWorkgroupMemory: Vulkan 1.3 or VK_KHR_zero_initialize_workgroup_memory), which vyre's SPIR-V relies on. Fix: update the Vulkan driver, or use the wgpu backend on this device.",
            facts.name
        )));
    }
    if facts.storage_buffers_per_stage < FUSED_STORAGE_BINDINGS {
        return Err(BackendError::unavailable(format!(
            "{} allows {} storage buffers per shader stage; vyre's kernels bind {FUSED_STORAGE_BINDINGS}. Fix: use another device or backend.",
            facts.name, facts.storage_buffers_per_stage
        )));
    }
    Ok(())
}

/// The largest storage binding: the device's range, within one allocation.
pub(crate) fn binding_limit(facts: &DeviceFacts) -> u64 {
    match facts.max_memory_allocation {
        0 => facts.max_storage_buffer_range,
        most => facts.max_storage_buffer_range.min(most),
    }
}

fn type_name(device_type: vk::PhysicalDeviceType) -> &'static str {
    match device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
        vk::PhysicalDeviceType::CPU => "software, on the CPU",
        _ => "other",
    }
}

/// The capabilities the engine plans with.
pub(crate) fn capabilities(
    facts: &DeviceFacts,
    overrides: Overrides,
    measured: &Measured,
) -> DeviceCapabilities {
    let width_limit = max_kernel_width(
        facts
            .max_workgroup_size_x
            .min(facts.max_workgroup_invocations),
        facts.max_workgroup_memory,
    )
    .min(LARGEST_WIDTH);
    let binding = binding_limit(facts);
    let barrier = DeviceBarrier::of(&BarrierRequest {
        verdict: &measured.barrier,
        software: is_software(facts.device_type),
        forced_workgroups: overrides.resident_workgroups,
    });
    DeviceCapabilities {
        fused_cluster: vyre_driver::backend::FusedCluster::NONE,
        device_name: format!(
            "{} ({}, Vulkan {}.{})",
            facts.name,
            type_name(facts.device_type),
            vk::api_version_major(facts.api_version),
            vk::api_version_minor(facts.api_version)
        ),
        megakernel: barrier.megakernel,
        barrier_reason: barrier.reason,
        // The batch kernels have no persistent form here: batch passes run
        // per-wave topologies only.
        batch_fused_wave: false,
        max_workgroup_size_x: power_of_two_at_most(width_limit),
        max_compute_workgroups_per_dimension: facts.max_workgroup_count_x,
        max_compute_invocations_per_workgroup: facts.max_workgroup_invocations,
        subgroup_size: facts.subgroup_size.max(1),
        // The WGSL kernels run virtual warps: any power-of-two width works.
        workgroup_width_multiple: 1,
        // Measured, not guessed: the lanes the probe found running at once.
        resident_lanes: barrier.resident_lanes,
        resident_workgroups: barrier.resident_workgroups,
        resident_workgroup_size: barrier.resident_workgroup_size,
        memory_budget_bytes: memory_budget(facts, overrides.memory_budget_bytes).0,
        max_binding_bytes: overrides
            .max_binding_bytes
            .map_or(binding, |o| o.min(binding)),
        max_edge_segments: EDGE_SEGMENT_BINDINGS,
        offset_bytes: 4,
        needs_readback_staging: true,
        launch_overhead_ns: measured.launch_overhead_ns,
        device_timestamps: facts.timestamp_period_ns.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_wgsl_abi::probe::{BarrierVerdict, PROBE_MAX_WORKGROUPS, search, synthetic_trial};

    fn h200() -> DeviceFacts {
        DeviceFacts {
            name: "NVIDIA H200".into(),
            device_type: vk::PhysicalDeviceType::DISCRETE_GPU,
            api_version: vk::API_VERSION_1_3,
            max_workgroup_size_x: 1024,
            max_workgroup_invocations: 1024,
            max_workgroup_count_x: 2_147_483_647,
            max_workgroup_memory: 49_152,
            max_storage_buffer_range: u64::from(u32::MAX),
            max_memory_allocation: 1 << 40,
            storage_buffers_per_stage: 1 << 20,
            subgroup_size: 32,
            subgroup_range: Some((32, 32)),
            timestamp_period_ns: Some(1.0),
            device_local_heaps: vec![150_000_000_000, 256 << 20],
            heap_budgets: Some(vec![140_000_000_000, 200 << 20]),
            zero_workgroup_memory: true,
            ..DeviceFacts::default()
        }
    }

    fn measured(barrier: BarrierVerdict) -> Measured {
        Measured {
            launch_overhead_ns: 9000.0,
            barrier,
        }
    }

    fn verified(n: u32) -> BarrierVerdict {
        search(256, PROBE_MAX_WORKGROUPS, |k| Ok(synthetic_trial(k, n))).unwrap()
    }

    #[test]
    fn the_budget_comes_from_the_extension_else_a_heap_share() {
        let mut facts = h200();
        assert_eq!(
            memory_budget(&facts, None),
            (140_000_000_000, BudgetSource::MemoryBudgetExtension)
        );
        assert_eq!(memory_budget(&facts, Some(5)), (5, BudgetSource::Requested));
        facts.heap_budgets = None;
        assert_eq!(
            memory_budget(&facts, None),
            (120_000_000_000, BudgetSource::HeapShare)
        );
        assert!(BudgetSource::HeapShare.to_string().contains("80%"));
    }

    #[test]
    fn limits_and_the_verified_barrier_become_capabilities() {
        let caps = capabilities(&h200(), Overrides::default(), &measured(verified(1056)));
        assert_eq!(caps.max_workgroup_size_x, 256);
        assert_eq!(caps.max_binding_bytes, u64::from(u32::MAX));
        assert_eq!(caps.max_edge_segments, 8);
        assert!(caps.can_fuse());
        assert_eq!(
            (caps.resident_workgroups, caps.resident_workgroup_size),
            (1056, 256)
        );
        assert_eq!(caps.resident_lanes, 1056 * 256);
        assert!(caps.device_timestamps);
        assert!(
            caps.device_name.contains("discrete GPU"),
            "{}",
            caps.device_name
        );
        let overridden = Overrides {
            max_binding_bytes: Some(1 << 20),
            memory_budget_bytes: Some(1 << 30),
            resident_workgroups: None,
        };
        let caps = capabilities(&h200(), overridden, &measured(verified(1056)));
        assert_eq!(
            (caps.max_binding_bytes, caps.memory_budget_bytes),
            (1 << 20, 1 << 30)
        );
    }

    #[test]
    fn an_unverified_barrier_reports_no_fusion_and_odd_limits_round_down() {
        let mut facts = h200();
        facts.max_workgroup_size_x = 192;
        facts.max_memory_allocation = 1 << 30;
        facts.timestamp_period_ns = None;
        let none = BarrierVerdict::not_run("the device runs workgroups of at most 192");
        let caps = capabilities(&facts, Overrides::default(), &measured(none));
        assert_eq!(caps.max_workgroup_size_x, 128);
        assert_eq!(caps.max_binding_bytes, 1 << 30);
        assert!(!caps.can_fuse() && !caps.megakernel.supports_device_wide_barrier);
        assert_eq!((caps.resident_workgroups, caps.resident_lanes), (0, 0));
        assert!(
            caps.barrier_reason.contains("at most 192"),
            "{}",
            caps.barrier_reason
        );
        assert!(!caps.device_timestamps);
    }

    /// The rule is vyre-wgsl-abi's `DeviceBarrier`; here, that a CPU
    /// device is software to it and the open request's forced count
    /// reaches it.
    #[test]
    fn a_software_device_gets_no_barrier_unless_one_is_forced() {
        let mut facts = h200();
        facts.device_type = vk::PhysicalDeviceType::CPU;
        let caps = capabilities(&facts, Overrides::default(), &measured(verified(2)));
        assert!(!caps.can_fuse() && caps.resident_workgroups == 0);
        assert!(
            caps.barrier_reason
                .ends_with("no co-residency guarantee: no barrier"),
            "{}",
            caps.barrier_reason
        );
        let forced = Overrides {
            resident_workgroups: Some(1),
            ..Overrides::default()
        };
        let caps = capabilities(&facts, forced, &measured(verified(2)));
        assert!(caps.can_fuse());
        assert_eq!(
            (
                caps.resident_workgroups,
                caps.resident_workgroup_size,
                caps.resident_lanes
            ),
            (1, vyre_wgsl_abi::FUSED_WIDTH, 0)
        );
    }

    #[test]
    fn too_few_storage_bindings_or_no_zeroed_workgroup_memory_is_unavailable() {
        assert!(check_usable(&h200()).is_ok());
        let mut facts = h200();
        facts.storage_buffers_per_stage = 16;
        let err = check_usable(&facts).unwrap_err();
        assert_eq!(
            err.kind(),
            vyre_driver::backend::BackendErrorKind::Unavailable
        );
        assert!(err.message().contains("16 storage buffers"), "{err}");
        let mut facts = h200();
        facts.zero_workgroup_memory = false;
        let err = check_usable(&facts).unwrap_err();
        assert!(
            err.message()
                .contains("shaderZeroInitializeWorkgroupMemory"),
            "{err}"
        );
    }
}
