//! The opened device: logical device, compute queue, command pool and
//! allocator, torn down in the right order.

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;
use crate::facts::{DeviceFacts, has_extension, read};
use crate::instance::Loaded;
use crate::memory::Memory;
use crate::select::{Candidate, Choice, compute_family, pick};
use crate::validation::ValidationLog;

/// One Vulkan device and its compute queue.
pub(crate) struct Gpu {
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub pool: vk::CommandPool,
    pub memory: Memory,
    pub facts: DeviceFacts,
    // Last: the instance outlives the device.
    pub loaded: Loaded,
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
    /// Load Vulkan, pick a device under `choice` and open it.
    pub(crate) fn open(
        choice: &Choice<'_>,
        validation: bool,
        allocation_limit: Option<u64>,
    ) -> Result<Self, BackendError> {
        let loaded = Loaded::new(validation)?;
        let instance = &loaded.instance;
        // SAFETY: a plain query on a live instance.
        let devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|e| vk_error(e, "listing Vulkan devices"))?;
        let found = candidates(instance, &devices);
        let index = pick(&found, choice)?;
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
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&enabled);
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
        let memory = match Memory::new(instance, &device, physical, allocation_limit) {
            Ok(memory) => memory,
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
            memory,
            facts,
            loaded,
        })
    }

    /// The validation log of this device's instance.
    pub(crate) fn validation_log(&self) -> ValidationLog {
        self.loaded.log()
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the owner drops every buffer, pipeline and recorded command
        // buffer before the Gpu (field order); waiting for idle makes sure
        // nothing still runs. Then the allocator, the pool and the device go.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.memory.shut_down();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
        }
    }
}
