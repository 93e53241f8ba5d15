//! Typed errors of partitioning a graph across ranks.

use std::fmt;

use crate::GraphError;

/// Why a graph cannot be partitioned as asked.
///
/// Every message names what is wrong and ends with `Fix: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartitionError {
    /// Zero ranks were asked for.
    NoRanks,
    /// More ranks than [`super::MAX_RANKS`].
    TooManyRanks {
        /// Ranks asked for.
        ranks: u32,
    },
    /// The partition covers another vertex count than the graph's.
    OtherGraph {
        /// Vertices the partition covers.
        partitioned: u32,
        /// Vertices of the graph.
        vertices: u32,
    },
    /// A rank's rows or search state could not be allocated.
    Memory(GraphError),
}

impl fmt::Display for PartitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoRanks => write!(
                f,
                "a partition needs at least one rank, 0 were asked for. Fix: ask for 1 or more ranks (GPUs)."
            ),
            Self::TooManyRanks { ranks } => write!(
                f,
                "{ranks} ranks were asked for, at most {} are supported. Fix: ask for fewer ranks.",
                super::MAX_RANKS
            ),
            Self::OtherGraph {
                partitioned,
                vertices,
            } => write!(
                f,
                "the partition covers {partitioned} vertices but the graph has {vertices}. Fix: partition this graph (Partition::balanced) before taking its rows."
            ),
            Self::Memory(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for PartitionError {}

impl From<GraphError> for PartitionError {
    fn from(error: GraphError) -> Self {
        Self::Memory(error)
    }
}
