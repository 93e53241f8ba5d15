//! Launch overhead: a recorded empty dispatch submitted and waited for, the
//! median of many rounds.

use std::time::Instant;

use ash::vk;
use vyre_driver::backend::BackendError;

use vyre_wgsl_abi::Kernel;

use crate::gpu::Gpu;
use crate::kernels::Kernels;
use crate::submit::Submission;

/// Timed rounds (after one untimed warm-up).
pub(crate) const CALIBRATION_ROUNDS: usize = 31;

/// The median of `samples` (ns); 0 for none.
pub(crate) fn median(mut samples: Vec<f64>) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Median ns of submitting one recorded empty dispatch and waiting for it:
/// what a wave pays beyond its device time, since waves replay recorded
/// command buffers with the device's fence.
pub(crate) fn launch_overhead_ns(gpu: &Gpu, kernels: &mut Kernels) -> Result<f64, BackendError> {
    const DOING: &str = "calibrating launch overhead";
    let noop = kernels.pipeline(Kernel::Noop, 1)?;
    let mut submission = Submission::begin_reusable(gpu, DOING)?;
    // SAFETY: the command buffer is recording; the pipeline has no bindings.
    unsafe {
        gpu.device.cmd_bind_pipeline(
            submission.command,
            vk::PipelineBindPoint::COMPUTE,
            noop.pipeline,
        );
        gpu.device.cmd_dispatch(submission.command, 1, 1, 1);
    }
    submission.end(DOING)?;
    let mut samples = Vec::with_capacity(CALIBRATION_ROUNDS);
    for round in 0..=CALIBRATION_ROUNDS {
        let start = Instant::now();
        submission.run(DOING)?;
        if round > 0 {
            samples.push(start.elapsed().as_nanos() as f64);
        }
    }
    Ok(median(samples))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_median_ignores_outliers() {
        assert_eq!(super::median(vec![9.0, 1.0, 1000.0, 2.0, 3.0]), 3.0);
        assert_eq!(super::median(vec![]), 0.0);
    }
}
