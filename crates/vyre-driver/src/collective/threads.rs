//! [`ThreadGroup`]: the [`Communicator`] of ranks that are threads of one
//! process (the CPU backend's simulated ranks, and tests).

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::{Communicator, length_error};
use crate::backend::{BackendError, DEVICE_WAIT_LIMIT};

/// What one round of a collective holds: each rank's contribution (one
/// list per destination) until the last arrives, then all of them for
/// every rank to read until the next round completes.
#[derive(Default)]
struct Round {
    /// Rounds completed so far.
    generation: u64,
    /// Contributions to the round in progress, by rank.
    pending: Vec<Option<Vec<Vec<u32>>>>,
    /// The last completed round's contributions, by rank.
    published: Arc<Vec<Vec<Vec<u32>>>>,
    /// Set by [`Communicator::abort`] or a dropped handle.
    aborted: Option<String>,
}

struct Shared {
    ranks: u32,
    round: Mutex<Round>,
    arrived: Condvar,
    wait_limit: Duration,
}

/// One rank's handle on a group of threads. Every rank must call the same
/// collectives in the same order; a rank that stops early (dropped handle,
/// [`Communicator::abort`]) makes the others' collectives fail, and no
/// collective waits longer than the group's wait limit.
pub struct ThreadGroup {
    rank: u32,
    shared: Arc<Shared>,
}

impl ThreadGroup {
    /// Handles for `ranks` ranks, rank `r` at index `r`, each collective
    /// waiting at most [`DEVICE_WAIT_LIMIT`] for the others.
    #[must_use]
    pub fn new(ranks: u32) -> Vec<Self> {
        Self::with_wait_limit(ranks, DEVICE_WAIT_LIMIT)
    }

