//! Host-side phases of one command, kept so that per-level overhead can be
//! split into recording, submission and waiting without a profiler.

/// Where the host time of the last [`crate::WgpuBackend`] command went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandTiming {
    /// Recording the command (control words, pipelines, passes, copies),
    /// summed over its segments, in ns; segments after the first are
    /// recorded while the device runs.
    pub encode_ns: u64,
    /// `queue.submit` itself, summed over the segments, in ns.
    pub submit_ns: u64,
    /// From the end of the last `queue.submit` until the level records
    /// were read, in ns.
    pub wait_ns: u64,
    /// Levels recorded into the command (run or not).
    pub levels_recorded: u32,
    /// Compute dispatches recorded into the command.
    pub dispatches: u32,
}
