//! The opened device: logical device, compute queue, command pool, a fence
//! for recorded chains and the allocator, torn down in the right order.

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::time::Duration;

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;
use crate::facts::{DeviceFacts, has_extension, read};
use crate::instance::Loaded;
use crate::memory::Memory;
use crate::select::{Candidate, Choice, compute_family, pick};
use crate::validation::ValidationLog;

/// How to open a [`Gpu`].
pub(crate) struct GpuRequest<'a> {
    pub choice: Choice<'a>,
    pub validation: bool,
    /// Longest wait for one command (`run_wave`).
    pub command_limit: Duration,
}

/// One Vulkan device and its compute queue.
pub(crate) struct Gpu {
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub pool: vk::CommandPool,
    /// Signalled by each submission of a recorded chain (reset before it).
    pub fence: vk::Fence,
    /// Dropped by hand: leaked with the device when it is poisoned.
    pub memory: ManuallyDrop<Memory>,
    pub facts: DeviceFacts,
    /// Longest wait for one command before it is given up on (a fused one:
    /// aborted).
    pub command_limit: Duration,
    /// Set when a submission was given up on while the device may still
    /// run it: nothing may be destroyed or submitted after that.
    poisoned: Cell<bool>,
    // Last: the instance outlives the device (leaked with a poisoned one).
    pub loaded: ManuallyDrop<Loaded>,
}

fn candidates(instance: &ash::Instance, devices: &[vk::PhysicalDevice]) -> Vec<Candidate> {
    devices
        .iter()
        .map(|&device| {
            // SAFETY: plain queries on devices of this instance.
            let (properties, families) = unsafe {
                (
                    instance.get_physical_device_properties(device),
                    instance.get_physical_device_queue_family_properties(device),
                )
            };
            Candidate {
                name: properties
                    .device_name_as_c_str()
                    .map_or_else(|_| "?".into(), |n| n.to_string_lossy().into_owned()),
                device_type: properties.device_type,
                api_version: properties.api_version,
                compute_family: compute_family(&families),
            }
        })
        .collect()
}

impl Gpu {
    /// Load Vulkan, pick a device as `request` says and open it.
    pub(crate) fn open(request: &GpuRequest<'_>) -> Result<Self, BackendError> {
        let loaded = Loaded::new(request.validation)?;
        let instance = &loaded.instance;
        // SAFETY: a plain query on a live instance.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| vk_error(e, "listing Vulkan devices"))?;
        let found = candidates(instance, &devices);
        let index = pick(&found, &request.choice)?;
        let physical = devices[index];
        let family = found[index].compute_family.unwrap_or(0);
        // SAFETY: a plain query on a device of this instance.
        let extensions = unsafe { instance.enumerate_device_extension_properties(physical) }
            .map_err(|e| vk_error(e, "listing device extensions"))?;
        let facts = read(instance, physical, family, &extensions);
        let mut enabled = Vec::new();
        if has_extension(&extensions, vk::EXT_MEMORY_BUDGET_NAME) {
            enabled.push(vk::EXT_MEMORY_BUDGET_NAME.as_ptr());
        }
        if facts.zero_workgroup_memory_extension {
            enabled.push(vk::KHR_ZERO_INITIALIZE_WORKGROUP_MEMORY_NAME.as_ptr());
        }
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // The SPIR-V asks the driver to zero workgroup memory (wgpu's
        // kernels rely on it); check_usable refuses devices without it.
        let mut zero = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default()
            .shader_zero_initialize_workgroup_memory(facts.zero_workgroup_memory);
        let mut info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&enabled);
        if facts.zero_workgroup_memory {
            info = info.push_next(&mut zero);
        }
        // SAFETY: `info` points at locals alive here; the family exists.
        let device = unsafe { instance.create_device(physical, &info, None) }
            .map_err(|e| vk_error(e, &format!("opening {}", facts.name)))?;
        // SAFETY: queue 0 of the family was requested above.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: a valid create info on the live device.
        let pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(pool) => pool,
            Err(e) => {
                // SAFETY: nothing was made from the device yet.
                unsafe { device.destroy_device(None) };
                return Err(vk_error(e, "creating a command pool"));
            }
        };
        // SAFETY: a plain create on the live device.
        let fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) };
        let made = fence
            .map_err(|e| vk_error(e, "creating a fence"))
            .and_then(|fence| {
                Memory::new(instance, &device, physical)
                    .map(|memory| (fence, memory))
                    .inspect_err(|_| {
                        // SAFETY: the fence was never used.
                        unsafe { device.destroy_fence(fence, None) };
                    })
            });
        let (fence, memory) = match made {
            Ok(made) => made,
            Err(e) => {
                // SAFETY: only the pool was made from the device.
                unsafe {
                    device.destroy_command_pool(pool, None);
                    device.destroy_device(None);
                }
                return Err(e);
            }
        };
        Ok(Self {
            device,
            queue,
            pool,
            fence,
            memory: ManuallyDrop::new(memory),
            facts,
            command_limit: request.command_limit,
            poisoned: Cell::new(false),
            loaded: ManuallyDrop::new(loaded),
        })
    }

    /// Note that a submission was given up on while the device may still
    /// run it.
    pub(crate) fn poison(&self) {
        self.poisoned.set(true);
    }

    /// Whether a submission was given up on: the device may still use every
    /// buffer, so nothing may be freed or submitted.
    pub(crate) fn poisoned(&self) -> bool {
        self.poisoned.get()
    }

    /// The validation log of this device's instance.
    pub(crate) fn validation_log(&self) -> ValidationLog {
        self.loaded.log()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // A poisoned device may still be running work that uses everything:
        // leak it rather than wait (which could hang) or free memory in use
        // (the backend leaks its buffers and pipelines too).
        if self.poisoned() {
            return;
        }
        // SAFETY: every submission was waited for (none was given up on),
        // and the owner drops every buffer, pipeline and recorded command
        // buffer before the Gpu (field order). Then the allocator, the
        // fence, the pool, the device and the instance go, each once.
        unsafe {
            self.memory.shut_down();
            ManuallyDrop::drop(&mut self.memory);
            self.device.destroy_fence(self.fence, None);
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            ManuallyDrop::drop(&mut self.loaded);
        }
    }
}
