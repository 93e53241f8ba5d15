//! Submitting recorded work and waiting for it, never longer than
//! `DEVICE_WAIT_LIMIT` (a command: the limit the backend was opened with).

use std::time::{Duration, Instant};

use ash::vk;
use vyre_driver::backend::{BackendError, DEVICE_WAIT_LIMIT, poll_until};

use crate::error::vk_error;
use crate::gpu::Gpu;

/// How a bounded wait ended.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Waited {
    /// The fence signalled.
    Done,
    /// The limit passed first.
    TimedOut,
}

/// Wait for `fence` at most `limit`, polling its status (the driver's
/// blocking wait wakes the host late; see `vyre_driver::backend::poll_until`).
pub(crate) fn wait_for(
    device: &ash::Device,
    fence: vk::Fence,
    limit: Duration,
    doing: &str,
) -> Result<Waited, BackendError> {
    let until = Instant::now() + limit;
    // SAFETY: the fence belongs to this device; a status query only reads it.
    let signalled = poll_until(until, || unsafe { device.get_fence_status(fence) })
        .map_err(|e| vk_error(e, doing))?;
    Ok(if signalled {
        Waited::Done
    } else {
        Waited::TimedOut
    })
}

/// The error of a wait given up on: the device is poisoned (it may still
/// run the work), so the backend must be reopened.
pub(crate) fn gave_up(gpu: &Gpu, doing: &str, limit: Duration) -> BackendError {
    gpu.poison();
    BackendError::device(format!(
        "the device did not finish {doing} within {} ms. Fix: the device hung or is overloaded; open the backend again (this one refuses further work and leaks its device memory rather than free memory in use), and report the graph and topology if it repeats.",
        limit.as_millis()
    ))
}

/// Wait for `fence` at most `limit`; past it the device is poisoned.
pub(crate) fn wait_fence(
    gpu: &Gpu,
    fence: vk::Fence,
    limit: Duration,
    doing: &str,
) -> Result<(), BackendError> {
    match wait_for(&gpu.device, fence, limit, doing)? {
        Waited::Done => Ok(()),
        Waited::TimedOut => Err(gave_up(gpu, doing, limit)),
    }
}

/// Submit `command` (executable, not in flight) with the device's fence,
/// which the caller then waits for.
pub(crate) fn submit_with_fence(
    gpu: &Gpu,
    command: vk::CommandBuffer,
    doing: &str,
) -> Result<(), BackendError> {
    let device = &gpu.device;
    let commands = [command];
    let info = vk::SubmitInfo::default().command_buffers(&commands);
    // SAFETY: the fence is not in use (every submission with it was waited
    // for); the command buffer is executable and not in flight.
    unsafe {
        device
            .reset_fences(&[gpu.fence])
            .map_err(|e| vk_error(e, doing))?;
        device
            .queue_submit(gpu.queue, &[info], gpu.fence)
            .map_err(|e| vk_error(e, doing))
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
    /// A command buffer in the recording state, submitted once by
    /// [`Submission::finish`].
    pub(crate) fn begin(gpu: &'a Gpu, doing: &str) -> Result<Self, BackendError> {
        Self::begin_with(gpu, vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT, doing)
    }

    /// A command buffer in the recording state that [`Submission::run`] may
    /// submit again and again after [`Submission::end`].
    pub(crate) fn begin_reusable(gpu: &'a Gpu, doing: &str) -> Result<Self, BackendError> {
        Self::begin_with(gpu, vk::CommandBufferUsageFlags::empty(), doing)
    }

    fn begin_with(
        gpu: &'a Gpu,
        flags: vk::CommandBufferUsageFlags,
        doing: &str,
    ) -> Result<Self, BackendError> {
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
        let begin = vk::CommandBufferBeginInfo::default().flags(flags);
        // SAFETY: a freshly allocated command buffer.
        unsafe { device.begin_command_buffer(command, &begin) }.map_err(|e| vk_error(e, doing))?;
        Ok(submission)
    }

    /// End recording.
    pub(crate) fn end(&self, doing: &str) -> Result<(), BackendError> {
        // SAFETY: the command buffer is in the recording state.
        unsafe { self.gpu.device.end_command_buffer(self.command) }.map_err(|e| vk_error(e, doing))
    }

    /// Submit the recorded commands and wait at most `DEVICE_WAIT_LIMIT`.
    pub(crate) fn run(&mut self, doing: &str) -> Result<(), BackendError> {
        let device = &self.gpu.device;
        let commands = [self.command];
        let submit = vk::SubmitInfo::default().command_buffers(&commands);
        // SAFETY: the queue and fence belong to this device; the fence is
        // not in use (every submission with it was waited for); the command
        // buffer is executable, not in flight, and stays alive until the
        // fence signals.
        unsafe {
            device
                .reset_fences(&[self.fence])
                .map_err(|e| vk_error(e, doing))?;
            device
                .queue_submit(self.gpu.queue, &[submit], self.fence)
                .map_err(|e| vk_error(e, doing))?;
        }
        self.in_flight = true;
        wait_fence(self.gpu, self.fence, DEVICE_WAIT_LIMIT, doing)?;
        self.in_flight = false;
        Ok(())
    }

    /// End recording, submit, and wait at most `DEVICE_WAIT_LIMIT`.
    pub(crate) fn finish(mut self, doing: &str) -> Result<(), BackendError> {
        self.end(doing)?;
        self.run(doing)
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
