//! What a physical device says about itself: limits, subgroups, timestamps
//! and memory, read once at open.

use ash::vk;

/// The device's own figures, before vyre turns them into capabilities.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeviceFacts {
    pub name: String,
    pub device_type: vk::PhysicalDeviceType,
    pub api_version: u32,
    pub driver_version: u32,
    pub max_workgroup_size_x: u32,
    pub max_workgroup_invocations: u32,
    pub max_workgroup_count_x: u32,
    pub max_workgroup_memory: u32,
    pub max_storage_buffer_range: u64,
    pub max_memory_allocation: u64,
    pub storage_buffers_per_stage: u32,
    /// Alignment of a storage binding's offset within its buffer.
    pub storage_offset_alignment: u64,
    /// Whether the driver zeroes workgroup memory for shaders that ask
    /// (`shaderZeroInitializeWorkgroupMemory`, Vulkan 1.3 or
    /// `VK_KHR_zero_initialize_workgroup_memory`): the SPIR-V relies on it.
    pub zero_workgroup_memory: bool,
    /// Whether that needs the extension enabled (a device before 1.3).
    pub zero_workgroup_memory_extension: bool,
    /// Lanes of a subgroup as compute shaders get it by default.
    pub subgroup_size: u32,
    /// Smallest and largest subgroup size (`VK_EXT_subgroup_size_control`,
    /// core in Vulkan 1.3), when the device reports them.
    pub subgroup_range: Option<(u32, u32)>,
    /// Nanoseconds per timestamp tick; `None` when the compute queue cannot
    /// write timestamps.
    pub timestamp_period_ns: Option<f64>,
    /// Sizes of the device-local heaps.
    pub device_local_heaps: Vec<u64>,
    /// `VK_EXT_memory_budget`'s budget of each device-local heap (same
    /// order), when the extension is present.
    pub heap_budgets: Option<Vec<u64>>,
}

pub(crate) fn has_extension(extensions: &[vk::ExtensionProperties], name: &std::ffi::CStr) -> bool {
    extensions
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// Read the facts of `device`, whose compute queue family is `family`.
pub(crate) fn read(
    instance: &ash::Instance,
    device: vk::PhysicalDevice,
    family: u32,
    extensions: &[vk::ExtensionProperties],
) -> DeviceFacts {
    let budget_ext = has_extension(extensions, vk::EXT_MEMORY_BUDGET_NAME);
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut maintenance3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut properties = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut subgroup)
        .push_next(&mut maintenance3);
    let size_control_known = device_api(instance, device) >= vk::API_VERSION_1_3
        || has_extension(extensions, vk::EXT_SUBGROUP_SIZE_CONTROL_NAME);
    if size_control_known {
        properties = properties.push_next(&mut size_control);
    }
    // SAFETY: `device` belongs to `instance` (Vulkan 1.1, checked at
    // selection); every chained struct is supported by it.
    unsafe { instance.get_physical_device_properties2(device, &mut properties) };
    let p = properties.properties;
    let limits = p.limits;
    let mut budget = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
    let mut memory = vk::PhysicalDeviceMemoryProperties2::default();
    if budget_ext {
        memory = memory.push_next(&mut budget);
    }
    // SAFETY: as above; the budget struct is chained only when supported.
    unsafe { instance.get_physical_device_memory_properties2(device, &mut memory) };
    let heaps = memory.memory_properties.memory_heaps_as_slice();
    let local: Vec<usize> = (0..heaps.len())
        .filter(|&i| heaps[i].flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .collect();
    let zero_extension = has_extension(extensions, vk::KHR_ZERO_INITIALIZE_WORKGROUP_MEMORY_NAME);
    let zero_known = device_api(instance, device) >= vk::API_VERSION_1_3 || zero_extension;
    let mut zero = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default();
    if zero_known {
        let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut zero);
        // SAFETY: as above; the struct is chained only when supported.
        unsafe { instance.get_physical_device_features2(device, &mut features) };
    }
    // SAFETY: a plain query on a device of this instance.
    let families = unsafe { instance.get_physical_device_queue_family_properties(device) };
    let timestamp_bits = families
        .get(family as usize)
        .map_or(0, |f| f.timestamp_valid_bits);
    DeviceFacts {
        name: p.device_name_as_c_str().map_or_else(
            |_| "unnamed Vulkan device".into(),
            |n| n.to_string_lossy().into_owned(),
        ),
        device_type: p.device_type,
        api_version: p.api_version,
        driver_version: p.driver_version,
        max_workgroup_size_x: limits.max_compute_work_group_size[0],
        max_workgroup_invocations: limits.max_compute_work_group_invocations,
        max_workgroup_count_x: limits.max_compute_work_group_count[0],
        max_workgroup_memory: limits.max_compute_shared_memory_size,
        max_storage_buffer_range: u64::from(limits.max_storage_buffer_range),
        max_memory_allocation: maintenance3.max_memory_allocation_size,
        storage_buffers_per_stage: limits.max_per_stage_descriptor_storage_buffers,
        storage_offset_alignment: limits.min_storage_buffer_offset_alignment.max(4),
        zero_workgroup_memory: zero_known
            && zero.shader_zero_initialize_workgroup_memory == vk::TRUE,
        zero_workgroup_memory_extension: p.api_version < vk::API_VERSION_1_3 && zero_extension,
        subgroup_size: subgroup.subgroup_size,
        subgroup_range: size_control_known
            .then_some((
                size_control.min_subgroup_size,
                size_control.max_subgroup_size,
            ))
            .filter(|&(lo, hi)| lo > 0 && hi >= lo),
        timestamp_period_ns: (timestamp_bits > 0 && limits.timestamp_period > 0.0)
            .then_some(f64::from(limits.timestamp_period)),
        device_local_heaps: local.iter().map(|&i| heaps[i].size).collect(),
        heap_budgets: budget_ext.then(|| local.iter().map(|&i| budget.heap_budget[i]).collect()),
    }
}

fn device_api(instance: &ash::Instance, device: vk::PhysicalDevice) -> u32 {
    // SAFETY: a plain query on a device of this instance.
    unsafe { instance.get_physical_device_properties(device) }.api_version
}
