//! What the last wave measured, turned into the next wave's policy inputs.
//!
//! **Frontier density.** The policy's bands (sparse ≤ 0.125, dense ≥ 0.70)
//! need a density that says which direction is cheaper. vyre uses
//!
//! ```text
//! d = m_f / (m_f + m_u / 35 + n / 42)
//! ```
//!
//! where `m_f` is the out-edges of the frontier (top-down work), `m_u` the
//! out-edges of unvisited vertices and `n` the vertex count (bottom-up work:
//! a pass scans every vertex and, with early exit, a fraction of the
//! unvisited vertices' edges). The constants put the seed's dense threshold
//! 0.70 on Beamer's direction-optimizing rules: with `n` negligible,
//! `d >= 0.70` exactly when `m_f > m_u / 15` (α = 15); with `m_u` spent,
//! exactly when `m_f > n / 18` (β = 18, in edges rather than vertices).
//! For directed graphs `m_u` counts out-edges of unvisited vertices, which
//! approximates the in-edges a bottom-up pass scans.
//!
//! **Dispatch cost** of the wave being planned is the last measured level's
//! device time scaled by how much larger the frontier's out-edges are than
//! that level's were: `last_ns × max(1, m_f / m_f_last)`. A level never costs
//! less than the last one measured, and a frontier with k times the edges
//! costs k times as much. Scaling matters at band edges: a fused or chained
//! command returns when its frontier grows out of its band, and the next
//! wave must be planned for that frontier, not the small ones before it.
//!
//! **Fusion pressure** is the share of a level's time that fusing would
//! save: everything but the kernel's own work. A one-level command's wall
//! time `W` splits into work and overhead; the work is the device time above
//! the fixed device cost of a launch, which the engine measures as the
//! smallest device time of any one-level command of the search (capped at
//! the calibrated launch overhead): `work = D - D_min`,
//! `overhead = W - work`. A chained or fused level's overhead is the
//! calibrated launch overhead (what it would pay alone) and its work its
//! device time. The pressure toward fusing the next wave is
//! `overhead / (overhead + work × growth)`, with the same growth factor as
//! the dispatch cost, so a fused plan does not erase the pressure that chose
//! it, and a frontier that leaves its band lowers it at once. Where the
//! frontier is already past the fused band's upper edge (dense enough for
//! bottom-up levels) the request carries no fusion pressure: every fused
//! kernel expands top-down, so fusing there would cost more than it saves.

//! The first wave has no measurement yet: its dispatch cost and fusion
//! pressure are 0, and the engine does not let that blind decision anchor
//! the policy's hysteresis.

use crate::plan::chain::fused_band_admits;
use vyre_driver::backend::{DeviceCapabilities, LayoutBytes, SearchPosition, WaveReport};
use vyre_driver::megakernel_execution::{
    MegakernelExecutionRequest, MegakernelExecutionSample, MegakernelExecutionTopology,
    MegakernelGraphShape,
};

const DENSITY_EDGE_DIVISOR: f64 = 35.0;
const DENSITY_VERTEX_DIVISOR: f64 = 42.0;

/// Running state of one search: where it stands (the one
/// [`SearchPosition`] of the search, which every command carries) and what
/// it measured, from which each wave's request is built.
#[derive(Clone, Debug)]
pub(crate) struct SearchTelemetry {
    vertex_count: u64,
    edge_count: u64,
    /// Where the search stands.
    pub(crate) position: SearchPosition,
    visited_edges: u64,
    /// Device time of the last level measured, ns (0 before the first).
    last_level_ns: f64,
    /// Out-edges of the frontier that level expanded.
    last_level_edges: u64,
    /// Fixed device cost of the last level's launch, ns (0 inside chained
    /// and fused commands).
    last_fixed_ns: f64,
    /// The last level's overhead: launch, readback and fixed device cost, ns.
    overhead_per_level_ns: f64,
    /// Smallest device time of a one-level command so far, ns.
    min_launch_device_ns: f64,
}

