//! Running the probe on the device: the fused kernel itself in its probe
//! mode, so that what is measured is the co-residency of the kernel a fused
//! launch runs (its width, workgroup memory and registers).

use ash::vk;
use vyre_driver::backend::BackendError;
use vyre_wgsl_abi::bindings::{Buffer, FUSED_STORAGE_BINDINGS, state_binding};
use vyre_wgsl_abi::control::HOST_WORDS;
use vyre_wgsl_abi::probe::{BarrierVerdict, PROBE_WORDS, ProbeLimits, Trial, search};
use vyre_wgsl_abi::{FUSED_WIDTH, Kernel};

use crate::barrier::{COMPUTE, HOST_READ, TRANSFER, TRANSFER_WRITE, barrier};
use crate::gpu::Gpu;
use crate::kernels::{Bound, Descriptors, Kernels, Range};
use crate::memory::DeviceBuffer;
use crate::submit::Submission;

/// Probe the device: the largest verified co-resident workgroup count of
/// the fused kernel, or why there is none.
pub(crate) fn probe_device(
    gpu: &Gpu,
    kernels: &mut Kernels,
) -> Result<BarrierVerdict, BackendError> {
    let facts = &gpu.facts;
    let limits = ProbeLimits {
        width_limit: facts
            .max_workgroup_size_x
            .min(facts.max_workgroup_invocations),
        max_workgroups: facts.max_workgroup_count_x,
        storage_buffers: facts.storage_buffers_per_stage,
    };
    let max = match limits.largest_trial() {
        Ok(max) => max,
        Err(not_run) => return Ok(not_run),
    };
    let probe = Probe::new(gpu, kernels, max)?;
    search(FUSED_WIDTH, max, |n| probe.trial(n))
}

/// Word of the control block, in bytes.
fn at(word: usize) -> u64 {
    4 * word as u64
}

/// The probe's buffers, set and pipeline, ready for trials of up to `max`
/// workgroups.
pub(crate) struct Probe<'a> {
    gpu: &'a Gpu,
    // Holds the set; declared before the buffers it names, so freed first.
    _descriptors: Descriptors,
    set: vk::DescriptorSet,
    fused: Bound,
    control: DeviceBuffer,
    markers: DeviceBuffer,
    _host: DeviceBuffer,
    _unused: DeviceBuffer,
    readback: DeviceBuffer,
}

impl<'a> Probe<'a> {
    pub(crate) fn new(gpu: &'a Gpu, kernels: &mut Kernels, max: u32) -> Result<Self, BackendError> {
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let control = gpu.memory.buffer(
            "probe control block",
            vyre_driver::backend::CONTROL_BYTES,
            storage,
            false,
        )?;
        let markers = gpu
            .memory
            .buffer("probe markers", 4 * u64::from(max), storage, false)?;
        // The abort word (the last of the host words) stays 0: a trial's
        // waits are bounded by PROBE_SPIN_LIMIT alone.
        let mut host = gpu.memory.buffer("probe host words", 16, storage, true)?;
        if let Some(bytes) = host.mapped_mut() {
            bytes.fill(0);
        }
        let unused = gpu
            .memory
            .buffer("probe unused binding", 16, storage, false)?;
        let readback = gpu.memory.buffer(
            "probe readback",
            at(HOST_WORDS),
            vk::BufferUsageFlags::TRANSFER_DST,
            true,
        )?;
        let fused = kernels.pipeline(Kernel::Fused, FUSED_WIDTH)?;
        let descriptors = Descriptors::new(&gpu.device, 1)?;
        let ranges: Vec<Range> = (0..FUSED_STORAGE_BINDINGS)
            .map(|binding| {
                Range::whole(match state_binding(binding, 0) {
                    Buffer::Control => control.buffer,
                    Buffer::Work => markers.buffer,
                    Buffer::HostWords => host.buffer,
                    _ => unused.buffer,
                })
            })
            .collect();
        let set = descriptors.set(kernels.set_layout(), &ranges)?;
        Ok(Self {
            gpu,
            _descriptors: descriptors,
            set,
            fused,
            control,
            markers,
            _host: host,
            _unused: unused,
            readback,
        })
    }

    /// One launch of `n` workgroups (at most the `max` it was made for).
    pub(crate) fn trial(&self, n: u32) -> Result<Trial, BackendError> {
        let gpu = self.gpu;
        let submission = Submission::begin(gpu, "probing co-resident workgroups")?;
        let command = submission.command;
        let device = &gpu.device;
        let control = self.control.buffer;
        // SAFETY: the command buffer is recording; every buffer, the set
        // and the pipeline live until the submission is waited for.
        unsafe {
            device.cmd_fill_buffer(command, control, 0, vk::WHOLE_SIZE, 0);
            for (word, value) in PROBE_WORDS {
                device.cmd_fill_buffer(command, control, at(word), 4, value);
            }
            device.cmd_fill_buffer(command, self.markers.buffer, 0, vk::WHOLE_SIZE, 0);
            barrier(device, command, TRANSFER_WRITE, &[COMPUTE]);
            device.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, self.fused.pipeline);
            device.cmd_bind_descriptor_sets(
                command,
                vk::PipelineBindPoint::COMPUTE,
                self.fused.layout,
                0,
                &[self.set],
                &[],
            );
            device.cmd_dispatch(command, n, 1, 1);
            barrier(device, command, COMPUTE, &[TRANSFER]);
            let region = vk::BufferCopy::default().size(at(HOST_WORDS));
            device.cmd_copy_buffer(command, control, self.readback.buffer, &[region]);
            barrier(device, command, TRANSFER_WRITE, &[HOST_READ]);
        }
        submission.finish("probing co-resident workgroups")?;
        let bytes = self.readback.mapped().ok_or_else(|| {
            BackendError::device(
                "the probe's readback buffer is not mapped. Fix: this is a bug in vyre-vulkan; report it."
                    .to_string(),
            )
        })?;
        let mut words = [0u32; HOST_WORDS];
        for (word, le) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([le[0], le[1], le[2], le[3]]);
        }
        Ok(Trial::read(n, &words))
    }
}

#[cfg(test)]
mod tests {
    use super::Probe;
    use crate::testing::{open, visible};

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
        let mut kernels = crate::kernels::Kernels::new(&backend.gpu.device).unwrap();
        let probe = Probe::new(&backend.gpu, &mut kernels, 64).unwrap();
        for _ in 0..3 {
            let trial = probe.trial(64).unwrap();
            assert_eq!(trial.arrived, 64, "{trial:?}");
            assert!(!trial.all_arrived() && trial.fewest_seen < 64, "{trial:?}");
        }
    }
}
