//! Breadth-first search on the CPU: the serial reference (the oracle), the
//! level steps a level-by-level driver uses, and the parallel
//! direction-optimizing search built from them.

pub mod batch;
mod parallel;
mod reference;
pub mod steps;

pub use parallel::{BfsWorkspace, Direction, ParallelBfsOptions, parallel_bfs, parallel_bfs_in};
pub use reference::{BfsTree, reference_bfs};

#[cfg(test)]
mod tests;
