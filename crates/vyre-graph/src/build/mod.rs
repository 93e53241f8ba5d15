//! Building a [`Graph`] from an edge list.
//!
//! The build is a parallel counting sort into preallocated arrays: one pass
//! counts degrees, one scatters targets, then every row is sorted and
//! deduplicated in place and the rows are compacted. Besides the finished CSR
//! it holds one `u64` cursor per vertex and bounded per-chunk buckets, so a
//! graph of `m` stored edges and `n` vertices peaks near `4m + 16n` bytes
//! plus the input ([`BuildFootprint`] gives the bound). Its large arrays are
//! allocated fallibly: a refusal is [`GraphError::OutOfMemory`].

mod footprint;
mod rows;
mod scatter;
mod source;

pub use footprint::BuildFootprint;
pub use source::{EdgeSource, ReversedCsr};

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
/// CSR. With `symmetrize`, a self-loop (when kept) is stored once.
///
/// # Errors
///
/// [`GraphError::InvalidCsr`] when an endpoint is not below `vertex_count`.
pub fn build_graph(
    vertex_count: u32,
    edges: &[(u32, u32)],
    options: BuildOptions,
) -> Result<Graph, GraphError> {
    build_graph_from(vertex_count, edges, options)
}

/// [`build_graph`] over any [`EdgeSource`], e.g. a generator that recomputes
/// its edges instead of storing them (it is read twice).
///
/// # Errors
///
/// [`GraphError::InvalidCsr`] when an endpoint is not below `vertex_count`,
/// [`GraphError::TooLarge`] when the edge count does not fit this machine's
/// address space, [`GraphError::OutOfMemory`] when an array cannot be
/// allocated.
pub fn build_graph_from<S: EdgeSource + ?Sized>(
    vertex_count: u32,
    edges: &S,
    options: BuildOptions,
) -> Result<Graph, GraphError> {
    let out = build_csr(vertex_count, edges, options)?;
    if options.symmetrize {
        return Ok(Graph::symmetric(out));
    }
    let reverse = transpose(&out)?;
    Graph::directed(out, reverse)
}

/// The reverse (in-edge) CSR of `csr`, adjacency sorted.
///
/// # Errors
///
/// [`GraphError::OutOfMemory`] when its arrays cannot be allocated (a
/// valid CSR's reversal is otherwise always valid).
pub fn transpose(csr: &Csr) -> Result<Csr, GraphError> {
    let keep_all = BuildOptions {
        symmetrize: false,
        remove_self_loops: false,
        remove_duplicates: false,
    };
    build_csr(csr.vertex_count(), &ReversedCsr(csr), keep_all)
}

/// The out-edge CSR of an edge source under `options`.
pub(crate) fn build_csr<S: EdgeSource + ?Sized>(
    vertex_count: u32,
    edges: &S,
    options: BuildOptions,
) -> Result<Csr, GraphError> {
    let scattered = scatter::scatter(vertex_count, edges, options)?;
    let (offsets, targets) = rows::finish_rows(scattered, options.remove_duplicates);
    Ok(Csr::from_built(offsets, targets))
}

#[cfg(test)]
mod tests;
