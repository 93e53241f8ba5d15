//! How far ahead of the device a chain is enqueued.
//!
//! A chain's later levels stop on the device once a level ends the chain
//! (empty frontier, or out of the band), but each one enqueued still costs
//! a launch on the host and on the device. The [`Pacer`] keeps the host at
//! most [`RUN_AHEAD`] levels ahead of the last level whose record it has
//! seen (records land in mapped host memory, see `records.rs`), and stops
//! enqueuing as soon as a seen record ends the chain. It never blocks: it
//! polls host memory, and asks whether the stream is idle only to notice a
//! level that will never record (the caller's `idle` also says yes once the
//! command's deadline passed, which stops the enqueuing).

use vyre_driver::backend::{BackendError, FrontierBand, LevelRecord};

use crate::records::stops;

/// Levels of a chain that may be enqueued beyond the last one the device
/// reported done: enough to keep the device busy while the host notices a
/// level finish (a mapped write and a poll, about a microsecond); at most
/// this many launches follow a level that stopped the chain.
pub(crate) const RUN_AHEAD: u32 = 3;

/// Polls between two questions to the driver whether the stream is idle.
const POLLS_PER_IDLE_CHECK: u32 = 256;

/// Decides, before each level of a chain is enqueued, whether to enqueue
/// it.
pub(crate) struct Pacer {
    band: FrontierBand,
    /// Levels whose records the host has seen.
    seen: u32,
    /// Whether a seen level ended the chain.
    stopped: bool,
}

impl Pacer {
    /// A pacer for a chain whose band is `band`.
    pub(crate) fn new(band: FrontierBand) -> Self {
        Self {
            band,
            seen: 0,
            stopped: false,
        }
    }

    fn take(&mut self, read: &mut impl FnMut(u32) -> Option<LevelRecord>) -> bool {
        match read(self.seen) {
            Some(record) => {
                self.stopped |= stops(&record, self.band);
                self.seen += 1;
                true
            }
            None => false,
        }
    }

    /// Whether level `next` (0-based; levels `0..next` are enqueued) should
    /// be enqueued. `read(i)` is level `i`'s record once the device wrote
    /// it; `idle()` whether everything enqueued has finished. Waits while
    /// `next` is [`RUN_AHEAD`] levels beyond the records seen.
    ///
    /// # Errors
    ///
    /// What `idle` returns (a failed stream).
    pub(crate) fn may_enqueue(
        &mut self,
        next: u32,
        mut read: impl FnMut(u32) -> Option<LevelRecord>,
        mut idle: impl FnMut() -> Result<bool, BackendError>,
    ) -> Result<bool, BackendError> {
        while self.seen < next && !self.stopped && self.take(&mut read) {}
        let mut polls = 0u32;
        while !self.stopped && next >= self.seen + RUN_AHEAD {
            if self.take(&mut read) {
                continue;
            }
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(POLLS_PER_IDLE_CHECK) && idle()? && !self.take(&mut read) {
                // Everything enqueued finished without this record (or
                // the deadline passed); what the caller's wait and the
                // records collected after it find says why.
                self.stopped = true;
            }
            std::hint::spin_loop();
        }
        Ok(!self.stopped)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn record(frontier_out: u32, frontier_out_edges: u64) -> LevelRecord {
        LevelRecord {
            frontier_out,
            frontier_out_edges,
            ..LevelRecord::default()
        }
    }

    /// A device that finishes one level every `polls_per_level` reads and
    /// whose level `stop_at` ends the chain.
    struct Device {
        reads: Cell<u32>,
        polls_per_level: u32,
        stop_at: u32,
        band_edges: u64,
    }

    impl Device {
        fn read(&self, i: u32) -> Option<LevelRecord> {
            self.reads.set(self.reads.get() + 1);
            let done = self.reads.get() / self.polls_per_level;
            (i < done && i <= self.stop_at).then(|| {
                if i == self.stop_at {
                    record(0, 0)
                } else {
                    record(5, self.band_edges)
                }
            })
        }
    }

    /// Levels a chain of `levels` enqueues on `device`.
    fn enqueued(device: &Device, band: FrontierBand, levels: u32) -> u32 {
        let mut pacer = Pacer::new(band);
        let mut launched = 0;
        while launched < levels
            && pacer
                .may_enqueue(launched, |i| device.read(i), || Ok(false))
                .unwrap()
        {
            launched += 1;
        }
        launched
    }

    #[test]
    fn the_first_levels_go_out_without_waiting() {
        let mut pacer = Pacer::new(FrontierBand::of_edges(u64::MAX));
        let never = |_| None;
        for next in 0..RUN_AHEAD {
            assert!(pacer.may_enqueue(next, never, || Ok(false)).unwrap());
        }
    }

    #[test]
    fn a_chain_stops_a_few_levels_after_its_stop() {
        // Level 2 of 64 empties the frontier: the host enqueues it and at
        // most RUN_AHEAD more.
        let device = Device {
            reads: Cell::new(0),
            polls_per_level: 50,
            stop_at: 2,
            band_edges: 10,
        };
        let n = enqueued(&device, FrontierBand::of_edges(u64::MAX), 64);
        assert!((3..=3 + RUN_AHEAD).contains(&n), "{n}");
    }

    #[test]
    fn a_chain_that_never_stops_runs_every_level() {
        let device = Device {
            reads: Cell::new(0),
            polls_per_level: 7,
            stop_at: u32::MAX,
            band_edges: 10,
        };
        assert_eq!(enqueued(&device, FrontierBand::of_edges(u64::MAX), 40), 40);
    }

    #[test]
    fn leaving_the_band_stops_like_an_empty_frontier() {
        let device = Device {
            reads: Cell::new(0),
            polls_per_level: 3,
            stop_at: u32::MAX,
            band_edges: 100,
        };
        // Every level has 100 out-edges: over a band of 99, level 0 stops.
        let n = enqueued(&device, FrontierBand::of_edges(99), 64);
        assert!((1..=1 + RUN_AHEAD).contains(&n), "{n}");
        // Every level finds 5 vertices: over a band of 4, level 0 stops.
        let vertices = FrontierBand {
            max_edges: u64::MAX,
            max_vertices: 4,
        };
        let device = Device {
            reads: Cell::new(0),
            ..device
        };
        let n = enqueued(&device, vertices, 64);
        assert!((1..=1 + RUN_AHEAD).contains(&n), "{n}");
    }

    #[test]
    fn an_idle_stream_without_the_record_stops_enqueuing() {
        let mut pacer = Pacer::new(FrontierBand::of_edges(u64::MAX));
        let never = |_| None;
        let idle_checks = Cell::new(0);
        let idle = || {
            idle_checks.set(idle_checks.get() + 1);
            Ok(true)
        };
        assert!(!pacer.may_enqueue(RUN_AHEAD, never, idle).unwrap());
        assert_eq!(idle_checks.get(), 1);
    }

    #[test]
    fn a_failed_stream_is_an_error() {
        let mut pacer = Pacer::new(FrontierBand::of_edges(u64::MAX));
        let failed = || Err(BackendError::device("stream failed. Fix: none."));
        let err = pacer
            .may_enqueue(RUN_AHEAD + 2, |_| None, failed)
            .unwrap_err();
        assert!(err.message().contains("stream failed"), "{err}");
    }
}
