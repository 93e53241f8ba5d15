//! Building a [`Graph`] from an edge list.

use crate::{Csr, Graph, GraphError};

/// How an edge list becomes a graph.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct BuildOptions {
    /// Store every edge in both directions (an undirected graph).
    pub symmetrize: bool,
    /// Drop edges from a vertex to itself.
    pub remove_self_loops: bool,
    /// Keep one copy of each repeated edge.
    pub remove_duplicates: bool,
}

impl BuildOptions {
    /// Undirected, no self-loops, no duplicates: what BFS benchmarks use.
    pub const UNDIRECTED: Self = Self {
        symmetrize: true,
        remove_self_loops: true,
        remove_duplicates: true,
    };
    /// Directed, no self-loops, no duplicates.
    pub const DIRECTED: Self = Self {
        symmetrize: false,
        remove_self_loops: true,
        remove_duplicates: true,
    };
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self::UNDIRECTED
    }
}

/// Build a graph of `vertex_count` vertices from `(source, target)` pairs.
///
/// Adjacency lists come out sorted. A directed graph also gets its reverse
/// CSR.
///
/// # Errors
///
/// [`GraphError::InvalidCsr`] when an endpoint is not below `vertex_count`.
pub fn build_graph(
    vertex_count: u32,
    edges: &[(u32, u32)],
    options: BuildOptions,
) -> Result<Graph, GraphError> {
    if let Some(&(u, v)) = edges
        .iter()
        .find(|&&(u, v)| u >= vertex_count || v >= vertex_count)
    {
        return Err(GraphError::InvalidCsr {
            reason: format!("edge ({u}, {v}) has an endpoint not below {vertex_count}"),
        });
    }
    let keep = |&&(u, v): &&(u32, u32)| !(options.remove_self_loops && u == v);
    let out = if options.symmetrize {
        let both = edges.iter().filter(keep).flat_map(|&(u, v)| {
            [(u, v), (v, u)]
                .into_iter()
                .take(if u == v { 1 } else { 2 })
        });
        csr_from(vertex_count, both, options.remove_duplicates)
    } else {
        csr_from(
            vertex_count,
            edges.iter().filter(keep).copied(),
            options.remove_duplicates,
        )
    };
    if options.symmetrize {
        return Ok(Graph::symmetric(out));
    }
    let reverse = transpose(&out);
    Graph::directed(out, reverse)
}

/// The reverse (in-edge) CSR of `csr`, adjacency sorted.
#[must_use]
pub fn transpose(csr: &Csr) -> Csr {
    let n = csr.vertex_count();
    let pairs = (0..n).flat_map(|u| csr.neighbors(u).iter().map(move |&v| (v, u)));
    csr_from(n, pairs, false)
}

fn csr_from(
    vertex_count: u32,
    pairs: impl Iterator<Item = (u32, u32)> + Clone,
    dedup: bool,
) -> Csr {
    let n = vertex_count as usize;
    let mut counts = vec![0u64; n + 1];
    for (u, _) in pairs.clone() {
        counts[u as usize + 1] += 1;
    }
    for i in 0..n {
        counts[i + 1] += counts[i];
    }
    let mut cursor = counts.clone();
    let mut targets = vec![0u32; counts[n] as usize];
    for (u, v) in pairs {
        targets[cursor[u as usize] as usize] = v;
        cursor[u as usize] += 1;
    }
    let mut offsets = vec![0u64; n + 1];
    let mut write = 0usize;
    for u in 0..n {
        let (start, end) = (counts[u] as usize, counts[u + 1] as usize);
        targets[start..end].sort_unstable();
        for i in start..end {
            if dedup && write > offsets[u] as usize && targets[write - 1] == targets[i] {
                continue;
            }
            targets[write] = targets[i];
            write += 1;
        }
        offsets[u + 1] = write as u64;
    }
    targets.truncate(write);
    Csr::from_parts(offsets, targets).expect("counting sort produces a valid CSR")
}