    /// [`ThreadGroup::new`] with another wait limit.
    #[must_use]
    pub fn with_wait_limit(ranks: u32, wait_limit: Duration) -> Vec<Self> {
        let shared = Arc::new(Shared {
            ranks,
            round: Mutex::new(Round {
                pending: vec![None; ranks as usize],
                ..Round::default()
            }),
            arrived: Condvar::new(),
            wait_limit,
        });
        (0..ranks)
            .map(|rank| Self {
                rank,
                shared: Arc::clone(&shared),
            })
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, Round> {
        // A rank that panicked while holding the lock left nothing half
        // written that matters: its round fails through `aborted`.
        self.shared
            .round
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Deposit this rank's lists and wait for every rank's; returns all of
    /// them, by rank.
    fn exchange(&self, mine: Vec<Vec<u32>>) -> Result<Arc<Vec<Vec<Vec<u32>>>>, BackendError> {
        let deadline = Instant::now() + self.shared.wait_limit;
        let mut round = self.lock();
        if let Some(why) = &round.aborted {
            return Err(aborted(why));
        }
        let generation = round.generation;
        round.pending[self.rank as usize] = Some(mine);
        if round.pending.iter().all(Option::is_some) {
            let all = round
                .pending
                .iter_mut()
                .map(|c| c.take().unwrap_or_default());
            round.published = Arc::new(all.collect());
            round.generation += 1;
            self.shared.arrived.notify_all();
            return Ok(Arc::clone(&round.published));
        }
        loop {
            if round.generation != generation {
                return Ok(Arc::clone(&round.published));
            }
            if let Some(why) = &round.aborted {
                return Err(aborted(why));
            }
            let now = Instant::now();
            if now >= deadline {
                let why = format!(
                    "rank {} waited {:?} for the other ranks of a collective",
                    self.rank, self.shared.wait_limit
                );
                round.aborted = Some(why.clone());
                self.shared.arrived.notify_all();
                return Err(aborted(&why));
            }
            round = self
                .shared
                .arrived
                .wait_timeout(round, deadline - now)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }
}

fn aborted(why: &str) -> BackendError {
    BackendError::device(format!(
        "a collective between ranks could not complete: {why}. Fix: see the first error the ranks reported; every rank must run the same collectives in the same order."
    ))
}

impl Communicator for ThreadGroup {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.shared.ranks
    }

    fn all_gather(&mut self, mine: &[u32], out: &mut [u32]) -> Result<(), BackendError> {
        let expected = mine.len() * self.shared.ranks as usize;
        if out.len() != expected {
            return Err(length_error("the all-gather output", out.len(), expected));
        }
        let all = self.exchange(vec![mine.to_vec()])?;
        for (block, contribution) in out.chunks_mut(mine.len().max(1)).zip(all.iter()) {
            let theirs = &contribution[0];
            if theirs.len() != block.len() {
                return Err(length_error(
                    "another rank's all-gather block",
                    theirs.len(),
                    block.len(),
                ));
            }
            block.copy_from_slice(theirs);
        }
        Ok(())
    }

    fn all_to_all_v(&mut self, send: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, BackendError> {
        let ranks = self.shared.ranks as usize;
        if send.len() != ranks {
            return Err(length_error("the all-to-all send lists", send.len(), ranks));
        }
        let all = self.exchange(send.to_vec())?;
        Ok(all
            .iter()
            .map(|lists| lists[self.rank as usize].clone())
            .collect())
    }

    fn all_reduce_sum(&mut self, values: &mut [u64]) -> Result<(), BackendError> {
        self.all_reduce(values, u64::wrapping_add)
    }

    fn all_reduce_max(&mut self, values: &mut [u64]) -> Result<(), BackendError> {
        self.all_reduce(values, u64::max)
    }

    fn abort(&self) {
        let mut round = self.lock();
        round
            .aborted
            .get_or_insert_with(|| format!("rank {} gave up", self.rank));
        self.shared.arrived.notify_all();
    }
}

impl ThreadGroup {
    fn all_reduce(&self, values: &mut [u64], op: fn(u64, u64) -> u64) -> Result<(), BackendError> {
        let words = values
            .iter()
            .flat_map(|&v| [v as u32, (v >> 32) as u32])
            .collect();
        let all = self.exchange(vec![words])?;
        let len = values.len();
        for (i, value) in values.iter_mut().enumerate() {
            let mut acc = None;
            for contribution in all.iter() {
                let words = &contribution[0];
                let (lo, hi) = (words.get(2 * i), words.get(2 * i + 1));
                let (Some(&lo), Some(&hi)) = (lo, hi) else {
                    return Err(length_error(
                        "another rank's all-reduce values",
                        words.len() / 2,
                        len,
                    ));
                };
                let v = u64::from(lo) | u64::from(hi) << 32;
                acc = Some(acc.map_or(v, |a| op(a, v)));
            }
            *value = acc.unwrap_or(*value);
        }
        Ok(())
    }
}

impl Drop for ThreadGroup {
    fn drop(&mut self) {
        // This rank joins no further collective: any the others start (or
        // wait in) fails instead of waiting out its limit. One that already
        // completed still returns its result (the generation moved on).
        let mut round = self.lock();
        round
            .aborted
            .get_or_insert_with(|| format!("rank {} left the group", self.rank));
        self.shared.arrived.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendErrorKind;
    use crate::collective::exercise;

    #[test]
    fn every_group_size_passes_the_collective_script() {
        for ranks in [1, 2, 3, 4, 7] {
            exercise(&mut ThreadGroup::new(ranks)).unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
        }
    }

    #[test]
    fn an_aborted_rank_fails_the_others_instead_of_hanging() {
        let mut group = ThreadGroup::new(3);
        let started = Instant::now();
        let results: Vec<_> = std::thread::scope(|scope| {
            let runs: Vec<_> = group
                .iter_mut()
                .map(|comm| {
                    scope.spawn(move || {
                        if comm.rank() == 2 {
                            comm.abort();
                            return Ok(());
                        }
                        comm.all_reduce_sum(&mut [1])
                    })
                })
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        assert!(started.elapsed() < Duration::from_secs(60));
        for result in &results[..2] {
            let error = result.as_ref().unwrap_err();
            assert_eq!(error.kind(), BackendErrorKind::Device);
            assert!(error.message().contains("rank 2 gave up"), "{error}");
            assert!(error.message().contains("Fix: "));
        }
    }

    #[test]
    fn a_missing_rank_ends_the_wait_at_the_limit() {
        let mut group = ThreadGroup::with_wait_limit(2, Duration::from_millis(50));
        let error = group[0].all_reduce_max(&mut [5]).unwrap_err();
        assert!(error.message().contains("rank 0 waited"), "{error}");
        // The group stays failed: the late rank does not hang either.
        assert!(group[1].all_reduce_max(&mut [5]).is_err());
    }

    #[test]
    fn a_dropped_rank_fails_a_waiting_one() {
        let mut group = ThreadGroup::new(2);
        let late = group.pop().unwrap();
        let mut early = group.pop().unwrap();
        let result = std::thread::scope(|scope| {
            let waiting = scope.spawn(move || early.all_gather(&[1], &mut [0, 0]));
            // Give the waiting rank time to deposit, then leave.
            std::thread::sleep(Duration::from_millis(50));
            drop(late);
            waiting.join().unwrap()
        });
        assert!(
            result
                .unwrap_err()
                .message()
                .contains("rank 1 left the group")
        );
    }

    #[test]
    fn wrong_lengths_are_refused_before_any_exchange() {
        let mut group = ThreadGroup::new(2);
        let error = group[0].all_gather(&[1, 2], &mut [0; 3]).unwrap_err();
        assert_eq!(error.kind(), BackendErrorKind::InvalidRequest);
        assert!(error.message().contains("needs 4"), "{error}");
        let error = group[0].all_to_all_v(&[vec![1]]).unwrap_err();
        assert!(error.message().contains("needs 2"), "{error}");
    }
}
