//! vyre's CPU backend: the parallel direction-optimizing BFS steps of
//! `vyre-graph`, driven wave by wave like any device. It is the fallback when
//! no GPU is present and a fast baseline when one is.
//!
//! Queue-form topologies run a top-down step, bitmap-form topologies a
//! bottom-up step; `FusedWave` is refused (the CPU backend reports no
//! device-wide barrier, so the policy never picks it).
#![forbid(unsafe_code)]

mod backend;
mod batch;
mod capabilities;

pub use backend::{CpuBackend, CpuOpenRequest};
