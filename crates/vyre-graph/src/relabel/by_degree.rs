//! Relabelling by degree: the highest-degree vertex becomes 0, and every
//! row lists its neighbours by new id, so highest degree first.

use std::cmp::Reverse;

use rayon::prelude::*;

use super::Relabelling;
use super::rewrite::{copy_bytes, degree, relabelled_graph};
use crate::memory::{MemoryLimit, check, try_with_capacity, try_zeroed};
use crate::{Graph, GraphError};

/// The share of edge endpoints (out-degree plus in-degree) held by the
/// `fraction` of vertices with the highest degree: about `fraction` on
/// grids, roads and uniform random graphs, and most of the edges on
/// power-law graphs.
#[must_use]
pub fn top_degree_share(graph: &Graph, fraction: f64) -> f64 {
    let n = graph.vertex_count() as usize;
    if n == 0 || graph.edge_count() == 0 {
        return 0.0;
    }
    let mut degrees: Vec<u64> = (0..n as u32)
        .into_par_iter()
        .map(|v| degree(graph, v))
        .collect();
    let top = ((n as f64 * fraction).ceil() as usize).clamp(1, n);
    let (_, _, rest) = degrees.select_nth_unstable_by_key(n - top, |&d| d);
    let held: u64 = rest.iter().sum::<u64>() + degrees[n - top];
    held as f64 / (2 * graph.edge_count()) as f64
}

/// `graph` with its vertices renumbered by degree, highest first (ties keep
/// their order), and each row sorted by new id; with the relabelling that
/// maps results back. Checks the copy's size against `limit` before
/// allocating it.
///
/// # Errors
///
/// [`GraphError::OutOfMemory`] when the relabelled copy does not fit.
pub fn relabel_by_degree(
    graph: &Graph,
    limit: Option<&MemoryLimit>,
) -> Result<(Graph, Relabelling), GraphError> {
    let n = graph.vertex_count() as usize;
    check(limit, copy_bytes(graph), || {
        "the graph relabelled by degree (loading it in the given order needs no copy)".to_string()
    })?;

    let mut old_of_new: Vec<u32> = try_with_capacity(n, || "the relabelling".into())?;
    old_of_new.extend(0..n as u32);
    old_of_new.par_sort_unstable_by_key(|&v| (Reverse(degree(graph, v)), v));
    let mut new_of_old: Vec<u32> = try_zeroed(n, || "the relabelling".into())?;
    for (new, &old) in old_of_new.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    let relabelling = Relabelling {
        new_of_old,
        old_of_new,
    };
    Ok((relabelled_graph(graph, &relabelling)?, relabelling))
}
