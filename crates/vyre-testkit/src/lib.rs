//! Test helpers shared by the backends that run vyre's WGSL kernels (wgpu
//! and Vulkan): a small test-only wave loop whose commands go through
//! `WaveCommand::check`, graph shapes, and checks against the reference
//! BFS, down to each level's counts and grid. Backends must not depend on
//! the engine (vyre-runtime), so the loop here stands in for it: its
//! launches follow the engine's rules, not its policy.
//!
//! - `command`: a command's launch and its check by the driver;
//! - `search`: the wave loop ([`Waves`]) and whole searches ([`search`]);
//! - `reference`: checks against the reference BFS ([`Reference`]);
//! - `graphs`: random graphs and the [`corpus`] of shapes;
//! - [`shapes`], [`suites`], [`batch`]: shapes by name, the suites both
//!   backends run, batch passes; `macros`: the `#[test]` declarations of
//!   the suites.
#![forbid(unsafe_code)]

pub mod batch;
pub mod shapes;
pub mod suites;

mod command;
mod graphs;
mod macros;
mod reference;
mod search;

pub use command::*;
pub use graphs::*;
pub use reference::*;
pub use search::*;

use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

/// The five per-wave topologies.
pub const TOPOLOGIES: [T; 5] = [
    T::WarpSparseFrontier,
    T::SparseFrontier,
    T::HybridFrontier,
    T::DenseFrontier,
    T::BlockDenseFrontier,
];

/// The topologies that push from the frontier: they examine exactly its
/// out-edges.
pub const TOP_DOWN: [T; 3] = [T::WarpSparseFrontier, T::SparseFrontier, T::HybridFrontier];

/// How often the stress-worthy tests repeat their searches:
/// `VYRE_STRESS_REPEATS` (default 1). Every repetition checks every level.
#[must_use]
pub fn repeats() -> usize {
    std::env::var("VYRE_STRESS_REPEATS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Whether `VYRE_REQUIRE_BACKENDS` names `backend` (CI): then a missing
/// device fails instead of skipping.
#[must_use]
pub fn required(backend: &str) -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .is_ok_and(|list| list.split(',').any(|b| b.trim() == backend))
}
