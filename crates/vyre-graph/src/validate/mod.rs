//! The five Graph500 checks of a BFS result, for any `(depths, parents)`
//! pair, with several sources allowed (each a root: depth 0, its own
//! parent).
//!
//! 1. The parent pointers form a forest without cycles, rooted at sources.
//! 2. Each tree edge joins levels that differ by exactly one.
//! 3. Each stored edge `u -> v` whose ends are both reached has
//!    `depth(v) <= depth(u) + 1` (for symmetric graphs, both directions are
//!    stored, so levels differ by at most one).
//! 4. The tree spans the sources' component: no stored edge leads from a
//!    reached vertex to an unreached one.
//! 5. Each tree edge `parent -> v` is an edge of the graph.
//!
//! Before these, the result must be well formed: arrays of the vertex
//! count, sources in range and roots, reached exactly where a parent is set.

mod checks;
mod error;

pub use checks::validate_bfs;
pub use error::{Graph500Check, ValidationError};

/// What a valid result covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValidationReport {
    /// Vertices reached (sources included).
    pub reached: u64,
    /// Deepest level reached.
    pub max_depth: u32,
    /// Edges within the searched component, by Graph500 counting
    /// ([`teps::searched_edges`](crate::teps::searched_edges)).
    pub searched_edges: u64,
}

#[cfg(test)]
mod tests;
