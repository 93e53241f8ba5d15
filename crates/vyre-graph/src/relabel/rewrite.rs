//! A relabelled copy of a graph: every row renamed and sorted by new id.

use rayon::prelude::*;

use super::Relabelling;
use crate::memory::{try_with_capacity, try_zeroed};
use crate::{Csr, Graph, GraphError};

/// Edges a parallel task of the row rewrite takes at least.
const EDGES_PER_TASK: u64 = 1 << 16;

/// Out-degree plus in-degree of `v` (twice the degree when symmetric, the
/// same order).
pub(super) fn degree(graph: &Graph, v: u32) -> u64 {
    graph.out_edges().degree(v) + graph.in_edges().degree(v)
}

/// Host bytes a relabelled copy of `graph` takes: its CSRs and both maps.
pub(super) fn copy_bytes(graph: &Graph) -> u64 {
    let n = u64::from(graph.vertex_count());
    let csrs = if graph.is_symmetric() { 1 } else { 2 };
    csrs * (graph.edge_count() * 4 + (n + 1) * 8) + n * 16
}

/// `graph` in the numbering of `map`, each row sorted by new id.
pub(super) fn relabelled_graph(graph: &Graph, map: &Relabelling) -> Result<Graph, GraphError> {
    let out = relabel_csr(graph.out_edges(), map)?;
    if graph.is_symmetric() {
        Ok(Graph::symmetric(out))
    } else {
        Graph::directed(out, relabel_csr(graph.in_edges(), map)?)
    }
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
