//! Deterministic graph generators.
//!
//! Every generator returns `Result<Graph, GraphError>`; random ones take a
//! request struct with a seed and give the same graph for the same request
//! on any machine and thread count. Generated graphs are undirected unless
//! a `directed` field says otherwise; self-loops and duplicate edges are
//! removed.

mod kronecker;
pub(crate) mod rng;
mod simple;
mod uniform;
mod union;

pub use kronecker::{KroneckerSpec, kronecker};
pub use simple::{COMPLETE_MAX_VERTICES, chain, complete, grid_2d, star};
pub use uniform::{UniformSpec, uniform_random};
pub use union::disjoint_union;

#[cfg(test)]
mod tests;
