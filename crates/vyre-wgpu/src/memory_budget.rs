//! How much device memory the engine may plan for.
//!
//! wgpu itself reports no memory size, free or total. On Vulkan (where vyre
//! runs on both lavapipe and NVIDIA) the raw adapter gives the device-local
//! heap sizes; the budget is [`HEAP_SHARE_PERCENT`] of the largest, leaving
//! room for the driver. Elsewhere, [`FALLBACK_BUDGET_BYTES`]. Neither knows
//! what other processes hold, so an allocation can fail within the budget;
//! the error then says how the budget was found ([`MemoryBudget`]).

use std::fmt;

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

/// Where a budget came from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Origin {
    /// The caller's figure.
    Requested,
    /// [`HEAP_SHARE_PERCENT`] of a device-local heap of this many bytes.
    Heap(u64),
    /// [`FALLBACK_BUDGET_BYTES`]: the heap size is unknown.
    Fallback,
}

/// The bytes the engine may plan for on one device, and how they were found.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct MemoryBudget {
    pub bytes: u64,
    origin: Origin,
}

impl MemoryBudget {
    /// The budget of a device whose largest device-local heap has `heap`
    /// bytes.
    #[cfg(test)]
    pub(crate) fn of_heap(heap: u64) -> Self {
        Self {
            bytes: heap / 100 * HEAP_SHARE_PERCENT,
            origin: Origin::Heap(heap),
        }
    }
}

impl fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the plan's budget is {} bytes, ", self.bytes)?;
        match self.origin {
            Origin::Requested => f.write_str("the figure the caller gave"),
            Origin::Heap(heap) => write!(
                f,
                "{HEAP_SHARE_PERCENT}% of the largest device-local heap ({heap} bytes) and not the memory free on the device, which other processes and the driver may hold"
            ),
            Origin::Fallback => f.write_str(
                "a fallback (wgpu reports no heap size for this adapter) and not the memory free on the device",
            ),
        }
    }
}

/// The budget for `adapter`: the caller's override, else the measured heap
/// share, else the fallback.
pub(crate) fn memory_budget(adapter: &wgpu::Adapter, override_bytes: Option<u64>) -> MemoryBudget {
    if let Some(bytes) = override_bytes {
        return MemoryBudget {
            bytes,
            origin: Origin::Requested,
        };
    }
    let heap = vulkan_device_local_heap(adapter).filter(|&heap| heap / 100 > 0);
    match heap {
        Some(heap) => MemoryBudget {
            bytes: heap / 100 * HEAP_SHARE_PERCENT,
            origin: Origin::Heap(heap),
        },
        None => MemoryBudget {
            bytes: FALLBACK_BUDGET_BYTES,
            origin: Origin::Fallback,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_says_it_is_a_heap_share_and_not_free_memory() {
        let text = MemoryBudget::of_heap(1000).to_string();
        assert!(text.contains("800 bytes"), "{text}");
        assert!(
            text.contains("80% of the largest device-local heap (1000 bytes)"),
            "{text}"
        );
        assert!(text.contains("not the memory free"), "{text}");
        let fallback = MemoryBudget {
            bytes: FALLBACK_BUDGET_BYTES,
            origin: Origin::Fallback,
        };
        assert!(fallback.to_string().contains("no heap size"));
    }
}
