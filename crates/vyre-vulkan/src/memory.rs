//! Device buffers from `gpu-allocator`: each buffer is exactly the size
//! asked for, and frees its memory when dropped.

use std::sync::{Arc, Mutex, PoisonError};

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use vyre_driver::backend::BackendError;

use crate::error::{allocation_error, out_of_memory, vk_error};

/// Memory blocks the allocator sub-allocates small buffers from (its
/// smallest); larger buffers get memory of their own size, so what the
/// device holds stays close to the buffers' bytes.
const BLOCK_BYTES: u64 = 4 << 20;

struct Inner {
    device: ash::Device,
    allocator: Mutex<Option<Allocator>>,
    /// Refuse buffers beyond this many bytes in all (tests of the failure
    /// path; `None` = only the device's limits).
    limit: Mutex<Option<u64>>,
    held: Mutex<u64>,
}

/// The device's allocator, shared by every buffer made from it.
#[derive(Clone)]
pub(crate) struct Memory(Arc<Inner>);

/// One buffer and its memory.
pub(crate) struct DeviceBuffer {
    pub buffer: vk::Buffer,
    pub size: u64,
    allocation: Option<Allocation>,
    memory: Memory,
}

impl Memory {
    pub(crate) fn new(
        instance: &ash::Instance,
        device: &ash::Device,
        physical: vk::PhysicalDevice,
    ) -> Result<Self, BackendError> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: gpu_allocator::AllocatorDebugSettings::default(),
            buffer_device_address: false,
            allocation_sizes: gpu_allocator::AllocationSizes::new(BLOCK_BYTES, BLOCK_BYTES),
        })
        .map_err(|e| allocation_error(&e, "allocator"))?;
        Ok(Self(Arc::new(Inner {
            device: device.clone(),
            allocator: Mutex::new(Some(allocator)),
            limit: Mutex::new(None),
            held: Mutex::new(0),
        })))
    }

    /// Refuse buffers beyond `limit` bytes in all from now on (tests of the
    /// out-of-memory path; set after the measurements at open).
    pub(crate) fn limit_to(&self, limit: Option<u64>) {
        *self.0.limit.lock().unwrap_or_else(PoisonError::into_inner) = limit;
    }

    /// Live allocations and bytes of device memory the allocator reserved
    /// (its blocks, which may hold more than the buffers in them).
    pub(crate) fn report(&self) -> (usize, u64) {
        let guard = self
            .0
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        guard.as_ref().map_or((0, 0), |a| {
            let report = a.generate_report();
            (report.allocations.len(), report.total_capacity_bytes)
        })
    }

    /// Free the allocator (before the device is destroyed).
    pub(crate) fn shut_down(&self) {
        let taken = self
            .0
            .allocator
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(taken);
    }

    /// A buffer of exactly `size` bytes (at least 4) with `usage`, in
    /// device-local memory or, for `host`, host-visible memory the CPU maps.
    pub(crate) fn buffer(
        &self,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
    ) -> Result<DeviceBuffer, BackendError> {
        let size = size.max(4);
        {
            let held = self.0.held.lock().unwrap_or_else(PoisonError::into_inner);
            let limit = *self.0.limit.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(limit) = limit
                && held.saturating_add(size) > limit
            {
                return Err(out_of_memory(&format!(
                    "the {name} needs {size} bytes but {} of the {limit} this backend may allocate are in use",
                    *held
                )));
            }
        }
        let device = &self.0.device;
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a valid create info on a live device.
        let buffer = unsafe { device.create_buffer(&info, None) }
            .map_err(|e| vk_error(e, &format!("creating the {name}")))?;
        // From here on `made` frees the buffer if anything fails.
        let mut made = DeviceBuffer {
            buffer,
            size,
            allocation: None,
            memory: self.clone(),
        };
        // SAFETY: `buffer` was just created on this device.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let allocation = {
            let mut guard = self
                .0
                .allocator
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let allocator = guard.as_mut().ok_or_else(|| {
                BackendError::device(
                    "the device is shutting down. Fix: keep the backend open while using it."
                        .to_string(),
                )
            })?;
            allocator
                .allocate(&AllocationCreateDesc {
                    name,
                    requirements,
                    location: if host {
                        MemoryLocation::GpuToCpu
                    } else {
                        MemoryLocation::GpuOnly
                    },
                    linear: true,
                    allocation_scheme: AllocationScheme::GpuAllocatorManaged,
                })
                .map_err(|e| allocation_error(&e, name))?
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is
        // bound once, before any use.
        let bound =
            unsafe { device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset()) };
        made.allocation = Some(allocation);
        *self.0.held.lock().unwrap_or_else(PoisonError::into_inner) += size;
        bound.map_err(|e| vk_error(e, &format!("binding memory to the {name}")))?;
        Ok(made)
    }
}

impl DeviceBuffer {
    /// The mapped bytes of a host-visible buffer.
    pub(crate) fn mapped(&self) -> Option<&[u8]> {
        self.allocation.as_ref()?.mapped_slice()
    }

    /// The mapped bytes of a host-visible buffer, writable.
    pub(crate) fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        self.allocation.as_mut()?.mapped_slice_mut()
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let inner = &self.memory.0;
        // SAFETY: the buffer is not in use: every submission that used it
        // was waited for before its owner let it go.
        unsafe { inner.device.destroy_buffer(self.buffer, None) };
        if let Some(allocation) = self.allocation.take() {
            *inner.held.lock().unwrap_or_else(PoisonError::into_inner) -= self.size;
            if let Some(allocator) = inner
                .allocator
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_mut()
            {
                // A failure here leaves a block the allocator frees when it
                // is dropped; nothing to report from a destructor.
                let _ = allocator.free(allocation);
            }
        }
    }
}
