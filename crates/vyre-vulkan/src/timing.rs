//! Host-side phases of one command, kept so that per-level overhead can be
//! split into recording, submission and waiting without a profiler.

/// Where the host time of the last [`crate::VulkanBackend`] command went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostTiming {
    /// Writing the command's words to staging and, on a cache miss,
    /// recording its chain, in ns.
    pub record_ns: u64,
    /// Whether the chain was recorded for this command (a cache miss).
    pub recorded: bool,
    /// `vkQueueSubmit` itself, in ns.
    pub submit_ns: u64,
    /// From the submission's return until the fence signalled, in ns.
    pub wait_ns: u64,
    /// Reading the records and timestamps into a report, in ns.
    pub read_ns: u64,
    /// Levels recorded into the command (run or not).
    pub levels_recorded: u32,
}

/// Nanoseconds of `d`, saturating.
pub(crate) fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