impl SearchTelemetry {
    /// Telemetry before the first wave, at `position` (the sources).
    pub(crate) fn start(vertex_count: u32, edge_count: u64, position: SearchPosition) -> Self {
        Self {
            vertex_count: u64::from(vertex_count),
            edge_count,
            position,
            visited_edges: position.frontier_edges,
            last_level_ns: 0.0,
            last_level_edges: 0,
            last_fixed_ns: 0.0,
            overhead_per_level_ns: 0.0,
            min_launch_device_ns: f64::INFINITY,
        }
    }

    /// Frontier density as defined in the module docs.
    pub(crate) fn density(&self) -> f64 {
        let unexplored = self.edge_count.saturating_sub(self.visited_edges) as f64;
        Self::density_of(
            self.position.frontier_edges as f64,
            unexplored,
            self.vertex_count as f64,
        )
    }

    fn density_of(frontier_edges: f64, unexplored_edges: f64, vertices: f64) -> f64 {
        let bottom_up = unexplored_edges / DENSITY_EDGE_DIVISOR + vertices / DENSITY_VERTEX_DIVISOR;
        let total = frontier_edges + bottom_up;
        if total > 0.0 {
            frontier_edges / total
        } else {
            0.0
        }
    }

    /// Frontier out-edges at which the density reaches `density`, given the
    /// current unexplored edges: the band edge a multi-level command stops at.
    pub(crate) fn frontier_edges_at_density(&self, density: f64) -> u64 {
        if density >= 1.0 {
            return u64::MAX;
        }
        let unexplored = self.edge_count.saturating_sub(self.visited_edges) as f64;
        let bottom_up =
            unexplored / DENSITY_EDGE_DIVISOR + self.vertex_count as f64 / DENSITY_VERTEX_DIVISOR;
        let edges = density.max(0.0) * bottom_up / (1.0 - density);
        // Saturating float-to-int conversion is what we want here.
        edges as u64
    }

    /// How much larger the next frontier's out-edges are than the last
    /// measured level's (at least 1).
    fn growth(&self) -> f64 {
        (self.position.frontier_edges as f64 / self.last_level_edges.max(1) as f64).max(1.0)
    }

    /// Predicted device time of the next wave (module docs); 0 before any
    /// measurement.
    pub(crate) fn dispatch_cost_ns(&self) -> f64 {
        self.last_level_ns * self.growth()
    }

    /// Share of the next wave's time that fusing would save.
    pub(crate) fn fusion_pressure(&self) -> f64 {
        let work = (self.dispatch_cost_ns() - self.last_fixed_ns).max(0.0);
        let total = self.overhead_per_level_ns + work;
        if self.is_blind() || total <= 0.0 {
            0.0
        } else {
            self.overhead_per_level_ns / total
        }
    }

    /// How many times fewer out-edges the frontier has than the last
    /// measured level's (0 before the first measurement).
    pub(crate) fn shrink(&self) -> f64 {
        if self.is_blind() {
            return 0.0;
        }
        self.last_level_edges as f64 / self.position.frontier_edges.max(1) as f64
    }

    /// Whether nothing has been measured yet (the first wave).
    pub(crate) fn is_blind(&self) -> bool {
        self.last_level_ns <= 0.0
    }

    /// The policy request for the next wave.
    pub(crate) fn request(
        &self,
        bytes: &LayoutBytes,
        budget_bytes: u64,
        caps: &DeviceCapabilities,
    ) -> MegakernelExecutionRequest {
        let density = self.density();
        // Past the fused band's edge fusing cannot pay (plan/chain.rs), so no
        // pressure toward it is admitted there, as the policy admits none on
        // a device without a barrier.
        let fusion_pressure = if fused_band_admits(density) {
            self.fusion_pressure()
        } else {
            0.0
        };
        MegakernelExecutionRequest {
            sample: MegakernelExecutionSample {
                dispatch_cost_ns: self.dispatch_cost_ns(),
                frontier_density: density,
                // The search's final readback: depth and parent per vertex.
                readback_bytes: self.vertex_count * 8,
            },
            graph: MegakernelGraphShape {
                node_count: self.vertex_count,
                edge_count: self.edge_count,
            },
            bytes_per_node: bytes.bytes_per_node,
            bytes_per_edge: bytes.bytes_per_edge,
            frontier_bytes: bytes.frontier_bytes,
            scratch_bytes: bytes.scratch_bytes,
            output_bytes: bytes.output_bytes,
            budget_bytes,
            launch_overhead_ns: caps.launch_overhead_ns,
            fusion_pressure,
            capabilities: caps.megakernel,
        }
    }

