//! The two level steps of a direction-optimizing BFS, over a shared search
//! state, for callers that drive a search level by level (the `cpu`
//! backend, and [`parallel_bfs`](super::parallel_bfs)).
//!
//! A level step reads the current frontier and claims every unreached
//! vertex it finds, giving it depth `level + 1` and a parent in the current
//! frontier. Top-down pushes from a frontier queue along out-edges;
//! bottom-up lets each unreached vertex look for a parent among its
//! in-edges in a frontier bitmap.

mod bitmap;
mod bottom_up;
mod state;
mod top_down;

pub use bitmap::{FrontierBitmap, bitmap_to_queue, queue_to_bitmap};
pub use bottom_up::bottom_up_step;
pub use state::SearchState;
pub use top_down::{StepOutput, top_down_step};

use std::ops::AddAssign;

/// What one level step measured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// Vertices discovered by this step (the next frontier's size).
    pub frontier_out: u32,
    /// Sum of the out-degrees of the newly discovered vertices: the edges a
    /// top-down step from the next frontier would examine.
    pub frontier_out_edges: u64,
    /// Edges this step looked at (out-edges of the frontier top-down;
    /// in-edges scanned until a parent was found, bottom-up).
    pub edges_examined: u64,
}

impl AddAssign for StepStats {
    fn add_assign(&mut self, other: Self) {
        self.frontier_out += other.frontier_out;
        self.frontier_out_edges += other.frontier_out_edges;
        self.edges_examined += other.edges_examined;
    }
}

#[cfg(test)]
mod tests;
