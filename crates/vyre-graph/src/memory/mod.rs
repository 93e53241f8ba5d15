//! Host memory: how much a load or build may use, and allocations that
//! fail with an error instead of aborting the process.
//!
//! Before a graph is built its peak host memory is estimated (see
//! [`BuildFootprint`](crate::build::BuildFootprint)) and checked against a
//! [`MemoryLimit`]: the caller's, or what the machine has available
//! ([`MemoryLimit::detect`]). Large arrays are then allocated through
//! `try_reserve`, so a refusal the check did not foresee (a `ulimit -v`, a
//! strict overcommit policy) is a [`GraphError::OutOfMemory`] too.

mod alloc;
mod host;

pub(crate) use alloc::{try_reserve, try_with_capacity, try_zeroed};
use host::read_host_memory;

use crate::GraphError;

/// Where a [`MemoryLimit`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// The caller set it (`LoadOptions::memory_limit`).
    Configured,
    /// `MemAvailable` in `/proc/meminfo`.
    MemAvailable,
    /// What the process's cgroup (container) limit leaves.
    Cgroup,
}

/// Bytes of host memory a load or build may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// The limit.
    pub bytes: u64,
    /// Where it comes from (it decides the fix an error suggests).
    pub source: LimitSource,
}

impl MemoryLimit {
    /// The caller's limit when given, otherwise what the machine has
    /// available now ([`MemoryLimit::detect`]).
    #[must_use]
    pub fn resolve(configured: Option<u64>) -> Option<Self> {
        match configured {
            Some(bytes) => Some(Self {
                bytes,
                source: LimitSource::Configured,
            }),
            None => Self::detect(),
        }
    }

    /// What this machine has available now: the smaller of `MemAvailable`
    /// and the room left under the cgroup's limit. `None` where neither can
    /// be read (not Linux); then only the allocator can refuse.
    #[must_use]
    pub fn detect() -> Option<Self> {
        read_host_memory().limit()
    }

    /// Refuse `needed` bytes for `what` when they exceed the limit.
    ///
    /// # Errors
    ///
    /// [`GraphError::OutOfMemory`] naming `what` (called only then).
    pub fn check(&self, needed: u64, what: impl FnOnce() -> String) -> Result<(), GraphError> {
        if needed <= self.bytes {
            return Ok(());
        }
        Err(GraphError::OutOfMemory {
            what: what(),
            needed,
            limit: Some(*self),
        })
    }
}

/// [`MemoryLimit::check`] when there is a limit; nothing to refuse otherwise.
pub(crate) fn check(
    limit: Option<&MemoryLimit>,
    needed: u64,
    what: impl FnOnce() -> String,
) -> Result<(), GraphError> {
    limit.map_or(Ok(()), |limit| limit.check(needed, what))
}

/// `bytes` for people: `1.5 GiB (1610612736 bytes)`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {} ({bytes} bytes)", UNITS[unit])
    }
}

#[cfg(test)]
mod tests;
