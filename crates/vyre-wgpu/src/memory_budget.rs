//! How much device memory the engine may plan for.
//!
//! wgpu itself reports no memory size. On Vulkan (where vyre runs on both
//! lavapipe and NVIDIA) the raw adapter gives the device-local heap sizes;
//! the budget is [`HEAP_SHARE_PERCENT`] of the largest, leaving room for the
//! driver and other processes. Elsewhere, [`FALLBACK_BUDGET_BYTES`].

/// Share of the largest device-local heap the engine may plan for.
pub const HEAP_SHARE_PERCENT: u64 = 80;

/// Budget when the heap size is unknown (non-Vulkan backends): 2 GiB, which
/// every adapter wgpu drives with compute shaders has had room for, and far
/// below what a discrete GPU holds. Override it with
/// [`crate::WgpuOpenRequest::memory_budget_bytes`].
pub const FALLBACK_BUDGET_BYTES: u64 = 2 << 30;

/// Vulkan's `VK_MEMORY_HEAP_DEVICE_LOCAL_BIT`.
const DEVICE_LOCAL_HEAP: u32 = 0x1;

/// Largest device-local heap of a Vulkan adapter, in bytes.
fn vulkan_device_local_heap(adapter: &wgpu::Adapter) -> Option<u64> {
    // SAFETY: the guard only reads the hal adapter for the duration of this
    // call; nothing is destroyed and no wgpu-hal object is kept.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let instance = hal.shared_instance().raw_instance();
    // SAFETY: the physical device handle comes from the same live instance;
    // vkGetPhysicalDeviceMemoryProperties has no other requirements.
    let props =
        unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
    let count = (props.memory_heap_count as usize).min(props.memory_heaps.len());
    props.memory_heaps[..count]
        .iter()
        .filter(|heap| heap.flags.as_raw() & DEVICE_LOCAL_HEAP != 0)
        .map(|heap| heap.size)
        .max()
}

/// The budget for `adapter`: the caller's override, else the measured heap
/// share, else the fallback.
pub(crate) fn memory_budget(adapter: &wgpu::Adapter, override_bytes: Option<u64>) -> u64 {
    if let Some(bytes) = override_bytes {
        return bytes;
    }
    vulkan_device_local_heap(adapter)
        .map(|heap| heap / 100 * HEAP_SHARE_PERCENT)
        .filter(|&bytes| bytes > 0)
        .unwrap_or(FALLBACK_BUDGET_BYTES)
}
