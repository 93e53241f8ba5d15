//! Typed errors for graph construction and generation.

use std::fmt;

use crate::memory::{LimitSource, MemoryLimit, human_bytes};

/// What went wrong while building or generating a graph.
///
/// Every message names what is wrong and ends with `Fix: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// The parts of a CSR do not describe a valid graph.
    InvalidCsr {
        /// What is inconsistent.
        reason: String,
    },
    /// A generator or spec parameter is out of its range.
    InvalidParameter {
        /// Which parameter and why.
        reason: String,
        /// What to change.
        fix: String,
    },
    /// The requested graph does not fit `u32` ids or this machine's memory.
    TooLarge {
        /// What is too large.
        what: String,
    },
    /// The arrays given to [`Csr::from_parts`](crate::Csr::from_parts) do
    /// not form a CSR.
    MalformedCsr(CsrDefect),
    /// A build or load needs more host memory than its limit allows, or
    /// the system refused an allocation.
    OutOfMemory {
        /// What needs the memory.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// The limit that refused them; `None` when the allocator did.
        limit: Option<MemoryLimit>,
    },
}

/// How the parts of a CSR fail to form one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrDefect {
    /// There are no offsets (a graph of `n` vertices has `n + 1`).
    NoOffsets,
    /// The first offset is not 0.
    FirstOffset {
        /// The offset found.
        found: u64,
    },
    /// The last offset is not the number of targets.
    LastOffset {
        /// The offset found.
        found: u64,
        /// The number of targets.
        targets: u64,
    },
    /// More vertices than `u32` ids can name.
    TooManyVertices {
        /// The vertex count.
        vertices: u64,
    },
    /// `offsets[vertex + 1]` is below `offsets[vertex]`.
    Decreasing {
        /// The vertex whose row would end before it starts.
        vertex: u64,
        /// `offsets[vertex]`.
        start: u64,
        /// `offsets[vertex + 1]`.
        end: u64,
    },
    /// A target is not a vertex.
    TargetOutOfRange {
        /// Its index in the targets.
        index: u64,
        /// The target.
        target: u32,
        /// The vertex count.
        vertices: u64,
    },
}

impl fmt::Display for CsrDefect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoOffsets => write!(f, "offsets are empty (a graph of n vertices needs n + 1)"),
            Self::FirstOffset { found } => write!(f, "offsets start at {found}, not 0"),
            Self::LastOffset { found, targets } => {
                write!(f, "offsets end at {found} but there are {targets} targets")
            }
            Self::TooManyVertices { vertices } => {
                write!(f, "{vertices} vertices do not fit u32 ids")
            }
            Self::Decreasing { vertex, start, end } => write!(
                f,
                "offsets decrease at vertex {vertex} (its row would run from {start} to {end})"
            ),
            Self::TargetOutOfRange {
                index,
                target,
                vertices,
            } => write!(
                f,
                "target {index} is {target}, out of range for {vertices} vertices"
            ),
        }
    }
}

impl GraphError {
    /// An [`GraphError::InvalidParameter`].
    pub(crate) fn parameter(reason: impl Into<String>, fix: impl Into<String>) -> Self {
        Self::InvalidParameter {
            reason: reason.into(),
            fix: fix.into(),
        }
    }
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidCsr { reason } => write!(
                f,
                "invalid CSR: {reason}. Fix: build the graph with vyre_graph's builders, which keep offsets monotone and targets in range."
            ),
            Self::InvalidParameter { reason, fix } => write!(f, "{reason}. Fix: {fix}"),
            Self::TooLarge { what } => write!(
                f,
                "{what} do not fit u32 vertex ids or this machine's address space. Fix: use a smaller graph."
            ),
            Self::MalformedCsr(defect) => write!(
                f,
                "invalid CSR: {defect}. Fix: build the graph with vyre_graph's builders, which keep offsets monotone and targets in range."
            ),
            Self::OutOfMemory {
                what,
                needed,
                limit,
            } => out_of_memory(f, what, *needed, limit.as_ref()),
        }
    }
}

fn out_of_memory(
    f: &mut fmt::Formatter<'_>,
    what: &str,
    needed: u64,
    limit: Option<&MemoryLimit>,
) -> fmt::Result {
    let needed = human_bytes(needed);
    let Some(limit) = limit else {
        return write!(
            f,
            "the system refused to allocate {needed} for {what}. Fix: raise the process's memory limit (ulimit -v) or free memory, or use a smaller graph."
        );
    };
    let (whose, fix) = match limit.source {
        LimitSource::Configured => (
            "allowed by the configured limit (LoadOptions::memory_limit)",
            "raise the limit, or use a smaller graph",
        ),
        LimitSource::MemAvailable => (
            "this machine has available (MemAvailable in /proc/meminfo)",
            "free memory or use a machine with more, or a smaller graph (a lower scale); set LoadOptions::memory_limit to override the check",
        ),
        LimitSource::Cgroup => (
            "this process's cgroup (container) limit leaves",
            "raise the container's memory limit (memory.max), or use a smaller graph; set LoadOptions::memory_limit to override the check",
        ),
    };
    write!(
        f,
        "{what} needs about {needed} of host memory, more than the {} {whose}. Fix: {fix}.",
        human_bytes(limit.bytes)
    )
}

impl std::error::Error for GraphError {}
