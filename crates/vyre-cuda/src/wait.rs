//! Every wait on the device has a deadline.
//!
//! The host never calls a blocking driver wait: it polls the stream until
//! its work is done or the deadline passes. At `limit - grace` it sets the
//! abort word (mapped host memory every kernel that waits for other blocks
//! reads now and then) and gives the kernels the grace to leave. A stream
//! that finishes then was aborted: the command is an error, and the device
//! is usable again once a search begins afresh. A stream that does not is
//! stuck: the backend refuses everything from then on and, when dropped,
//! leaks its device objects rather than make a driver call that would wait
//! for the stuck kernel.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaContext, CudaStream, DriverError, sys};
use vyre_driver::backend::{BackendError, BackendErrorKind, poll_until};

use crate::error::driver_error;
use crate::pinned::MappedWords;

/// Longest grace the kernels get to leave after the abort word is set.
const MOST_GRACE: Duration = Duration::from_secs(5);

/// Whether `stream` has finished all its work; an error if it failed.
pub(crate) fn stream_idle(stream: &CudaStream) -> Result<bool, BackendError> {
    // SAFETY: the stream handle is alive (its owner holds it); cuStreamQuery
    // only reads its state.
    match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        code => Err(driver_error("stream query", DriverError(code))),
    }
}

/// Poll `stream` until it is idle (`Ok(true)`) or `until` passes
/// (`Ok(false)`).
pub(crate) fn wait_idle(stream: &CudaStream, until: Instant) -> Result<bool, BackendError> {
    poll_until(until, || stream_idle(stream))
}

/// When a wait that started at `start` with `limit` sets the abort word,
/// and when it gives up: the grace is a tenth of the limit, at most
/// [`MOST_GRACE`].
fn schedule(start: Instant, limit: Duration) -> (Instant, Instant) {
    let grace = (limit / 10).min(MOST_GRACE);
    (start + (limit - grace), start + limit)
}

/// The deadline of one command: when its host side stops waiting and
/// aborts it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    abort_at: Instant,
    give_up_at: Instant,
}

impl Deadline {
    /// Whether the time to abort has come.
    pub(crate) fn passed(&self) -> bool {
        Instant::now() >= self.abort_at
    }
}

/// The backend's wait limit, its abort word, and whether its stream is
/// stuck.
pub(crate) struct Watchdog {
    abort: MappedWords,
    limit: Duration,
    stuck: bool,
}

impl Watchdog {
    /// A watchdog of `limit` for the streams of `ctx`.
    pub(crate) fn new(ctx: &Arc<CudaContext>, limit: Duration) -> Result<Self, BackendError> {
        Ok(Self {
            abort: MappedWords::new(ctx, 1)?,
            limit,
            stuck: false,
        })
    }

    /// The address of the abort word, for the kernels' arguments.
    pub(crate) fn abort_ptr(&self) -> u64 {
        self.abort.device_ptr()
    }

    /// The limit of every wait.
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }

    /// Whether a stream stayed busy after its abort: nothing may wait on the
    /// device again.
    pub(crate) fn is_stuck(&self) -> bool {
        self.stuck
    }

    /// An error when the device is stuck.
    pub(crate) fn ready(&self) -> Result<(), BackendError> {
        if self.stuck {
            return Err(stuck_error(self.limit));
        }
        Ok(())
    }

    /// The deadline of a command that starts now.
    pub(crate) fn deadline(&self) -> Deadline {
        let (abort_at, give_up_at) = schedule(Instant::now(), self.limit);
        Deadline {
            abort_at,
            give_up_at,
        }
    }

    /// Wait for `stream` with a fresh deadline (`what` names the work).
    pub(crate) fn wait(&mut self, stream: &CudaStream, what: &str) -> Result<(), BackendError> {
        let deadline = self.deadline();
        self.wait_until(stream, deadline, what)
    }

    /// Wait for `stream` until `deadline`; past it, abort the kernels and
    /// give them the rest of the limit to leave.
    pub(crate) fn wait_until(
        &mut self,
        stream: &CudaStream,
        deadline: Deadline,
        what: &str,
    ) -> Result<(), BackendError> {
        self.ready()?;
        if wait_idle(stream, deadline.abort_at)? {
            return Ok(());
        }
        self.abort
            .word(0)
            .store(1, std::sync::atomic::Ordering::SeqCst);
        let left = wait_idle(stream, deadline.give_up_at);
        if !matches!(left, Ok(false)) {
            // The stream is idle (or failed): no kernel reads the word now.
            self.abort
                .word(0)
                .store(0, std::sync::atomic::Ordering::SeqCst);
        }
        match left? {
            true => Err(BackendError::with_kind(
                BackendErrorKind::Device,
                format!(
                    "the device did not finish {what} within {:?}; its kernels were told to stop and did, and this search is over. Fix: begin the search again; if it recurs, run the command under compute-sanitizer and report it, or raise CudaOpenRequest::wait_limit if the work legitimately takes longer.",
                    self.limit
                ),
            )),
            false => {
                self.stuck = true;
                Err(stuck_error(self.limit))
            }
        }
    }
}

fn stuck_error(limit: Duration) -> BackendError {
    BackendError::with_kind(
        BackendErrorKind::Device,
        format!(
            "the CUDA device is stuck: a kernel did not finish within {limit:?} and did not stop when told to, so this backend refuses all work. Fix: end the process (the driver frees the device when it exits), then run the failing search under compute-sanitizer and report it."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_abort_comes_a_tenth_of_the_limit_before_the_end_at_most_five_seconds() {
        let start = Instant::now();
        let (abort, end) = schedule(start, Duration::from_secs(300));
        assert_eq!(end - start, Duration::from_secs(300));
        assert_eq!(end - abort, Duration::from_secs(5));
        let (abort, end) = schedule(start, Duration::from_millis(400));
        assert_eq!(end - abort, Duration::from_millis(40));
        let (abort, end) = schedule(start, Duration::ZERO);
        assert_eq!((abort, end), (start, start));
    }
}
