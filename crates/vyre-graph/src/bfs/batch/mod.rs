//! Batched BFS on the CPU: up to 64 independent searches in one pass, one
//! bit per search ("lane") in a 64-bit word per vertex and state. The level
//! steps mirror the single search's: [`BatchState::push`] (top-down, from a
//! queue of the vertices with any lane active) and [`BatchState::pull`]
//! (bottom-up, every vertex not yet seen by every lane gathers the lanes of
//! its in-neighbours' frontier words).
//!
//! Frontier words live in one of two word arrays, alternating by level; a
//! push consumes (zeroes) its frontier words and ORs into the other array,
//! a pull writes every word of the other array. A pull therefore leaves its
//! source array dirty; [`BatchState::push`] clears a dirty target first.

mod state;
mod steps;

pub use state::BatchState;
pub use steps::{BatchStep, LANES};

#[cfg(test)]
mod tests;
