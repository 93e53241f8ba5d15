//! vyre's CPU backend: the parallel direction-optimizing BFS steps of
//! `vyre-graph`, driven wave by wave like any device. It is the fallback when
//! no GPU is present and a fast baseline when one is.
//!
//! Queue-form topologies run a top-down step, bitmap-form topologies a
//! bottom-up step; `FusedWave` is refused (the CPU backend reports no
//! device-wide barrier, so the policy never picks it).
//!
//! [`CpuRanks`] is a partitioned device: one graph over several simulated
//! ranks (threads) that exchange each level's frontier through the
//! driver's collective contract, as several GPUs do.
#![forbid(unsafe_code)]

mod backend;
mod batch;
mod capabilities;
mod ranks;

pub use backend::{CpuBackend, CpuOpenRequest};
pub use ranks::{CpuRanks, CpuRanksOpenRequest};
