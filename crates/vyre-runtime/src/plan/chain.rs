//! How many levels one command runs, and the frontier band it stays in.
//!
//! A device without a device-wide barrier can still cut per-level overhead by
//! *chaining*: recording several levels in one submission, each sized on the
//! device by the previous one, with one readback at the end. The engine
//! chains queue-form topologies when the last level spent most of its time on
//! launch and readback (fusion pressure at least [`CHAIN_PRESSURE`], and
//! launch overhead at least the policy's `LAUNCH_PRESSURE_BPS` of the
//! dispatch cost),
//! doubling the chain up to [`MAX_CHAIN_LEVELS`] while that holds, from the
//! levels the last command actually ran (a chain that stopped early is not
//! doubled, so levels recorded past a stop stay few). Two more places get
//! a [`SHORT_CHAIN_LEVELS`] chain before anything measured them
//! launch-bound: the search's first command, whose frontier is the sources,
//! and a command whose frontier's out-edges shrank at least
//! [`TAIL_SHRINK`]-fold over the last level (the search's tail, where the
//! level after it is smaller still). Bitmap
//! topologies do work proportional to the vertex count every level, so launch
//! overhead rarely dominates them; they run one level per command.
//!
//! A multi-level command (chain or fused) stops early when the frontier's
//! out-edges reach the edge of the density band its topology was chosen for,
//! so that the policy can re-plan: the band's upper edge is the next
//! topology's threshold plus the policy's hysteresis.

use vyre_driver::backend::{FrontierForm, frontier_form_of};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_driver::megakernel_execution::thresholds::{
    DENSE_DENSITY, HYBRID_HOLD_UNDER_DENSE_DENSITY, LAUNCH_PRESSURE_BPS, SPARSE_HOLD_DENSITY,
    WARP_SPARSE_HOLD_DENSITY,
};

use crate::engine::ChainMode;
use crate::engine::telemetry::SearchTelemetry;

/// Longest chain of per-wave levels in one submission: long enough that a
/// command's fixed cost is a small share of each level (docs/BENCHMARKS.md
/// has the measurements).
pub const MAX_CHAIN_LEVELS: u32 = 256;

/// Most levels one fused launch runs before returning to the host.
pub const MAX_FUSED_LEVELS: u32 = 1024;

/// Levels of the chains of a search's first command and of its tail.
pub const SHORT_CHAIN_LEVELS: u32 = 2;

/// How many times fewer out-edges the frontier must have than the last
/// level's for the search to be in its tail.
pub const TAIL_SHRINK: f64 = 16.0;

/// Launch overhead, as a share of the dispatch cost, from which a chain pays.
const CHAIN_LAUNCH_OVERHEAD_SHARE: f64 = LAUNCH_PRESSURE_BPS as f64 / 10_000.0;

/// Share of a level's time spent on launch and readback from which its
/// command is chained: most of it. Lower than the policy's
/// `FUSION_PRESSURE`, which switches topology: a chained level adds one
/// dispatch behind a barrier (under 2 µs measured) where a command of its
/// own costs tens of µs, and at 0.7 sparse levels on a grid, near that
/// line, chained in one run and not in the next (docs/BENCHMARKS.md has
/// the measurements).
pub const CHAIN_PRESSURE: f64 = 0.5;

/// Upper density edge of the band each topology is chosen for: the density
/// up to which the policy's hysteresis holds it.
fn band_upper_density(topology: MegakernelExecutionTopology) -> f64 {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => WARP_SPARSE_HOLD_DENSITY,
        MegakernelExecutionTopology::SparseFrontier => SPARSE_HOLD_DENSITY,
        MegakernelExecutionTopology::HybridFrontier => HYBRID_HOLD_UNDER_DENSE_DENSITY,
        // A fused wave hands over once a dense topology would win.
        MegakernelExecutionTopology::FusedWave => DENSE_DENSITY,
        MegakernelExecutionTopology::DenseFrontier
        | MegakernelExecutionTopology::BlockDenseFrontier => 1.0,
    }
}

/// Whether a fused command started on a frontier of `density` would begin
/// inside its band. Every fused kernel expands top-down, so one started past
/// the band's edge would run a top-down level where a bottom-up one examines
/// a fraction of the edges, and only then hand over.
pub(crate) fn fused_band_admits(density: f64) -> bool {
    density < band_upper_density(MegakernelExecutionTopology::FusedWave)
}

/// How long the next chain of one search may be: it doubles while launch
/// overhead dominates, from the levels the last command actually ran.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainLength {
    current: u32,
}

impl ChainLength {
    pub(crate) fn new() -> Self {
        Self { current: 1 }
    }

    /// Levels the next command of `topology` may run.
    pub(crate) fn levels(
        &mut self,
        mode: ChainMode,
        topology: MegakernelExecutionTopology,
        telemetry: &SearchTelemetry,
        launch_overhead_ns: f64,
    ) -> u32 {
        if topology == MegakernelExecutionTopology::FusedWave {
            return MAX_FUSED_LEVELS;
        }
        if frontier_form_of(topology) == FrontierForm::Bitmap {
            return 1;
        }
        match mode {
            ChainMode::Off => 1,
            ChainMode::Levels(n) => n.clamp(1, MAX_CHAIN_LEVELS),
            ChainMode::Auto => {
                let cost = telemetry.dispatch_cost_ns();
                let overhead_dominates = telemetry.fusion_pressure() >= CHAIN_PRESSURE
                    && cost > 0.0
                    && launch_overhead_ns / cost >= CHAIN_LAUNCH_OVERHEAD_SHARE;
                let short = telemetry.is_blind() || telemetry.shrink() >= TAIL_SHRINK;
                self.current = if overhead_dominates {
                    (self.current * 2).min(MAX_CHAIN_LEVELS)
                } else if short {
                    SHORT_CHAIN_LEVELS
                } else {
                    1
                };
                self.current
            }
        }
    }

