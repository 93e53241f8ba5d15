//! The host memory a build needs at its peak, known before it starts.

use super::{BuildOptions, scatter};

/// A build's size, for bounding its memory before it allocates any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildFootprint {
    /// Vertices.
    pub vertices: u64,
    /// Edges the source yields, before symmetrizing and removals.
    pub edges: u64,
    /// How they are built: symmetrizing stores each edge twice; a directed
    /// graph also gets a reverse CSR.
    pub options: BuildOptions,
}

impl BuildFootprint {
    /// The most bytes the build holds at once, its result included and its
    /// input (the edge source) not: an upper bound, since it counts every
    /// stored copy before duplicates are removed.
    #[must_use]
    pub fn peak_bytes(&self) -> u64 {
        let (n, m) = (self.vertices, self.edges);
        let forward = scatter::peak_bytes(n, m, self.options);
        if self.options.symmetrize {
            return forward;
        }
        // The out-edge CSR (at most one target per edge) is held while
        // its reverse is built the same way, from as many edges.
        let out_edges = n
            .saturating_add(1)
            .saturating_mul(8)
            .saturating_add(m.saturating_mul(4));
        out_edges.saturating_add(forward)
    }
}
