//! Starting a search: every vertex unreached, then the sources at depth 0
//! in queue 0 (the position `SearchPosition::start` describes).

use ash::vk;
use vyre_driver::backend::{BackendError, SearchSources};
use vyre_wgsl_abi::Kernel;
use vyre_wgsl_abi::START_WIDTH;
use vyre_wgsl_abi::control::{C_CUR_COUNT, COMMAND_WORDS};
use vyre_wgsl_abi::overrides::start_groups;

use crate::barrier::{COMPUTE, EARLIER_WRITES, TRANSFER, TRANSFER_WRITE, barrier};
use crate::gpu::Gpu;
use crate::kernels::Kernels;
use crate::resident::Resident;
use crate::submit::Submission;

/// Reset depths and parents and seed `sources`, in one submission.
pub(crate) fn begin(
    gpu: &Gpu,
    kernels: &mut Kernels,
    resident: &mut Resident,
    sources: &SearchSources,
) -> Result<(), BackendError> {
    let doing = "starting a search";
    let ids = sources.ids();
    let bytes = 4 * ids.len() as u64;
    // Sources are vertices: they fit staging, which holds a vertex array.
    let mapped = resident.staging.mapped_mut().ok_or_else(|| {
        BackendError::device(
            "the staging buffer is not host-visible. Fix: use another device or backend."
                .to_string(),
        )
    })?;
    for (slot, id) in mapped.chunks_exact_mut(4).zip(ids) {
        slot.copy_from_slice(&id.to_le_bytes());
    }
    let mut words = [0u32; COMMAND_WORDS];
    words[C_CUR_COUNT] = sources.len();
    let words: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let reset = kernels.pipeline(Kernel::ResetState, START_WIDTH)?;
    let seed = kernels.pipeline(Kernel::SeedSources, START_WIDTH)?;
    let limit = gpu.facts.max_workgroup_count_x;
    let n = resident.layout.vertex_count;
    let submission = Submission::begin(gpu, doing)?;
    let command = submission.command;
    let device = &gpu.device;
    // SAFETY: the command buffer is recording; the buffers, set and
    // pipelines live until the submission is waited for; the copy and the
    // update lie within their buffers.
    unsafe {
        barrier(device, command, EARLIER_WRITES, &[TRANSFER, COMPUTE]);
        let region = [vk::BufferCopy::default().size(bytes)];
        device.cmd_copy_buffer(
            command,
            resident.staging.buffer,
            resident.queues[0].buffer,
            &region,
        );
        device.cmd_update_buffer(command, resident.control.buffer, 0, &words);
        barrier(device, command, TRANSFER_WRITE, &[COMPUTE]);
        for (pipeline, items) in [(reset, n), (seed, sources.len())] {
            device.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, pipeline.pipeline);
            device.cmd_bind_descriptor_sets(
                command,
                vk::PipelineBindPoint::COMPUTE,
                pipeline.layout,
                0,
                &[resident.sets[0]],
                &[],
            );
            device.cmd_dispatch(command, start_groups(items, limit), 1, 1);
            barrier(device, command, COMPUTE, &[COMPUTE]);
        }
    }
    submission.finish(doing)
}
