//! The device-wide barrier probe: Vulkan promises no forward progress
//! between workgroups, so at open vyre launches N workgroups that each
//! arrive at a counter and spin (bounded) for all N, and reports a barrier
//! only for counts where every trial saw all of them arrive.

mod run;
mod verdict;

pub(crate) use run::probe_device;
pub use verdict::{BarrierVerdict, PROBE_MAX_WORKGROUPS, PROBE_TRIALS, Trial};
#[cfg(test)]
pub(crate) use verdict::{search, synthetic_trial};