    /// Note how many levels the last command ran: the next chain grows from
    /// there, not from what was allowed.
    pub(crate) fn ran(&mut self, levels: u32) {
        self.current = self.current.min(levels.max(1));
    }

    /// Frontier out-edges above which a multi-level command of `topology`
    /// stops.
    pub(crate) fn band_max_frontier_edges(
        topology: MegakernelExecutionTopology,
        levels: u32,
        telemetry: &SearchTelemetry,
    ) -> u64 {
        if levels <= 1 {
            return u64::MAX;
        }
        telemetry.frontier_edges_at_density(band_upper_density(topology))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::telemetry::at;
    use vyre_driver::backend::{LevelRecord, WaveReport};

    const WARP_SPARSE: MegakernelExecutionTopology =
        MegakernelExecutionTopology::WarpSparseFrontier;

    /// Telemetry after commands whose levels took 12 µs of wall and 1 µs on
    /// the device each: launch-bound.
    fn launch_bound() -> SearchTelemetry {
        let mut t = SearchTelemetry::start(1 << 20, 1 << 22, at(1, 4));
        for _ in 0..2 {
            observe_level(&mut t, 4, 8, 12_000, 1_000);
        }
        t
    }

    /// Fold into `t` a one-level command over `edges` frontier out-edges
    /// whose next frontier has `next_edges`, which took `wall_ns` of wall
    /// and `device_ns` on the device.
    fn observe_level(
        t: &mut SearchTelemetry,
        edges: u64,
        next_edges: u64,
        wall_ns: u64,
        device_ns: u64,
    ) {
        let report = WaveReport {
            levels: vec![LevelRecord {
                frontier_in: 1,
                frontier_out: 2,
                frontier_out_edges: next_edges,
                edges_examined: edges,
                device_ns: Some(device_ns),
                ..LevelRecord::default()
            }],
            wall_ns,
            device_ns: Some(device_ns),
            readback_bytes: 0,
        };
        t.observe(WARP_SPARSE, &report, 9_000.0);
    }

    #[test]
    fn chains_double_up_to_the_cap_while_launch_bound() {
        let t = launch_bound();
        let mut chains = ChainLength::new();
        let lengths: Vec<u32> = (0..10)
            .map(|_| chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0))
            .collect();
        assert_eq!(lengths, [2, 4, 8, 16, 32, 64, 128, 256, 256, 256]);
    }

    #[test]
    fn a_chain_that_stopped_early_grows_from_what_it_ran() {
        let t = launch_bound();
        let mut chains = ChainLength::new();
        for _ in 0..8 {
            chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0);
        }
        chains.ran(3);
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 6);
        // A full chain does not shrink the next one.
        chains.ran(6);
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 12);
    }

    /// Telemetry after one level of `edges` frontier out-edges that took
    /// 40 µs of wall and 30 µs on the device (kernel-bound), at a frontier
    /// of `next_edges`.
    fn kernel_bound(edges: u64, next_edges: u64) -> SearchTelemetry {
        let mut t = SearchTelemetry::start(1 << 20, 1 << 22, at(1, edges));
        observe_level(&mut t, edges, next_edges, 40_000, 30_000);
        t
    }

    #[test]
    fn the_first_command_and_the_tail_run_short_chains() {
        let mut chains = ChainLength::new();
        let blind = SearchTelemetry::start(1 << 20, 1 << 22, at(1, 4));
        assert_eq!(
            chains.levels(ChainMode::Auto, WARP_SPARSE, &blind, 9_000.0),
            2
        );
        let shrunk = kernel_bound(16_000, 1_000);
        assert_eq!(
            chains.levels(ChainMode::Auto, WARP_SPARSE, &shrunk, 9_000.0),
            2
        );
        let shrinking_slowly = kernel_bound(16_000, 1_001);
        assert_eq!(
            chains.levels(ChainMode::Auto, WARP_SPARSE, &shrinking_slowly, 9_000.0),
            1
        );
        assert_eq!(
            chains.levels(ChainMode::Off, WARP_SPARSE, &blind, 9_000.0),
            1
        );
    }

    #[test]
    fn a_level_mostly_spent_on_launch_and_readback_is_chained() {
        // 40 us of wall, 25 on the device, 9 of it the launch's fixed cost:
        // 16 us of work against 24 of overhead (a share of 0.6).
        let mut t = SearchTelemetry::start(1 << 20, 1 << 22, at(1, 1_000));
        observe_level(&mut t, 1_000, 1_000, 40_000, 25_000);
        assert!((t.fusion_pressure() - 0.6).abs() < 1e-12);
        let mut chains = ChainLength::new();
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 2);
    }

    #[test]
    fn kernel_bound_levels_and_bitmaps_run_one_level() {
        let t = kernel_bound(1_000, 1_000);
        let mut chains = ChainLength::new();
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 1);
        let dense = MegakernelExecutionTopology::DenseFrontier;
        assert_eq!(chains.levels(ChainMode::Levels(64), dense, &t, 9_000.0), 1);
        assert_eq!(
            chains.levels(ChainMode::Levels(10_000), WARP_SPARSE, &t, 9_000.0),
            MAX_CHAIN_LEVELS
        );
    }
}
