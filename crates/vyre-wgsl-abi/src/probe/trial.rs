//! One probe trial: the control words a host writes before it, and what the
//! kernel's words say after it (`shaders/wgsl/fused.wgsl`, probe mode).

use crate::control::{
    C_ARRIVALS, C_MODE, C_PROBE_COMPLETE, C_PROBE_FEWEST, C_PROBE_SAW_WRITE, C_SPIN_LIMIT,
    HOST_WORDS, MODE_PROBE, PROBE_SPIN_LIMIT,
};

/// The control words of a trial that are not zero, as (word, value): every
/// other word of the first [`HOST_WORDS`] is zeroed before each trial, and
/// the probe's markers (the work array) too.
pub const PROBE_WORDS: [(usize, u32); 3] = [
    (C_MODE, MODE_PROBE),
    (C_SPIN_LIMIT, PROBE_SPIN_LIMIT),
    (C_PROBE_FEWEST, u32::MAX),
];

/// The first [`HOST_WORDS`] control words of a trial.
#[must_use]
pub fn probe_control() -> [u32; HOST_WORDS] {
    let mut words = [0; HOST_WORDS];
    for (word, value) in PROBE_WORDS {
        words[word] = value;
    }
    words
}

/// What one probe launch saw.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Trial {
    /// Workgroups launched.
    pub launched: u32,
    /// Workgroups that arrived at the counter.
    pub arrived: u32,
    /// Workgroups that saw all `launched` arrive before their spin ran out.
    pub complete: u32,
    /// Fewest arrivals any workgroup saw when it stopped waiting.
    pub fewest_seen: u32,
    /// Workgroups that read their neighbour's marker after the barrier.
    pub saw_write: u32,
}

impl Trial {
    /// The trial of `launched` workgroups whose first [`HOST_WORDS`] control
    /// words after the launch are `control`.
    #[must_use]
    pub fn read(launched: u32, control: &[u32; HOST_WORDS]) -> Self {
        Self {
            launched,
            arrived: control[C_ARRIVALS],
            complete: control[C_PROBE_COMPLETE],
            fewest_seen: control[C_PROBE_FEWEST],
            saw_write: control[C_PROBE_SAW_WRITE],
        }
    }

    /// Whether every workgroup waited for all the others and then saw what
    /// its neighbour wrote before arriving.
    #[must_use]
    pub fn all_arrived(&self) -> bool {
        let n = self.launched;
        n > 0
            && self.arrived == n
            && self.complete == n
            && self.fewest_seen >= n
            && self.saw_write == n
    }
}

/// The trial a device shows where `resident` workgroups run at once and the
/// rest only after those finished (as lavapipe and any GPU past its
/// occupancy do): for tests of verdicts and of what backends make of them.
#[must_use]
pub fn synthetic_trial(launched: u32, resident: u32) -> Trial {
    Trial {
        launched,
        arrived: launched,
        complete: if launched <= resident {
            launched
        } else {
            launched - resident.min(launched)
        },
        fewest_seen: launched.min(resident),
        saw_write: if launched <= resident { launched } else { 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trial_reads_the_kernels_words_and_passes_only_when_all_saw_all() {
        let mut control = probe_control();
        assert_eq!(
            (
                control[C_MODE],
                control[C_SPIN_LIMIT],
                control[C_PROBE_FEWEST]
            ),
            (MODE_PROBE, PROBE_SPIN_LIMIT, u32::MAX)
        );
        assert_eq!(control.iter().filter(|&&w| w != 0).count(), 3);
        control[C_ARRIVALS] = 8;
        control[C_PROBE_COMPLETE] = 8;
        control[C_PROBE_FEWEST] = 8;
        control[C_PROBE_SAW_WRITE] = 8;
        let trial = Trial::read(8, &control);
        assert_eq!(trial, synthetic_trial(8, 8));
        assert!(trial.all_arrived());
        // One workgroup gave up after seeing 7 arrivals.
        control[C_PROBE_COMPLETE] = 7;
        control[C_PROBE_FEWEST] = 7;
        assert!(!Trial::read(8, &control).all_arrived());
        // The probe's fewest word untouched (no workgroup ran) is no pass.
        assert!(!Trial::read(0, &probe_control()).all_arrived());
    }
}
