//! Graphs for vyre: compressed sparse rows, file loaders, generators, the
//! reference BFS every backend is checked against, and Graph500 validation.
//!
//! Vertex ids are `u32`; edge offsets are `u64`. Nothing in this crate knows
//! about GPUs.
#![forbid(unsafe_code)]

pub mod bfs;
pub mod build;
pub mod csr;
pub mod error;
pub mod generate;
pub mod load;
pub mod save;
pub mod spec;
pub mod teps;
pub mod validate;

pub use csr::{Csr, Graph};
pub use error::GraphError;

/// Depth (and parent) value of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;
