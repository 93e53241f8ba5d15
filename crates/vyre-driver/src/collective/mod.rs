//! Collective communication between the ranks of a partitioned device: the
//! contract ([`Communicator`]) that an in-process group of threads
//! ([`ThreadGroup`]) and a backend's collective library both implement, which
//! exchange a level uses ([`ExchangeKind`]), and where each rank's share of
//! the graph is planned ([`RankPlan`]).
//!
//! A collective is called by every rank of the group, in the same order,
//! each from its own thread; it returns once this rank's part is done.
//! Every call that cannot complete (a rank gone, a wait past its limit)
//! returns an error instead of waiting forever.

mod check;
mod exchange;
mod plan;
mod reduced;
mod threads;

pub use check::exercise;
pub use exchange::ExchangeKind;
pub use plan::{RankBytes, RankPlan, outbox_room, piece_list_words, rank_memory_error};
pub use reduced::{batches_refused, reduced_level};
pub use threads::ThreadGroup;

use crate::backend::BackendError;

/// One rank's handle on a group of ranks that exchange data collectively.
/// Buffers are host slices; an implementation over device memory copies
/// through them or offers device-side calls of its own beside these.
pub trait Communicator: Send {
    /// This rank's index, `0..ranks()`.
    fn rank(&self) -> u32;

    /// Ranks in the group.
    fn ranks(&self) -> u32;

    /// Every rank contributes `mine` (the same length on every rank);
    /// `out` (`ranks() * mine.len()` words) receives rank `r`'s at
    /// `r * mine.len()`.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when `out` has the wrong length or the group fails.
    fn all_gather(&mut self, mine: &[u32], out: &mut [u32]) -> Result<(), BackendError>;

    /// `send[d]` goes to rank `d` (`ranks()` lists, any lengths); returns
    /// what every rank sent this one, by sender.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when `send` does not have one list per rank or the
    /// group fails.
    fn all_to_all_v(&mut self, send: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, BackendError>;

    /// Replace each entry of `values` (the same length on every rank) by
    /// its sum over the ranks (wrapping past `u64::MAX`).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when the group fails.
    fn all_reduce_sum(&mut self, values: &mut [u64]) -> Result<(), BackendError>;

    /// Replace each entry of `values` by its largest value over the ranks.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when the group fails.
    fn all_reduce_max(&mut self, values: &mut [u64]) -> Result<(), BackendError>;

    /// Give up on the group: every rank's pending and later collectives
    /// fail. A rank calls this when it cannot take part in the next
    /// collective (its own step failed), so the others do not wait for it.
    fn abort(&self);
}

/// The error every collective returns on a mismatch of lengths between
/// what a rank passed and what the group needs.
pub(crate) fn length_error(what: &str, found: usize, expected: usize) -> BackendError {
    BackendError::new(format!(
        "{what} has {found} entries where the group needs {expected}. Fix: size it from Communicator::ranks() and the block length every rank uses."
    ))
}
