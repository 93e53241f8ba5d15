//! [`EngineError`]: everything a search can fail with.

use std::fmt;

use vyre_driver::backend::{BackendError, SourceError};
use vyre_driver::megakernel_execution::MegakernelMemoryError;

/// Why the engine could not load a graph or run a search. Every message ends
/// with `Fix: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The backend failed or refused.
    Backend(BackendError),
    /// The graph and its search state do not fit the memory budget (nothing
    /// was allocated).
    Memory(MegakernelMemoryError),
    /// A search was asked for before any graph was loaded.
    NoGraph,
    /// A search was asked for with no sources.
    NoSources,
    /// A source is not a vertex of the loaded graph.
    SourceOutOfRange {
        /// The offending source.
        source: u32,
        /// Vertices in the graph.
        vertex_count: u32,
    },
    /// A forced topology the device cannot run.
    TopologyUnavailable {
        /// The topology.
        topology: String,
        /// Why.
        reason: String,
    },
    /// A batch pass's state does not fit the memory budget beside the
    /// loaded graph (nothing was allocated for it).
    BatchMemory {
        /// Bytes the graph and the pass's state need.
        required_bytes: u64,
        /// The budget.
        budget_bytes: u64,
        /// Lanes of the pass.
        lanes: u32,
        /// Whether the pass keeps every depth.
        keep_depths: bool,
    },
    /// The host could not hold a result.
    HostMemory {
        /// What.
        what: &'static str,
        /// Its bytes.
        bytes: u64,
    },
    /// The graph could not be prepared for the device (its relabelled copy
    /// did not fit the host's memory).
    Graph(vyre_graph::GraphError),
    /// The backend broke the contract (for example it allocated more than
    /// the plan, or reported no progress).
    ContractViolation(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Backend(e) => write!(f, "{e}"),
            Self::Memory(e) => write!(f, "{e}"),
            Self::NoGraph => f.write_str(
                "no graph is loaded. Fix: call Engine::load with a graph before searching.",
            ),
            Self::NoSources => {
                f.write_str("the search has no sources. Fix: pass at least one source vertex.")
            }
            Self::SourceOutOfRange {
                source,
                vertex_count,
            } => write!(
                f,
                "source {source} is not a vertex of the graph (it has {vertex_count} vertices). Fix: pick a source below {vertex_count} (vertex ids are 0-based)."
            ),
            Self::TopologyUnavailable { topology, reason } => write!(
                f,
                "topology {topology} cannot run on this device: {reason}. Fix: force another topology or let the policy choose (auto)."
            ),
            Self::BatchMemory {
                required_bytes,
                budget_bytes,
                lanes,
                keep_depths,
            } => write!(
                f,
                "a batch pass of {lanes} searches needs {required_bytes} bytes of device memory with the graph{}, but the budget is {budget_bytes}. Fix: {}raise the memory budget, or use a device with more memory.",
                if *keep_depths {
                    ", keeping every depth"
                } else {
                    ""
                },
                if *keep_depths {
                    "keep counts only (no per-vertex depths), "
                } else {
                    ""
                }
            ),
            Self::HostMemory { what, bytes } => write!(
                f,
                "the host could not allocate {bytes} bytes for {what}. Fix: ask for fewer searches at once or keep counts only."
            ),
            Self::Graph(e) => write!(f, "{e}"),
            Self::ContractViolation(what) => write!(
                f,
                "backend contract violated: {what}. Fix: this is a vyre bug; please report it with the graph and backend."
            ),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<BackendError> for EngineError {
    fn from(e: BackendError) -> Self {
        Self::Backend(e)
    }
}

impl From<vyre_graph::GraphError> for EngineError {
    fn from(e: vyre_graph::GraphError) -> Self {
        Self::Graph(e)
    }
}

impl From<MegakernelMemoryError> for EngineError {
    fn from(e: MegakernelMemoryError) -> Self {
        Self::Memory(e)
    }
}

impl From<SourceError> for EngineError {
    fn from(e: SourceError) -> Self {
        match e {
            SourceError::Empty => Self::NoSources,
            // The engine splits batches into passes of at most 64.
            SourceError::TooManyLanes { given } => Self::ContractViolation(format!(
                "a batch pass was given {given} sources, more than its lanes"
            )),
            SourceError::OutOfRange {
                source,
                vertex_count,
            } => Self::SourceOutOfRange {
                source,
                vertex_count,
            },
        }
    }
}
