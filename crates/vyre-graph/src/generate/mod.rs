//! Deterministic graph generators.

mod simple;

pub use simple::{chain, grid_2d, star};
