//! Relabelling by degree: the highest-degree vertex becomes 0, and every
//! row lists its neighbours by new id, so highest degree first.

use std::cmp::Reverse;

use rayon::prelude::*;

use super::Relabelling;
use crate::memory::{MemoryLimit, check, try_with_capacity, try_zeroed};
use crate::{Csr, Graph, GraphError};

/// Edges a parallel task of the row rewrite takes at least.
const EDGES_PER_TASK: u64 = 1 << 16;

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

/// Out-degree plus in-degree of `v` (twice the degree when symmetric, the
/// same order).
fn degree(graph: &Graph, v: u32) -> u64 {
    graph.out_edges().degree(v) + graph.in_edges().degree(v)
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
    let csrs = if graph.is_symmetric() { 1 } else { 2 };
    let needed = csrs * (graph.edge_count() * 4 + (n as u64 + 1) * 8) + n as u64 * 16;
    check(limit, needed, || {
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
    let out = relabel_csr(graph.out_edges(), &relabelling)?;
    let relabelled = if graph.is_symmetric() {
        Graph::symmetric(out)
    } else {
        Graph::directed(out, relabel_csr(graph.in_edges(), &relabelling)?)?
    };
    Ok((relabelled, relabelling))
}

/// `csr` with rows and targets in the new numbering, each row sorted.
fn relabel_csr(csr: &Csr, map: &Relabelling) -> Result<Csr, GraphError> {
    let n = csr.vertex_count() as usize;
    let mut offsets: Vec<u64> = try_with_capacity(n + 1, || "relabelled offsets".into())?;
    offsets.push(0);
    let mut total = 0;
    for &old in &map.old_of_new {
        total += csr.degree(old);
        offsets.push(total);
    }
    let mut targets: Vec<u32> =
        try_zeroed(csr.edge_count() as usize, || "relabelled edges".into())?;
    // Rows in runs of at least EDGES_PER_TASK edges, each run a task.
    let mut runs = Vec::new();
    let mut rest = targets.as_mut_slice();
    let mut first = 0usize;
    while first < n {
        let mut last = first + 1;
        while last < n && offsets[last] - offsets[first] < EDGES_PER_TASK {
            last += 1;
        }
        let len = (offsets[last] - offsets[first]) as usize;
        let (run, tail) = std::mem::take(&mut rest).split_at_mut(len);
        runs.push((first..last, run));
        rest = tail;
        first = last;
    }
    runs.into_par_iter().for_each(|(rows, run)| {
        let base = offsets[rows.start];
        for new in rows {
            let row = &mut run[(offsets[new] - base) as usize..(offsets[new + 1] - base) as usize];
            let old = map.old_of_new[new];
            for (slot, &t) in row.iter_mut().zip(csr.neighbors(old)) {
                *slot = map.new_of_old[t as usize];
            }
            row.sort_unstable();
        }
    });
    Csr::from_parts(offsets, targets)
}
