//! Submitting recorded work and waiting for it, never longer than
//! [`DEVICE_WAIT_LIMIT`].

use std::time::Duration;

use ash::vk;
use vyre_driver::backend::{BackendError, DEVICE_WAIT_LIMIT};

use crate::error::vk_error;
use crate::gpu::Gpu;

/// Wait for `fence` at most `limit`.
pub(crate) fn wait_fence(
    device: &ash::Device,
    fence: vk::Fence,
    limit: Duration,
    doing: &str,
) -> Result<(), BackendError> {
    let timeout = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: the fence belongs to this device.
    match unsafe { device.wait_for_fences(&[fence], true, timeout) } {
        Ok(()) => Ok(()),
        Err(vk::Result::TIMEOUT) => Err(BackendError::device(format!(
            "the device did not finish {doing} within {} ms. Fix: the device hung or is overloaded; reopen the backend, and report the graph and topology if it repeats.",
            limit.as_millis()
        ))),
        Err(e) => Err(vk_error(e, doing)),
    }
}

/// A primary command buffer from the device's pool.
pub(crate) fn allocate_command(gpu: &Gpu, doing: &str) -> Result<vk::CommandBuffer, BackendError> {
    let info = vk::CommandBufferAllocateInfo::default()
        .command_pool(gpu.pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: the pool belongs to this device.
    let commands =
        unsafe { gpu.device.allocate_command_buffers(&info) }.map_err(|e| vk_error(e, doing))?;
    Ok(commands[0])
}

/// A primary command buffer and a fence, freed on drop unless a wait timed
/// out (then the device may still use them, and they are left to the
/// device's destruction).
pub(crate) struct Submission<'a> {
    gpu: &'a Gpu,
    pub command: vk::CommandBuffer,
    fence: vk::Fence,
    in_flight: bool,
}

impl<'a> Submission<'a> {
    /// A command buffer in the recording state.
    pub(crate) fn begin(gpu: &'a Gpu, doing: &str) -> Result<Self, BackendError> {
        let device = &gpu.device;
        let command = allocate_command(gpu, doing)?;
        // SAFETY: a plain create on the live device.
        let fence = match unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) } {
            Ok(fence) => fence,
            Err(e) => {
                // SAFETY: the command buffer was never submitted.
                unsafe { device.free_command_buffers(gpu.pool, &[command]) };
                return Err(vk_error(e, doing));
            }
        };
        let submission = Self {
            gpu,
            command,
            fence,
            in_flight: false,
        };
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a freshly allocated command buffer.
        unsafe { device.begin_command_buffer(command, &begin) }.map_err(|e| vk_error(e, doing))?;
        Ok(submission)
    }

    /// End recording, submit, and wait at most `limit`.
    pub(crate) fn finish_within(
        mut self,
        limit: Duration,
        doing: &str,
    ) -> Result<(), BackendError> {
        let device = &self.gpu.device;
        // SAFETY: the command buffer is in the recording state.
        unsafe { device.end_command_buffer(self.command) }.map_err(|e| vk_error(e, doing))?;
        let commands = [self.command];
        let submit = vk::SubmitInfo::default().command_buffers(&commands);
        // SAFETY: the queue and fence belong to this device; the command
        // buffer is executable and stays alive until the fence signals.
        unsafe { device.queue_submit(self.gpu.queue, &[submit], self.fence) }
            .map_err(|e| vk_error(e, doing))?;
        self.in_flight = true;
        wait_fence(device, self.fence, limit, doing)?;
        self.in_flight = false;
        Ok(())
    }

    /// End recording, submit, and wait at most [`DEVICE_WAIT_LIMIT`].
    pub(crate) fn finish(self, doing: &str) -> Result<(), BackendError> {
        self.finish_within(DEVICE_WAIT_LIMIT, doing)
    }
}

impl Drop for Submission<'_> {
    fn drop(&mut self) {
        if self.in_flight {
            return;
        }
        // SAFETY: not submitted, or its fence signalled: nothing uses them.
        unsafe {
            self.gpu.device.destroy_fence(self.fence, None);
            self.gpu
                .device
                .free_command_buffers(self.gpu.pool, &[self.command]);
        }
    }
}
