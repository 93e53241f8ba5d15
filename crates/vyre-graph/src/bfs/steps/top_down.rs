//! The top-down level step: push from a frontier queue along out-edges.

use rayon::prelude::*;

use super::{SearchState, StepStats};
use crate::Graph;

/// The result of a top-down step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepOutput {
    /// The newly discovered vertices (the next frontier), in no set order.
    pub next: Vec<u32>,
    /// What the step measured.
    pub stats: StepStats,
}

/// Frontier vertices per parallel task; small so hubs do not serialize.
const TASK_VERTICES: usize = 64;

/// Expand `frontier` (the vertices at depth `level`) along out-edges: every
/// unreached out-neighbour gets depth `level + 1` and the frontier vertex
/// that claimed it as parent.
///
/// # Panics
///
/// When a frontier vertex is not a vertex of `graph`, or `state` is for
/// another vertex count.
pub fn top_down_step(
    graph: &Graph,
    state: &SearchState,
    frontier: &[u32],
    level: u32,
) -> StepOutput {
    assert_eq!(state.vertex_count(), graph.vertex_count());
    let csr = graph.out_edges();
    let depth = level + 1;
    let parts: Vec<StepOutput> = frontier
        .par_chunks(TASK_VERTICES)
        .fold(StepOutput::default, |mut acc, chunk| {
            for &u in chunk {
                let neighbors = csr.neighbors(u);
                acc.stats.edges_examined += neighbors.len() as u64;
                for &v in neighbors {
                    if state.claim(v, u, depth) {
                        acc.next.push(v);
                        acc.stats.frontier_out_edges += csr.degree(v);
                    }
                }
            }
            acc
        })
        .collect();
    let mut out = StepOutput {
        next: Vec::with_capacity(parts.iter().map(|p| p.next.len()).sum()),
        stats: StepStats::default(),
    };
    for part in parts {
        out.next.extend_from_slice(&part.next);
        out.stats += part.stats;
    }
    out.stats.frontier_out = out.next.len() as u32;
    out
}
