//! Typed errors for graph construction and generation.

use std::fmt;

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
        }
    }
}

impl std::error::Error for GraphError {}
