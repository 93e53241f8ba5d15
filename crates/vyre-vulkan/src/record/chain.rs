//! Recording a chain of levels into one reusable command buffer. Every
//! dispatch reads its workgroup counts from where the host wrote them
//! before the submission (indirect dispatch): the first level's launch
//! grid, every later level's grid and a frontier conversion's, so a
//! recording serves every command of its shape. No dispatch writes another's
//! arguments, so the barrier between two dispatches orders compute work
//! alone (one that also waited for indirect arguments would cost about as
//! much as the dispatch on NVIDIA's driver).

use ash::vk;
use vyre_driver::backend::BackendError;

use super::timestamps::{QUERIES, Timestamps};
use crate::barrier::{Access, COMPUTE, barrier};
use crate::error::vk_error;
use crate::gpu::Gpu;
use crate::kernels::Bound;
use crate::submit::allocate_command;

/// One dispatch.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Step {
    pub pipeline: Bound,
    /// Set 0.
    pub set: vk::DescriptorSet,
    /// The buffer and byte offset of its three workgroup counts.
    pub args: (vk::Buffer, u64),
}

/// A recorded command buffer, freed on drop.
pub(crate) struct Recorded {
    device: ash::Device,
    pool: vk::CommandPool,
    pub command: vk::CommandBuffer,
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // SAFETY: every submission of it was waited for before the cache
        // let it go.
        unsafe { self.device.free_command_buffers(self.pool, &[self.command]) };
    }
}

/// What the next dispatch may read: storage written before.
const NEXT_DISPATCH: [Access; 1] = [COMPUTE];

/// Record `levels` (each a list of dispatches) with a barrier after every
/// dispatch, a timestamp before the first level and one after the last when
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
    let command = allocate_command(gpu, doing)?;
    let recorded = Recorded {
        device: device.clone(),
        pool: gpu.pool,
        command,
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
            device.cmd_reset_query_pool(command, t.pool, 0, QUERIES);
            device.cmd_write_timestamp(command, vk::PipelineStageFlags::BOTTOM_OF_PIPE, t.pool, 0);
        }
        for steps in levels {
            for step in steps {
                device.cmd_bind_pipeline(
                    command,
                    vk::PipelineBindPoint::COMPUTE,
                    step.pipeline.pipeline,
                );
                device.cmd_bind_descriptor_sets(
                    command,
                    vk::PipelineBindPoint::COMPUTE,
                    step.pipeline.layout,
                    0,
                    &[step.set],
                    &[],
                );
                device.cmd_dispatch_indirect(command, step.args.0, step.args.1);
                barrier(device, command, COMPUTE, &NEXT_DISPATCH);
            }
        }
        if let Some(t) = timestamps {
            device.cmd_write_timestamp(command, vk::PipelineStageFlags::BOTTOM_OF_PIPE, t.pool, 1);
        }
        epilogue(command);
        device
            .end_command_buffer(command)
            .map_err(|e| vk_error(e, doing))?;
    }
    Ok(recorded)
}