    /// Fold in what a command of `topology` measured, and move the position
    /// past the levels it ran.
    pub(crate) fn observe(
        &mut self,
        topology: MegakernelExecutionTopology,
        report: &WaveReport,
        launch_overhead_ns: f64,
    ) {
        let Some(last) = report.levels.last() else {
            return;
        };
        let mut input_edges = self.position.frontier_edges;
        for level in &report.levels {
            self.last_level_edges = input_edges;
            input_edges = level.frontier_out_edges;
            self.visited_edges = self.visited_edges.saturating_add(level.frontier_out_edges);
        }
        let levels_run = u32::try_from(report.levels.len()).unwrap_or(u32::MAX);
        self.position = self.position.after(topology, levels_run, last);

        let levels = report.levels.len() as f64;
        let device_ns = report.device_ns.unwrap_or(report.wall_ns) as f64;
        self.last_level_ns = last
            .device_ns
            .map_or(device_ns / levels, |ns| ns as f64)
            .max(1.0);
        let overhead = launch_overhead_ns.max(0.0);
        if report.levels.len() == 1 {
            self.min_launch_device_ns = self.min_launch_device_ns.min(device_ns);
            self.last_fixed_ns = self.min_launch_device_ns.min(overhead);
            let work = (device_ns - self.last_fixed_ns).max(0.0);
            self.overhead_per_level_ns = report.wall_ns as f64 - work;
        } else {
            // What one of these levels would pay alone: the command's own
            // cost beyond its device time, which the calibrated launch
            // overhead (an empty command's round trip) can understate.
            self.last_fixed_ns = 0.0;
            let beyond_device = report
                .device_ns
                .map_or(0.0, |ns| report.wall_ns.saturating_sub(ns) as f64);
            self.overhead_per_level_ns = overhead.max(beyond_device);
        }
    }
}

