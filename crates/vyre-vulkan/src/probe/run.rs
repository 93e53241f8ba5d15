//! Running the probe kernel on the device.

use ash::vk;
use vyre_driver::backend::BackendError;

use super::verdict::{BarrierVerdict, PROBE_MAX_WORKGROUPS, Trial, search};
use crate::barrier::{COMPUTE, HOST_READ, TRANSFER, TRANSFER_WRITE, barrier};
use crate::gpu::Gpu;
use crate::kernels::{Descriptors, PROBE, Pipeline};
use crate::memory::DeviceBuffer;
use crate::submit::Submission;

/// Words before the per-workgroup markers (`probe.wgsl`).
const HEADER_WORDS: u64 = 4;
/// Word the host sets to `u32::MAX` before each trial.
const FEWEST_SEEN: u64 = 2;

/// Probe the device: the largest verified co-resident workgroup count of
/// the probe's width, or why there is none.
pub(crate) fn probe_device(gpu: &Gpu) -> Result<BarrierVerdict, BackendError> {
    let facts = &gpu.facts;
    if facts
        .max_workgroup_size_x
        .min(facts.max_workgroup_invocations)
        < PROBE.width
    {
        return Ok(BarrierVerdict::not_run(&format!(
            "the device runs workgroups of at most {} invocations, the probe needs {}",
            facts
                .max_workgroup_size_x
                .min(facts.max_workgroup_invocations),
            PROBE.width
        )));
    }
    let max = PROBE_MAX_WORKGROUPS.min(facts.max_workgroup_count_x);
    let probe = Probe::new(gpu, max)?;
    search(PROBE.width, max, |n| probe.trial(n))
}

/// The probe's buffers and pipeline, ready for trials of up to `max`
/// workgroups.
pub(crate) struct Probe<'a> {
    gpu: &'a Gpu,
    // Holds the set; declared before the buffers it names, so freed first.
    _descriptors: Descriptors,
    set: vk::DescriptorSet,
    pipeline: Pipeline,
    state: DeviceBuffer,
    readback: DeviceBuffer,
}

impl<'a> Probe<'a> {
    pub(crate) fn new(gpu: &'a Gpu, max: u32) -> Result<Self, BackendError> {
        let words = HEADER_WORDS + u64::from(max);
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let state = gpu
            .memory
            .buffer("barrier probe", words * 4, usage, false)?;
        let readback = gpu.memory.buffer(
            "barrier probe readback",
            HEADER_WORDS * 4,
            vk::BufferUsageFlags::TRANSFER_DST,
            true,
        )?;
        let pipeline = Pipeline::new(&gpu.device, PROBE)?;
        let descriptors = Descriptors::new(&gpu.device, 1, 1)?;
        let set = descriptors.set(pipeline.set_layout, &[state.buffer])?;
        Ok(Self {
            gpu,
            _descriptors: descriptors,
            set,
            pipeline,
            state,
            readback,
        })
    }

    /// One launch of `n` workgroups (at most the `max` it was made for).
    pub(crate) fn trial(&self, n: u32) -> Result<Trial, BackendError> {
        let gpu = self.gpu;
        let submission = Submission::begin(gpu, "probing co-resident workgroups")?;
        let command = submission.command;
        let device = &gpu.device;
        let (state, readback) = (self.state.buffer, self.readback.buffer);
        // SAFETY: the command buffer is recording; every buffer, the set
        // and the pipeline live until the submission is waited for.
        unsafe {
            device.cmd_fill_buffer(command, state, 0, vk::WHOLE_SIZE, 0);
            device.cmd_fill_buffer(command, state, FEWEST_SEEN * 4, 4, u32::MAX);
            barrier(device, command, TRANSFER_WRITE, &[COMPUTE]);
            device.cmd_bind_pipeline(
                command,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline.pipeline,
            );
            device.cmd_bind_descriptor_sets(
                command,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline.layout,
                0,
                &[self.set],
                &[],
            );
            device.cmd_dispatch(command, n, 1, 1);
            barrier(device, command, COMPUTE, &[TRANSFER]);
            let region = vk::BufferCopy::default().size(HEADER_WORDS * 4);
            device.cmd_copy_buffer(command, state, readback, &[region]);
            barrier(device, command, TRANSFER_WRITE, &[HOST_READ]);
        }
        submission.finish("probing co-resident workgroups")?;
        let bytes = self.readback.mapped().ok_or_else(|| {
            BackendError::device(
                "the probe's readback buffer is not mapped. Fix: this is a bug in vyre-vulkan; report it."
                    .to_string(),
            )
        })?;
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ])
        };
        Ok(Trial {
            launched: n,
            arrived: word(0),
            complete: word(1),
            fewest_seen: word(2),
            saw_write: word(3),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Probe;
    use crate::test_device::{open, visible};

    /// lavapipe runs at most one workgroup per worker thread at a time (and
    /// has at most 32 of them), so 64 workgroups never all arrive there.
    #[test]
    fn on_lavapipe_64_workgroups_are_never_co_resident() {
        let Some(backend) = open("on_lavapipe_64_workgroups_are_never_co_resident") else {
            return;
        };
        if !backend.gpu.facts.name.contains("llvmpipe") {
            visible(
                "on_lavapipe_64_workgroups_are_never_co_resident: skipped: the device is not lavapipe",
            );
            return;
        }
        let probe = Probe::new(&backend.gpu, 64).unwrap();
        for _ in 0..3 {
            let trial = probe.trial(64).unwrap();
            assert_eq!(trial.arrived, 64, "{trial:?}");
            assert!(!trial.all_arrived() && trial.fewest_seen < 64, "{trial:?}");
        }
    }
}
