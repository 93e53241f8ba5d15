//! The device-wide barrier probe both WGSL backends run at open: WGSL (like
//! Vulkan and WebGPU) promises no forward progress between workgroups, so
//! a backend launches the fused kernel in its probe mode with N workgroups
//! that each arrive at a counter and spin (bounded) for all N, and reports a
//! barrier only for counts where every trial saw all of them arrive. The
//! backend launches the trials; what to write, what the words say, which
//! counts to try and what the verdict means for the capabilities are here.

mod barrier;
mod trial;
mod verdict;

pub use barrier::{BarrierRequest, DeviceBarrier};
pub use trial::{PROBE_WORDS, Trial, probe_control, synthetic_trial};
pub use verdict::{BarrierVerdict, PROBE_MAX_WORKGROUPS, PROBE_TRIALS, search};

use crate::FUSED_WIDTH;
use crate::bindings::FUSED_STORAGE_BINDINGS;

/// What a device allows the probe's launches.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct ProbeLimits {
    /// Largest workgroup width (the lesser of the device's largest x size
    /// and invocations per workgroup).
    pub width_limit: u32,
    /// Most workgroups one dispatch dimension takes.
    pub max_workgroups: u32,
    /// Storage buffers one shader stage may bind.
    pub storage_buffers: u32,
}

impl ProbeLimits {
    /// The most workgroups a trial may launch, or the verdict of a probe
    /// that cannot run on this device.
    ///
    /// # Errors
    ///
    /// A not-run [`BarrierVerdict`] saying why, when the device cannot run
    /// the fused kernel at all.
    pub fn largest_trial(&self) -> Result<u32, BarrierVerdict> {
        if self.width_limit < FUSED_WIDTH {
            return Err(BarrierVerdict::not_run(&format!(
                "the device runs workgroups of at most {} invocations, the fused kernel needs {FUSED_WIDTH}",
                self.width_limit
            )));
        }
        if self.storage_buffers < FUSED_STORAGE_BINDINGS {
            return Err(BarrierVerdict::not_run(&format!(
                "the device binds {} storage buffers per shader stage, the fused kernel {FUSED_STORAGE_BINDINGS}",
                self.storage_buffers
            )));
        }
        Ok(PROBE_MAX_WORKGROUPS.min(self.max_workgroups))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_runs_only_where_the_fused_kernel_can_launch() {
        let h200 = ProbeLimits {
            width_limit: 1024,
            max_workgroups: u32::MAX,
            storage_buffers: 1 << 20,
        };
        assert_eq!(h200.largest_trial(), Ok(PROBE_MAX_WORKGROUPS));
        let few = ProbeLimits {
            max_workgroups: 100,
            ..h200
        };
        assert_eq!(few.largest_trial(), Ok(100));
        let narrow = ProbeLimits {
            width_limit: 192,
            ..h200
        };
        let why = narrow.largest_trial().unwrap_err().reason();
        assert!(why.contains("at most 192 invocations"), "{why}");
        let bindings = ProbeLimits {
            storage_buffers: 29,
            ..h200
        };
        let why = bindings.largest_trial().unwrap_err().reason();
        assert!(why.contains("binds 29 storage buffers"), "{why}");
        assert!(why.starts_with("probe not run"), "{why}");
    }
}
