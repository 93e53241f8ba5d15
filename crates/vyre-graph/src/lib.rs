//! Graphs for vyre: compressed sparse rows, file loaders, generators, the
//! reference BFS every backend is checked against, and Graph500 validation.
//!
//! - [`Csr`] / [`Graph`]: the layout every backend uploads; [`build`] makes
//!   it from edges (parallel counting sort, in-place dedup).
//! - [`load`] / [`save`]: Matrix Market, SNAP edge lists (gzip or not) and a
//!   checksummed binary CSR, with typed [`load::LoadError`]s.
//! - [`generate`]: Kronecker, uniform random, grids, chains, stars,
//!   complete graphs and disjoint unions, deterministic by seed.
//! - [`spec`]: graphs named by strings such as `kron:22` or a path.
//! - [`bfs`]: the serial reference, the level steps a backend drives, and
//!   a parallel direction-optimizing BFS.
//! - [`validate`] / [`teps`]: Graph500's five checks and TEPS counting.
//! - [`partition`]: a 1-D partition of the vertices across ranks (GPUs)
//!   balanced by edges, each rank's rows, and its part of a search.
//! - [`memory`]: host memory limits; builds and loads check their
//!   estimated peak against them and allocate fallibly.
//!
//! Vertex ids are `u32` ([`UNREACHED`] = `u32::MAX` marks unreached
//! vertices, so ids go up to `u32::MAX - 1`); edge offsets are `u64`.
//! Nothing in this crate knows about GPUs.
#![forbid(unsafe_code)]

pub mod bfs;
pub mod build;
pub mod csr;
pub mod error;
pub mod generate;
pub mod load;
pub mod memory;
pub mod partition;
pub mod relabel;
pub mod save;
pub mod spec;
pub mod teps;
pub mod validate;

pub use csr::{Csr, Graph};
pub use error::{CsrDefect, GraphError};

/// Depth (and parent) value of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;
