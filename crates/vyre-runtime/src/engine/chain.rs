//! How many levels one command runs, and the frontier band it stays in.
//!
//! A device without a device-wide barrier can still cut per-level overhead by
//! *chaining*: recording several levels in one submission, each sized on the
//! device by the previous one, with one readback at the end. The engine
//! chains queue-form topologies when the last level spent most of its time on
//! launch and readback (the same thresholds the policy uses for fusion:
//! fusion pressure ≥ 0.70 and launch overhead ≥ 15% of the dispatch cost),
//! doubling the chain up to [`MAX_CHAIN_LEVELS`] while that holds, from the
//! levels the last command actually ran (a chain that stopped early is not
//! doubled, so levels recorded past a stop stay few). Bitmap
//! topologies do work proportional to the vertex count every level, so launch
//! overhead rarely dominates them; they run one level per command.
//!
//! A multi-level command (chain or fused) stops early when the frontier's
//! out-edges reach the edge of the density band its topology was chosen for,
//! so that the policy can re-plan: the band's upper edge is the next
//! topology's threshold plus the policy's hysteresis.

use vyre_driver::backend::{FrontierForm, frontier_form_of};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use super::request::ChainMode;
use super::telemetry::SearchTelemetry;

/// Longest chain of per-wave levels in one submission. On the H200 a wgpu
/// chain of 64 levels still spent a quarter of its time per level on the
/// command's fixed cost (17.2 µs per level against 12.9 µs at 256).
pub const MAX_CHAIN_LEVELS: u32 = 256;

/// Most levels one fused launch runs before returning to the host.
pub const MAX_FUSED_LEVELS: u32 = 1024;

const CHAIN_FUSION_PRESSURE: f64 = 0.70;
const CHAIN_LAUNCH_OVERHEAD_SHARE: f64 = 0.15;

/// Upper density edge of the band each topology is chosen for (the policy's
/// next threshold plus its 0.025 frontier hysteresis).
fn band_upper_density(topology: MegakernelExecutionTopology) -> f64 {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => 0.031_25 + 0.025,
        MegakernelExecutionTopology::SparseFrontier => 0.125 + 0.025,
        MegakernelExecutionTopology::HybridFrontier => 0.70 + 0.025,
        // A fused wave hands over once a dense topology would win.
        MegakernelExecutionTopology::FusedWave => 0.70,
        MegakernelExecutionTopology::DenseFrontier
        | MegakernelExecutionTopology::BlockDenseFrontier => 1.0,
    }
}

/// Chain length state for one search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainPlanner {
    current: u32,
}

impl ChainPlanner {
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
                let overhead_dominates = telemetry.fusion_pressure() >= CHAIN_FUSION_PRESSURE
                    && cost > 0.0
                    && launch_overhead_ns / cost >= CHAIN_LAUNCH_OVERHEAD_SHARE;
                self.current = if overhead_dominates {
                    (self.current * 2).min(MAX_CHAIN_LEVELS)
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
    use vyre_driver::backend::{LevelRecord, WaveReport};

    const WARP_SPARSE: MegakernelExecutionTopology =
        MegakernelExecutionTopology::WarpSparseFrontier;

    /// Telemetry after commands whose levels took 12 µs of wall and 1 µs on
    /// the device each: launch-bound.
    fn launch_bound() -> SearchTelemetry {
        let mut t = SearchTelemetry::start(1 << 20, 1 << 22, 1, 4);
        for _ in 0..2 {
            let report = WaveReport {
                levels: vec![LevelRecord {
                    frontier_in: 1,
                    frontier_out: 2,
                    frontier_out_edges: 8,
                    edges_examined: 4,
                    device_ns: Some(1_000),
                    ..LevelRecord::default()
                }],
                frontier: None,
                wall_ns: 12_000,
                device_ns: Some(1_000),
                readback_bytes: 0,
            };
            t.observe(&report, 9_000.0);
        }
        t
    }

    #[test]
    fn chains_double_up_to_the_cap_while_launch_bound() {
        let t = launch_bound();
        let mut chains = ChainPlanner::new();
        let lengths: Vec<u32> = (0..10)
            .map(|_| chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0))
            .collect();
        assert_eq!(lengths, [2, 4, 8, 16, 32, 64, 128, 256, 256, 256]);
    }

    #[test]
    fn a_chain_that_stopped_early_grows_from_what_it_ran() {
        let t = launch_bound();
        let mut chains = ChainPlanner::new();
        for _ in 0..8 {
            chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0);
        }
        chains.ran(3);
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 6);
        // A full chain does not shrink the next one.
        chains.ran(6);
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 12);
    }

    #[test]
    fn kernel_bound_levels_and_bitmaps_run_one_level() {
        let t = SearchTelemetry::start(1 << 20, 1 << 22, 1, 4);
        let mut chains = ChainPlanner::new();
        assert_eq!(chains.levels(ChainMode::Auto, WARP_SPARSE, &t, 9_000.0), 1);
        let dense = MegakernelExecutionTopology::DenseFrontier;
        assert_eq!(chains.levels(ChainMode::Levels(64), dense, &t, 9_000.0), 1);
        assert_eq!(
            chains.levels(ChainMode::Levels(10_000), WARP_SPARSE, &t, 9_000.0),
            MAX_CHAIN_LEVELS
        );
    }
}