/// A position of `frontier_len` queued vertices with `frontier_edges`
/// out-edges, at depth 0, for tests.
#[cfg(test)]
pub(crate) fn at(frontier_len: u32, frontier_edges: u64) -> SearchPosition {
    SearchPosition {
        level: 0,
        frontier_len,
        frontier_edges,
        form: vyre_driver::backend::FrontierForm::Queue,
        buffer: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_threshold_falls_on_beamers_alpha() {
        // n negligible: m_f = m_u / 15 must give 0.70.
        let m_u = 15.0e9;
        let d = SearchTelemetry::density_of(1.0e9, m_u, 0.0);
        assert!((d - 0.70).abs() < 1e-12, "{d}");
    }

    #[test]
    fn dense_threshold_falls_on_beamers_beta_when_unexplored_is_spent() {
        let n = 18.0e6;
        let d = SearchTelemetry::density_of(1.0e6, 0.0, n);
        assert!((d - 0.70).abs() < 1e-12, "{d}");
    }

    #[test]
    fn band_edge_inverts_density() {
        let mut t = SearchTelemetry::start(1 << 20, 1 << 24, at(1, 0));
        t.visited_edges = 1 << 22;
        let edges = t.frontier_edges_at_density(0.125);
        let unexplored = ((1u64 << 24) - (1 << 22)) as f64;
        let d = SearchTelemetry::density_of(edges as f64, unexplored, (1u64 << 20) as f64);
        assert!((d - 0.125).abs() < 1e-6, "{d}");
        assert_eq!(t.frontier_edges_at_density(1.0), u64::MAX);
    }

    #[test]
    fn empty_graph_has_zero_density() {
        assert_eq!(SearchTelemetry::density_of(0.0, 0.0, 0.0), 0.0);
    }
}

#[cfg(test)]
mod pressure_tests {
    use super::*;
    use vyre_driver::backend::LevelRecord;

    const SPARSE: MegakernelExecutionTopology = MegakernelExecutionTopology::SparseFrontier;

    fn report(levels: &[(u32, u64)], wall_ns: u64, device_ns: u64) -> WaveReport {
        WaveReport {
            levels: levels
                .iter()
                .map(|&(out, out_edges)| LevelRecord {
                    frontier_out: out,
                    frontier_out_edges: out_edges,
                    ..LevelRecord::default()
                })
                .collect(),
            wall_ns,
            device_ns: Some(device_ns),
            readback_bytes: 0,
        }
    }

    #[test]
    fn first_wave_is_blind() {
        let t = SearchTelemetry::start(100, 1000, at(1, 10));
        assert!(t.is_blind());
        assert_eq!(t.dispatch_cost_ns(), 0.0);
        assert_eq!(t.fusion_pressure(), 0.0);
    }

    #[test]
    fn one_level_commands_split_work_from_overhead() {
        let mut t = SearchTelemetry::start(100, 1000, at(1, 10));
        // 12 us wall, 3 us device: the smallest launch so far, so all of it
        // is the launch's fixed cost and the level did no measurable work.
        t.observe(SPARSE, &report(&[(4, 10)], 12_000, 3_000), 4_500.0);
        assert!(!t.is_blind());
        assert_eq!(t.dispatch_cost_ns(), 3_000.0);
        assert_eq!(t.fusion_pressure(), 1.0);
        // 18 us wall, 9 us device: 6 us of work above the 3 us fixed cost,
        // 12 us of overhead.
        t.observe(SPARSE, &report(&[(4, 10)], 18_000, 9_000), 4_500.0);
        assert_eq!(t.dispatch_cost_ns(), 9_000.0);
        assert!((t.fusion_pressure() - 12_000.0 / 18_000.0).abs() < 1e-12);
    }

    #[test]
    fn the_fixed_cost_never_exceeds_the_calibrated_launch_overhead() {
        let mut t = SearchTelemetry::start(100, 1000, at(1, 10));
        // A first level of 50 us device time: at most 4.5 us of it is fixed.
        t.observe(SPARSE, &report(&[(4, 10)], 60_000, 50_000), 4_500.0);
        let work = 50_000.0 - 4_500.0;
        let overhead = 60_000.0 - work;
        assert!((t.fusion_pressure() - overhead / (overhead + work)).abs() < 1e-12);
    }

    #[test]
    fn growing_frontier_scales_the_predicted_cost() {
        let mut t = SearchTelemetry::start(1 << 20, 1 << 24, at(1, 100));
        // The level expanded 100 edges in 2 us and found 10,000 edges.
        t.observe(SPARSE, &report(&[(50, 10_000)], 10_000, 2_000), 4_500.0);
        assert_eq!(t.dispatch_cost_ns(), 200_000.0);
        // Overhead 10 us (all but the 2 us of fixed cost is host), predicted
        // work 198 us.
        assert!((t.fusion_pressure() - 10_000.0 / 208_000.0).abs() < 1e-12);
    }

    #[test]
    fn multi_level_commands_charge_what_one_level_would_pay_alone() {
        let mut t = SearchTelemetry::start(1000, 4000, at(1, 4));
        // 20 us of wall, 8 us on the device: the command cost 12 us beyond
        // its device time, more than the calibrated 4.5 us, so a level run
        // alone would pay 12.
        t.observe(
            SPARSE,
            &report(&[(2, 8), (3, 8), (3, 8), (2, 8)], 20_000, 8_000),
            4_500.0,
        );
        assert_eq!(t.dispatch_cost_ns(), 2_000.0);
        assert!((t.fusion_pressure() - 12_000.0 / 14_000.0).abs() < 1e-12);
        assert_eq!(t.position.frontier_len, 2);
        assert_eq!((t.position.level, t.position.buffer), (4, 0));
        // A command that cost less beyond its device time than the
        // calibrated overhead is charged the calibration.
        t.observe(SPARSE, &report(&[(2, 8), (2, 8)], 10_000, 8_000), 4_500.0);
        assert_eq!(t.dispatch_cost_ns(), 4_000.0);
        assert!((t.fusion_pressure() - 4_500.0 / 8_500.0).abs() < 1e-12);
        // Without device time the wall is all there is: the calibration.
        let mut untimed = report(&[(2, 8), (2, 8)], 30_000, 0);
        untimed.device_ns = None;
        t.observe(SPARSE, &untimed, 4_500.0);
        assert_eq!(t.dispatch_cost_ns(), 15_000.0);
        assert!((t.fusion_pressure() - 4_500.0 / 19_500.0).abs() < 1e-12);
    }
}
