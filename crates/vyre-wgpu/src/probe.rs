//! Running the device-wide barrier probe (vyre-wgsl-abi's `probe`) through
//! wgpu: the fused kernel itself in its probe mode, so that what is
//! measured is the co-residency of the kernel a fused launch runs. Every
//! trial's waits are bounded by the kernel's own spin limit, so a device
//! whose workgroups run one at a time (lavapipe) ends each trial with a
//! failed count, never a hang.

use vyre_driver::backend::{BackendError, CONTROL_BYTES};
use vyre_wgsl_abi::bindings::{
    Buffer, FUSED_STORAGE_BINDINGS, HOST_WORDS_BYTES, read_only, state_binding,
};
use vyre_wgsl_abi::control::HOST_WORDS;
use vyre_wgsl_abi::probe::{BarrierVerdict, ProbeLimits, Trial, probe_control, search};
use vyre_wgsl_abi::{FUSED_WIDTH, Kernel};

use crate::device_graph::bind_group;
use crate::errors::ErrorSink;
use crate::kernels::Kernels;
use crate::readback::{read_staging, words_of};

/// What the probe runs on.
pub(crate) struct ProbeRequest<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub errors: &'a ErrorSink,
    pub limits: ProbeLimits,
}

/// What `limits` (a device's) allow the probe.
pub(crate) fn probe_limits(limits: &wgpu::Limits) -> ProbeLimits {
    ProbeLimits {
        width_limit: limits
            .max_compute_workgroup_size_x
            .min(limits.max_compute_invocations_per_workgroup),
        max_workgroups: limits.max_compute_workgroups_per_dimension,
        storage_buffers: limits.max_storage_buffers_per_shader_stage,
    }
}

/// Probe the device: the largest verified co-resident workgroup count of
/// the fused kernel, or why there is none.
pub(crate) fn probe_device(
    request: &ProbeRequest<'_>,
    kernels: &mut Kernels,
) -> Result<BarrierVerdict, BackendError> {
    let max = match request.limits.largest_trial() {
        Ok(max) => max,
        Err(not_run) => return Ok(not_run),
    };
    let device = request.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let pipeline = kernels.pipeline(device, Kernel::Fused, FUSED_WIDTH);
    if let Some(error) = pollster::block_on(scope.pop()) {
        return Ok(BarrierVerdict::not_run(&format!(
            "the fused kernel does not build on this adapter: {error}"
        )));
    }
    let probe = Probe::new(request, kernels, pipeline, max);
    let verdict = search(FUSED_WIDTH, max, |n| probe.trial(n))?;
    request.errors.check("probing co-resident workgroups")?;
    Ok(verdict)
}

/// The probe's buffers, group and pipeline, ready for trials of up to
/// `max` workgroups.
struct Probe<'a> {
    request: &'a ProbeRequest<'a>,
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    control: wgpu::Buffer,
    markers: wgpu::Buffer,
    readback: wgpu::Buffer,
}

impl<'a> Probe<'a> {
    fn new(
        request: &'a ProbeRequest<'a>,
        kernels: &mut Kernels,
        pipeline: wgpu::ComputePipeline,
        max: u32,
    ) -> Self {
        use wgpu::BufferUsages as U;
        let device = request.device;
        let buffer = |label: &str, size: u64, usage: U| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let storage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
        let control = buffer("vyre probe control", CONTROL_BYTES, storage);
        let markers = buffer("vyre probe markers", 4 * u64::from(max), storage);
        // The abort word stays 0 (wgpu buffers start zeroed): a trial's
        // waits are bounded by the kernel's spin limit alone.
        let host = buffer("vyre probe host words", HOST_WORDS_BYTES, U::STORAGE);
        // wgpu refuses one buffer bound both read-only and read-write.
        let unused_read = buffer("vyre probe unused", 16, U::STORAGE);
        let unused_written = buffer("vyre probe unused", 16, U::STORAGE);
        let layout = kernels.wide_layout(device);
        let group = bind_group(
            device,
            layout,
            FUSED_STORAGE_BINDINGS,
            |binding| match state_binding(binding, 0) {
                Buffer::Control => control.as_entire_binding(),
                Buffer::Work => markers.as_entire_binding(),
                Buffer::HostWords => host.as_entire_binding(),
                _ if read_only(binding) => unused_read.as_entire_binding(),
                _ => unused_written.as_entire_binding(),
            },
        );
        let readback = buffer(
            "vyre probe readback",
            4 * HOST_WORDS as u64,
            U::MAP_READ | U::COPY_DST,
        );
        Self {
            request,
            pipeline,
            group,
            control,
            markers,
            readback,
        }
    }

    /// One launch of `n` workgroups (at most the `max` it was made for).
    fn trial(&self, n: u32) -> Result<Trial, BackendError> {
        let ProbeRequest { device, queue, .. } = *self.request;
        queue.write_buffer(&self.control, 0, bytemuck::cast_slice(&probe_control()));
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre probe"),
        });
        encoder.clear_buffer(&self.markers, 0, None);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vyre probe"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.group, &[]);
            pass.dispatch_workgroups(n, 1, 1);
        }
        let bytes = self.readback.size();
        encoder.copy_buffer_to_buffer(&self.control, 0, &self.readback, 0, bytes);
        queue.submit([encoder.finish()]);
        let words = read_staging(device, &self.readback, bytes, words_of)?;
        let control: [u32; HOST_WORDS] = words.try_into().map_err(|_| {
            BackendError::device(
                "the probe read back a short control block. Fix: this is a bug in vyre-wgpu; report it."
                    .to_string(),
            )
        })?;
        Ok(Trial::read(n, &control))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WgpuOpenRequest;
    use crate::open::open;

    /// lavapipe runs at most one workgroup per worker thread at a time (and
    /// has at most 32 of them), so 64 workgroups never all arrive there,
    /// and every trial still ends.
    #[test]
    fn on_lavapipe_64_workgroups_are_never_co_resident() {
        let Ok(mut opened) = open(&WgpuOpenRequest::default()) else {
            println!("skipped: no wgpu adapter");
            return;
        };
        if !opened.caps.device_name.contains("llvmpipe") {
            println!("skipped: the adapter is not lavapipe");
            return;
        }
        let request = ProbeRequest {
            device: &opened.device,
            queue: &opened.queue,
            errors: &opened.errors,
            limits: probe_limits(&opened.device.limits()),
        };
        let pipeline = opened
            .kernels
            .pipeline(&opened.device, Kernel::Fused, FUSED_WIDTH);
        let probe = Probe::new(&request, &mut opened.kernels, pipeline, 64);
        for _ in 0..3 {
            let trial = probe.trial(64).unwrap();
            assert_eq!(trial.arrived, 64, "{trial:?}");
            assert!(!trial.all_arrived() && trial.fewest_seen < 64, "{trial:?}");
        }
        opened.errors.check("the test's trials").unwrap();
    }
}
