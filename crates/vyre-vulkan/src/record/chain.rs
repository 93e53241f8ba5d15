//! Recording a chain of levels into one reusable command buffer, and
//! submitting it again.

use std::time::Duration;

use ash::vk;
use vyre_driver::backend::BackendError;

use super::timestamps::Timestamps;
use crate::barrier::{Access, COMPUTE, barrier};
use crate::error::vk_error;
use crate::gpu::Gpu;
use crate::submit::{allocate_command, wait_fence};

/// Where a dispatch's workgroup counts come from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Grid {
    /// Counts fixed when recording (the engine's first-level grid).
    Fixed([u32; 3]),
    /// Three `u32` counts the device wrote at `offset` of `buffer` (later
    /// levels, sized on the device by the engine's rule).
    Indirect { buffer: vk::Buffer, offset: u64 },
}

/// One dispatch.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Step {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
    /// Set 0, or null for a kernel without bindings.
    pub set: vk::DescriptorSet,
    pub grid: Grid,
}

/// A recorded command buffer, freed on drop.
pub(crate) struct Recorded {
    device: ash::Device,
    pool: vk::CommandPool,
    pub command: vk::CommandBuffer,
    /// Levels recorded (and timed, when timestamps were given).
    pub levels: u32,
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // SAFETY: every submission of it was waited for before the cache
        // let it go.
        unsafe { self.device.free_command_buffers(self.pool, &[self.command]) };
    }
}

/// What the next dispatch may read: storage written before, and indirect
/// arguments written before.
const NEXT_DISPATCH: [Access; 2] = [COMPUTE, crate::barrier::INDIRECT];

/// Record `levels` (each a list of dispatches) with a barrier after every
/// dispatch, a timestamp before the first level and after each one when
/// `timestamps` is given, and `prologue`/`epilogue` commands around them
/// (resets, copies).
pub(crate) fn record_chain(
    gpu: &Gpu,
    levels: &[Vec<Step>],
    timestamps: Option<&Timestamps>,
    prologue: impl FnOnce(vk::CommandBuffer),
    epilogue: impl FnOnce(vk::CommandBuffer),
) -> Result<Recorded, BackendError> {
    let device = &gpu.device;
    let doing = "recording a chain of levels";
    if let Some(t) = timestamps
        && levels.len() > t.levels() as usize
    {
        return Err(BackendError::new(format!(
            "a chain of {} levels cannot be timed by a pool for {}. Fix: size the timestamp pool for the longest chain (DeviceLayout::max_levels_per_command).",
            levels.len(),
            t.levels()
        )));
    }
    let command = allocate_command(gpu, doing)?;
    let recorded = Recorded {
        device: device.clone(),
        pool: gpu.pool,
        command,
        levels: u32::try_from(levels.len()).unwrap_or(u32::MAX),
    };
    // SAFETY: a fresh command buffer; every handle recorded below belongs
    // to this device and outlives the recording (the cache drops
    // recordings before the buffers, sets and pipelines they name).
    unsafe {
        device
            .begin_command_buffer(command, &vk::CommandBufferBeginInfo::default())
            .map_err(|e| vk_error(e, doing))?;
        prologue(command);
        if let Some(t) = timestamps {
            device.cmd_reset_query_pool(command, t.pool, 0, t.levels() + 1);
            device.cmd_write_timestamp(command, vk::PipelineStageFlags::BOTTOM_OF_PIPE, t.pool, 0);
        }
        for (level, steps) in (1u32..).zip(levels) {
            for step in steps {
                device.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, step.pipeline);
                if step.set != vk::DescriptorSet::null() {
                    device.cmd_bind_descriptor_sets(
                        command,
                        vk::PipelineBindPoint::COMPUTE,
                        step.layout,
                        0,
                        &[step.set],
                        &[],
                    );
                }
                match step.grid {
                    Grid::Fixed([x, y, z]) => device.cmd_dispatch(command, x, y, z),
                    Grid::Indirect { buffer, offset } => {
                        device.cmd_dispatch_indirect(command, buffer, offset);
                    }
                }
                barrier(device, command, COMPUTE, &NEXT_DISPATCH);
            }
            if let Some(t) = timestamps {
                device.cmd_write_timestamp(
                    command,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    t.pool,
                    level,
                );
            }
        }
        epilogue(command);
        device
            .end_command_buffer(command)
            .map_err(|e| vk_error(e, doing))?;
    }
    Ok(recorded)
}

