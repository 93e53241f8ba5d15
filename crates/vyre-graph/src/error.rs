//! Typed errors for graph construction and loading.

use std::fmt;

/// What went wrong while building or loading a graph.
///
/// Every message names what is wrong and ends with `Fix: ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    /// The parts of a CSR do not describe a valid graph.
    InvalidCsr {
        /// What is inconsistent.
        reason: String,
    },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidCsr { reason } => write!(
                f,
                "invalid CSR: {reason}. Fix: build the graph with vyre_graph's builders, which keep offsets monotone and targets in range."
            ),
        }
    }
}

impl std::error::Error for GraphError {}
