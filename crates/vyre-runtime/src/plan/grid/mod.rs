//! Every grid vyre launches is sized here.
//!
//! - The seed's grid planner ([`ResidentGridPlan::recommend`]): from a queue
//!   length and adapter limits to a workgroup width, a padded slot count, a
//!   worker count and a dispatch grid, behind two bounded plan caches.
//! - The engine's launch shapes (`launch.rs`): what each command's first
//!   level is sized by (vertices, and out-edges for edge-balanced
//!   topologies), the rule later levels of a chain are sized by on the
//!   device ([`vyre_driver::backend::LevelSizing`]), and the width of a fused
//!   launch. Backends apply these; they never size a grid of their own.
//!
//! Modules: `types` (inputs and the plan), `sizing` (the rules),
//! `recommend` (the cached entry point), `plan_cache` and `lru` (the caches),
//! `geometry` (one launch's shape), `launch` (the engine's shapes), `fused`
//! (a fused launch's width and the frontier it covers), `chain` (a long
//! chain's later grid and the frontier it covers).
//!
//! # Guarantees
//!
//! For every `u32` request and every non-zero limit,
//! [`ResidentGridPlan::recommend`] answers a plan whose
//! - width is a power of two within both the width and the invocation limits;
//! - `slot_count >= max(queue_len, 1)` and is a multiple of the width;
//! - grid dimensions are each between 1 and the per-dimension limit;
//! - `worker_groups` is at least 1, within the per-dimension limit, and never
//!   more than a non-zero `requested_worker_groups` (the resident count of a
//!   persistent launch);
//! - lanes x [`ResidentLaunchGeometry::slots_per_lane`] cover `slot_count`,
//!   so no queued slot is left unvisited when the grid is smaller than the
//!   queue.
//!
//! A zero limit is refused with an error ending `Fix: ...`; nothing panics
//! or overflows.
//!
//! # Caches
//!
//! Grid plans (keyed by request and limits) and geometries (keyed by slots,
//! workers and width limit) are each cached in a map of at most 128 entries
//! with least-recently-used eviction; every hit refreshes its entry and
//! errors are never cached. Recency is a linked list through the entries,
//! not a tick counter, so hits, inserts and evictions are O(1) and there is
//! no clock to overflow. Misses matter as much as hits: frontier lengths
//! rarely repeat, so many waves of a search ask for a key not seen before.
//!
//! The caches are **per thread** (`thread_local!`), not shared. A hit is
//! then a hash lookup with no lock, atomic or contention, which keeps the
//! per-wave cost in the nanoseconds: the engine plans every wave on the thread
//! that drives its backend, so that thread's cache warms after the first wave
//! of each shape. The price is that each thread warms its own copy (one miss,
//! well under a microsecond, per key per thread) and holds its own 2 x 128
//! small entries. [`planner_cache_stats`] reports the calling thread's counts.

mod chain;
mod fused;
mod geometry;
mod launch;
mod lru;
mod plan_cache;
mod recommend;
mod sizing;
mod types;

pub(crate) use chain::chain_grid;
pub use chain::{CHAIN_GRID_GROWTH, CHAIN_GRID_GROWTH_DIVISOR, MIN_CHAIN_GRID};
pub(crate) use fused::grid_band_max_frontier_edges;
pub use fused::{FUSED_EDGES_PER_LANE, FUSED_GROWTH};
pub use geometry::ResidentLaunchGeometry;
pub(crate) use launch::{FrontierSize, per_wave_widths, size_launch};
pub use plan_cache::{PlannerCacheStats, planner_cache_stats};
pub use sizing::ResidentSizingPolicy;
pub use types::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};
