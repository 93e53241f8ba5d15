//! Device-memory planning: the bytes a topology needs, checked against the
//! caller's budget before any backend allocates.

use std::fmt;

use super::numeric::memory_pressure_bps;
use super::types::{MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryPlan};

/// Memory planning failure for megakernel execution.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum MegakernelMemoryError {
    /// A byte-count multiplication or addition overflowed.
    ByteCountOverflow {
        /// Field being computed when overflow happened.
        field: &'static str,
    },
    /// The candidate plan exceeds the caller-approved device-memory budget.
    OverBudget {
        /// Selected topology.
        topology: MegakernelExecutionTopology,
        /// Required peak bytes.
        required_bytes: u64,
        /// Caller-approved budget bytes.
        budget_bytes: u64,
        /// Graph node count.
        node_count: u64,
        /// Graph edge count.
        edge_count: u64,
    },
}

impl fmt::Display for MegakernelMemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ByteCountOverflow { field } => write!(
                f,
                "megakernel memory planner overflowed while computing {field}. Fix: shard the graph or lower the candidate topology before planning device residency."
            ),
            Self::OverBudget {
                topology,
                required_bytes,
                budget_bytes,
                node_count,
                edge_count,
            } => write!(
                f,
                "megakernel {topology:?} plan requires {required_bytes} bytes but budget allows {budget_bytes} bytes for graph nodes={node_count} edges={edge_count}. Fix: choose a sparse topology, reduce fusion pressure, shard the graph, or raise the explicit device-memory budget."
            ),
        }
    }
}

impl std::error::Error for MegakernelMemoryError {}

/// Resident bytes a graph layout occupies before any wave state.
///
/// # Errors
///
/// Returns [`MegakernelMemoryError::ByteCountOverflow`] when the node or edge
/// layout does not fit `u64`.
pub fn megakernel_resident_graph_bytes(
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
) -> Result<u64, MegakernelMemoryError> {
    let node_bytes = mul(graph.node_count, bytes_per_node, "node layout bytes")?;
    let edge_bytes = mul(graph.edge_count, bytes_per_edge, "edge layout bytes")?;
    add(node_bytes, edge_bytes, "graph layout bytes")
}

/// Compute and validate a megakernel device-memory plan.
///
/// Peak bytes are graph + frontier + topology scratch + output, where the
/// topology scales the base scratch: warp-sparse needs at least 32 bytes,
/// sparse the base, block-dense twice the base but at least 2 048 bytes,
/// dense twice, hybrid three times and fused four times the base.
///
/// # Errors
///
/// [`MegakernelMemoryError::ByteCountOverflow`] when a byte count does not
/// fit `u64`, and [`MegakernelMemoryError::OverBudget`] when the peak exceeds
/// `budget_bytes`.
#[allow(
    clippy::too_many_arguments,
    reason = "positional signature of the specified policy, kept for compatibility; \
              MegakernelExecutionRequest::plan_memory takes the same inputs as one value"
)]
pub fn plan_megakernel_memory_budget(
    topology: MegakernelExecutionTopology,
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
    frontier_bytes: u64,
    scratch_bytes: u64,
    output_bytes: u64,
    budget_bytes: u64,
) -> Result<MegakernelMemoryPlan, MegakernelMemoryError> {
    let graph_bytes = megakernel_resident_graph_bytes(graph, bytes_per_node, bytes_per_edge)?;
    let topology_scratch = topology_scratch_bytes(topology, scratch_bytes)?;
    let required = add(graph_bytes, frontier_bytes, "graph plus frontier bytes")?;
    let required = add(required, topology_scratch, "scratch bytes")?;
    let required_bytes = add(required, output_bytes, "output bytes")?;
    if required_bytes > budget_bytes {
        return Err(MegakernelMemoryError::OverBudget {
            topology,
            required_bytes,
            budget_bytes,
            node_count: graph.node_count,
            edge_count: graph.edge_count,
        });
    }
    Ok(MegakernelMemoryPlan {
        graph_bytes,
        frontier_bytes,
        scratch_bytes: topology_scratch,
        output_bytes,
        required_bytes,
        budget_bytes,
        memory_pressure_bps: memory_pressure_bps(required_bytes, budget_bytes),
    })
}

/// Scratch bytes `topology` needs given the caller's base scratch.
fn topology_scratch_bytes(
    topology: MegakernelExecutionTopology,
    base: u64,
) -> Result<u64, MegakernelMemoryError> {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => Ok(base.max(32)),
        MegakernelExecutionTopology::SparseFrontier => Ok(base),
        MegakernelExecutionTopology::BlockDenseFrontier => {
            mul(base.max(1024), 2, "block dense topology scratch bytes")
        }
        MegakernelExecutionTopology::DenseFrontier => mul(base, 2, "dense topology scratch bytes"),
        MegakernelExecutionTopology::HybridFrontier => {
            mul(base, 3, "hybrid topology scratch bytes")
        }
        MegakernelExecutionTopology::FusedWave => mul(base, 4, "fused topology scratch bytes"),
    }
}

fn add(lhs: u64, rhs: u64, field: &'static str) -> Result<u64, MegakernelMemoryError> {
    lhs.checked_add(rhs)
        .ok_or(MegakernelMemoryError::ByteCountOverflow { field })
}

fn mul(lhs: u64, rhs: u64, field: &'static str) -> Result<u64, MegakernelMemoryError> {
    lhs.checked_mul(rhs)
        .ok_or(MegakernelMemoryError::ByteCountOverflow { field })
}
