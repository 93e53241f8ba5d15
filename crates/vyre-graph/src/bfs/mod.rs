//! Breadth-first search on the CPU.

mod reference;

pub use reference::{BfsTree, reference_bfs};
