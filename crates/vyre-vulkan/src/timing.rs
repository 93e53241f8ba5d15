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

/// When a command's host phases began and ended.
pub(crate) struct Phases {
    start: std::time::Instant,
    submitting: std::time::Instant,
    submitted: std::time::Instant,
    done: std::time::Instant,
}

impl Phases {
    /// A command starting now.
    pub(crate) fn begin() -> Self {
        let now = std::time::Instant::now();
        Self {
            start: now,
            submitting: now,
            submitted: now,
            done: now,
        }
    }

    /// The submission starts now.
    pub(crate) fn submitting(&mut self) {
        self.submitting = std::time::Instant::now();
    }

    /// The submission returned now.
    pub(crate) fn submitted(&mut self) {
        self.submitted = std::time::Instant::now();
    }

    /// The device finished now.
    pub(crate) fn done(&mut self) {
        self.done = std::time::Instant::now();
    }

    /// From the submission until the device finished, in ns.
    pub(crate) fn wall_ns(&self) -> u64 {
        nanos(self.done - self.submitting)
    }

    /// The phases so far, reading until now.
    pub(crate) fn timing(&self, recorded: bool, levels_recorded: u32) -> HostTiming {
        HostTiming {
            record_ns: nanos(self.submitting - self.start),
            recorded,
            submit_ns: nanos(self.submitted - self.submitting),
            wait_ns: nanos(self.done - self.submitted),
            read_ns: nanos(self.done.elapsed()),
            levels_recorded,
        }
    }
}
