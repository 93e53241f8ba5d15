//! Searching for the largest co-resident workgroup count from trials, and
//! the verdict it gives: pure logic, tested on synthetic devices.

use vyre_driver::backend::BackendError;

use super::trial::Trial;

/// Trials a count must pass, every one, to be verified.
pub const PROBE_TRIALS: u32 = 5;

/// Largest workgroup count the probe tries (far above any device's
/// co-residency; it bounds the search and the probe buffer).
pub const PROBE_MAX_WORKGROUPS: u32 = 1 << 16;

/// The probe's verdict on a device-wide barrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarrierVerdict {
    width: u32,
    /// Largest count verified in every trial (0 = none).
    verified: u32,
    /// Trials run at the verified count (all passed).
    verified_trials: u32,
    /// The first failed trial of the smallest count that failed.
    refused: Option<Trial>,
    /// Why the probe did not run.
    not_run: Option<String>,
}

impl BarrierVerdict {
    /// The probe was not run (the device cannot launch it, for example).
    #[must_use]
    pub fn not_run(reason: &str) -> Self {
        Self {
            width: 0,
            verified: 0,
            verified_trials: 0,
            refused: None,
            not_run: Some(reason.to_string()),
        }
    }

    /// Whether a device-wide barrier was verified (for at least 2 workgroups).
    #[must_use]
    pub fn verified(&self) -> bool {
        self.verified >= 2
    }

    /// Verified co-resident workgroups (0 when none).
    #[must_use]
    pub fn workgroups(&self) -> u32 {
        if self.verified() { self.verified } else { 0 }
    }

    /// Width of the probe's workgroups.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Lanes the device was seen to run at once (0 when not verified).
    #[must_use]
    pub fn resident_lanes(&self) -> u32 {
        self.workgroups().saturating_mul(self.width)
    }

    /// The verdict in words, for capabilities and `--trace`.
    #[must_use]
    pub fn reason(&self) -> String {
        if let Some(why) = &self.not_run {
            return format!("probe not run: {why}");
        }
        let mut text = if self.verified() {
            format!(
                "probe: {n} of {n} workgroups of {w} co-resident in {t} of {t} trials",
                n = self.verified,
                w = self.width,
                t = self.verified_trials
            )
        } else {
            String::new()
        };
        if let Some(trial) = self.refused {
            let arrived = trial.fewest_seen.min(trial.launched);
            let why = if arrived < trial.launched {
                format!(
                    "only {arrived} of {} workgroups arrived: workgroups are not co-resident",
                    trial.launched
                )
            } else {
                format!(
                    "all {} workgroups arrived but {} of them saw their neighbour's write: the fences did not order memory",
                    trial.launched, trial.saw_write
                )
            };
            text = if text.is_empty() {
                format!("probe: {why}")
            } else {
                format!("{text} (at {}: {why})", trial.launched)
            };
        }
        text
    }
}

/// Find the largest workgroup count (2 to `max`) at which every one of
/// [`PROBE_TRIALS`] trials sees all workgroups arrive: doubling from 2 until
/// a count fails, then bisecting between the last verified count and the
/// first failed one. `launch(n)` runs one trial of `n` workgroups.
///
/// # Errors
///
/// The first error `launch` returns.
pub fn search(
    width: u32,
    max: u32,
    mut launch: impl FnMut(u32) -> Result<Trial, BackendError>,
) -> Result<BarrierVerdict, BackendError> {
    // Runs every trial of `n`; the first failed one, if any.
    let mut attempt = |n: u32| -> Result<Option<Trial>, BackendError> {
        for _ in 0..PROBE_TRIALS {
            let trial = launch(n)?;
            if !trial.all_arrived() {
                return Ok(Some(trial));
            }
        }
        Ok(None)
    };
    let mut verified = 0;
    let mut refused = None;
    let mut n = 2;
    while n <= max {
        match attempt(n)? {
            None => verified = n,
            Some(trial) => {
                refused = Some(trial);
                break;
            }
        }
        if n == max {
            break;
        }
        n = n.saturating_mul(2).min(max);
    }
    if let Some(failed) = refused {
        let (mut lo, mut hi) = (verified, failed.launched);
        while verified > 0 && hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match attempt(mid)? {
                None => lo = mid,
                Some(trial) => {
                    hi = mid;
                    refused = Some(trial);
                }
            }
        }
        verified = lo;
    }
    Ok(BarrierVerdict {
        width,
        verified,
        verified_trials: if verified >= 2 { PROBE_TRIALS } else { 0 },
        refused,
        not_run: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::synthetic_trial;

    fn device(resident: u32) -> impl FnMut(u32) -> Result<Trial, BackendError> {
        move |n| Ok(synthetic_trial(n, resident))
    }

    #[test]
    fn the_largest_co_resident_count_is_found_exactly() {
        for resident in [2, 3, 7, 132, 1056, 1057, 4095] {
            let verdict = search(256, PROBE_MAX_WORKGROUPS, device(resident)).unwrap();
            assert_eq!(verdict.workgroups(), resident, "{verdict:?}");
            assert!(verdict.verified());
        }
        let verdict = search(256, PROBE_MAX_WORKGROUPS, device(1056)).unwrap();
        assert!(
            verdict
                .reason()
                .starts_with("probe: 1056 of 1056 workgroups of 256 co-resident in 5 of 5 trials"),
            "{}",
            verdict.reason()
        );
        assert_eq!(verdict.resident_lanes(), 1056 * 256);
    }

    #[test]
    fn one_workgroup_at_a_time_is_no_barrier() {
        let verdict = search(256, PROBE_MAX_WORKGROUPS, device(1)).unwrap();
        assert!(!verdict.verified());
        assert_eq!((verdict.workgroups(), verdict.resident_lanes()), (0, 0));
        assert_eq!(
            verdict.reason(),
            "probe: only 1 of 2 workgroups arrived: workgroups are not co-resident"
        );
    }

    #[test]
    fn a_count_is_verified_only_when_every_trial_passes() {
        // 8 workgroups pass four trials in five; 4 always pass.
        let mut calls = 0;
        let flaky = |n: u32| {
            calls += 1;
            let resident = if n == 8 && calls % 5 == 0 { 1 } else { 8 };
            Ok(synthetic_trial(n, if n > 8 { 8 } else { resident }))
        };
        let verdict = search(64, PROBE_MAX_WORKGROUPS, flaky).unwrap();
        // 8 failed one trial, so the bisection settles below it.
        assert_eq!(verdict.workgroups(), 7, "{verdict:?}");
        // Arrivals without the neighbour's write are no barrier either.
        let no_fence = |n: u32| {
            Ok(Trial {
                saw_write: n - 1,
                ..synthetic_trial(n, n)
            })
        };
        let verdict = search(64, 64, no_fence).unwrap();
        assert!(!verdict.verified());
        assert!(
            verdict.reason().contains("did not order memory"),
            "{}",
            verdict.reason()
        );
    }

    #[test]
    fn the_search_stops_at_the_cap_and_passes_errors_on() {
        let verdict = search(256, 100, device(u32::MAX)).unwrap();
        assert_eq!(verdict.workgroups(), 100);
        let mut launches = 0;
        let failing = |_| {
            launches += 1;
            Err(BackendError::device("lost. Fix: none".to_string()))
        };
        assert!(search(256, 100, failing).is_err());
        assert_eq!(launches, 1);
        assert!(
            BarrierVerdict::not_run("no probe module")
                .reason()
                .contains("not run")
        );
    }
}
