//! How a host waits for its device: it polls, spinning first, then
//! yielding, then sleeping briefly. Most commands end within microseconds,
//! and a blocking driver wait adds its wake-up latency (hundreds of
//! microseconds on some drivers) to every level of a search; a long command
//! loses at most one short sleep.

use std::time::{Duration, Instant};

/// How long a waiting host spins before it yields.
pub const POLL_SPIN: Duration = Duration::from_millis(10);
/// How long it polls (spinning, then yielding) before it sleeps between
/// polls.
pub const POLL_YIELD: Duration = Duration::from_millis(100);
/// The sleep between polls after [`POLL_YIELD`].
pub const POLL_SLEEP: Duration = Duration::from_micros(100);

/// Poll `done` until it says `true` (`Ok(true)`) or `until` passes
/// (`Ok(false)`); its error ends the wait.
///
/// # Errors
///
/// The first error `done` returns.
pub fn poll_until<E>(until: Instant, mut done: impl FnMut() -> Result<bool, E>) -> Result<bool, E> {
    let start = Instant::now();
    loop {
        if done()? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= until {
            return Ok(false);
        }
        let waited = now - start;
        if waited < POLL_SPIN {
            std::hint::spin_loop();
        } else if waited < POLL_YIELD {
            std::thread::yield_now();
        } else {
            std::thread::sleep(POLL_SLEEP.min(until - now));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polling_ends_when_done_at_the_deadline_or_on_error() {
        let mut calls = 0;
        let done = poll_until(Instant::now() + Duration::from_secs(5), || {
            calls += 1;
            Ok::<_, ()>(calls == 3)
        });
        assert_eq!((done, calls), (Ok(true), 3));

        let start = Instant::now();
        let limit = Duration::from_millis(150);
        assert_eq!(poll_until(start + limit, || Ok::<_, ()>(false)), Ok(false));
        let waited = start.elapsed();
        assert!(waited >= limit && waited < limit + Duration::from_millis(100));

        assert_eq!(
            poll_until(start + limit, || Err::<bool, _>("lost")),
            Err("lost")
        );
    }
}