/// Submit a recorded chain and wait for it at most `limit`.
pub(crate) fn submit(gpu: &Gpu, recorded: &Recorded, limit: Duration) -> Result<(), BackendError> {
    let device = &gpu.device;
    let doing = "running a recorded chain";
    // SAFETY: a plain create on the live device.
    let fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(|e| vk_error(e, doing))?;
    let commands = [recorded.command];
    let info = vk::SubmitInfo::default().command_buffers(&commands);
    // SAFETY: the command buffer is executable and not in flight (every
    // submission is waited for before the next).
    let submitted =
        unsafe { device.queue_submit(gpu.queue, &[info], fence) }.map_err(|e| vk_error(e, doing));
    let waited = submitted.and_then(|()| wait_fence(device, fence, limit, doing));
    if waited.is_ok() {
        // SAFETY: the fence signalled; nothing waits on it.
        unsafe { device.destroy_fence(fence, None) };
    }
    waited
}

#[cfg(test)]
mod tests {
    use ash::vk;
    use vyre_driver::backend::DEVICE_WAIT_LIMIT;

    use super::*;
    use crate::barrier::{HOST_READ, INDIRECT, TRANSFER, TRANSFER_WRITE};
    use crate::kernels::{Descriptors, PROBE, Pipeline};
    use crate::record::CommandCache;
    use crate::test_device::open;

    /// Two levels of the probe kernel, the first sized on the device (its
    /// arguments filled by the prologue), the second fixed: recorded once,
    /// submitted twice, each time counting 3 arrivals, and timed per level.
    #[test]
    fn a_recorded_chain_with_indirect_dispatch_runs_again_and_is_timed() {
        let Some(backend) = open("a_recorded_chain_with_indirect_dispatch_runs_again_and_is_timed")
        else {
            return;
        };
        let gpu = &backend.gpu;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let state = gpu
            .memory
            .buffer("probe state", 64, storage, false)
            .unwrap();
        let args = gpu
            .memory
            .buffer(
                "arguments",
                16,
                storage | vk::BufferUsageFlags::INDIRECT_BUFFER,
                false,
            )
            .unwrap();
        let readback = gpu
            .memory
            .buffer("readback", 16, vk::BufferUsageFlags::TRANSFER_DST, true)
            .unwrap();
        let pipeline = Pipeline::new(&gpu.device, PROBE).unwrap();
        let descriptors = Descriptors::new(&gpu.device, 1, 1).unwrap();
        let set = descriptors
            .set(pipeline.set_layout, &[state.buffer])
            .unwrap();
        let step = |grid| Step {
            pipeline: pipeline.pipeline,
            layout: pipeline.layout,
            set,
            grid,
        };
        let levels = vec![
            vec![step(Grid::Indirect {
                buffer: args.buffer,
                offset: 0,
            })],
            vec![step(Grid::Fixed([1, 1, 1]))],
        ];
        let timestamps = gpu
            .facts
            .timestamp_period_ns
            .map(|period| Timestamps::new(&gpu.device, 4, period).unwrap());
        let device = &gpu.device;
        let mut cache = CommandCache::new(2);
        let mut records = 0;
        for _ in 0..2 {
            let recorded = cache
                .get_or_record(&"probe chain", |_| {
                    records += 1;
                    record_chain(
                        gpu,
                        &levels,
                        timestamps.as_ref(),
                        // SAFETY: live buffers with TRANSFER_DST usage.
                        |command| unsafe {
                            device.cmd_fill_buffer(command, state.buffer, 0, vk::WHOLE_SIZE, 0);
                            device.cmd_fill_buffer(command, state.buffer, 8, 4, u32::MAX);
                            device.cmd_fill_buffer(command, args.buffer, 0, 4, 2);
                            device.cmd_fill_buffer(command, args.buffer, 4, 8, 1);
                            barrier(device, command, TRANSFER_WRITE, &[COMPUTE, INDIRECT]);
                        },
                        // SAFETY: live buffers with TRANSFER usage.
                        |command| unsafe {
                            let region = vk::BufferCopy::default().size(16);
                            device.cmd_copy_buffer(
                                command,
                                state.buffer,
                                readback.buffer,
                                &[region],
                            );
                            barrier(device, command, TRANSFER, &[HOST_READ]);
                        },
                    )
                })
                .unwrap();
            submit(gpu, recorded, DEVICE_WAIT_LIMIT).unwrap();
            let bytes = readback.mapped().unwrap();
            let arrived = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            assert_eq!(arrived, 3, "2 workgroups from the indirect level, 1 fixed");
            if let Some(t) = &timestamps {
                let ns = t.level_ns(recorded.levels).unwrap();
                assert_eq!(ns.len(), 2);
                assert!(ns[0] > 0, "{ns:?}");
            }
        }
        assert_eq!(records, 1, "recorded once, submitted twice");
        drop(cache);
        backend.assert_valid();
    }
}
