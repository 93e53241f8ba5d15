//! The wave loop shared by single searches and batch passes: plan each wave
//! (topology, chain, grids), check the command, run it, check the report
//! continues the search, move the position on.

use std::sync::Arc;
use std::time::{Duration, Instant};

use vyre_driver::backend::{
    Backend, BackendError, ChainBand, CheckedCommand, DeviceCapabilities, SearchPosition,
    WaveCommand, WaveReport,
};
use vyre_driver::collective::ExchangeKind;
use vyre_driver::megakernel_execution::{MegakernelExecutionPlanner, MegakernelExecutionTopology};

use super::telemetry::SearchTelemetry;
use super::{ChainMode, EngineError, LevelTrace, LoadedGraph, TopologyChoice, plan_memory};
use crate::plan::chain::ChainLength;
use crate::plan::grid::{FrontierSize, chain_grid, grid_band_max_frontier_edges, size_launch};
use crate::plan::topology::TopologyPlanner;

/// Which kind of search a plan's waves belong to.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(super) enum Pass {
    /// One search (`Backend::run_wave`).
    Single,
    /// A batch pass (`Backend::run_batch_wave`).
    Batch,
}

/// What the caller chose for every wave of one search or pass, checked
/// against the device before anything runs.
pub(super) struct WavePlan {
    /// The device as this pass may use it: for a batch on a backend without
    /// a batch `FusedWave`, without the device-wide barrier.
    caps: DeviceCapabilities,
    topology: TopologyChoice,
    chaining: ChainMode,
    pass: Pass,
}

impl WavePlan {
    /// The plan for `topology` and `chaining` of a `pass` on `backend` with
    /// `loaded`: a forced topology must be launchable and fit the memory
    /// budget.
    pub(super) fn new(
        backend: &dyn Backend,
        loaded: &LoadedGraph,
        topology: TopologyChoice,
        chaining: ChainMode,
        pass: Pass,
    ) -> Result<Self, EngineError> {
        let device = backend.capabilities();
        if let TopologyChoice::Forced(t) = topology {
            check_launchable(t, device, pass)?;
            plan_memory(t, &loaded.graph, &loaded.bytes, loaded.budget_bytes)?;
        }
        let caps = match pass {
            Pass::Single => device.clone(),
            Pass::Batch => device.for_batch(),
        };
        Ok(Self {
            caps,
            topology,
            chaining,
            pass,
        })
    }

    /// Run waves from `start` until the frontier is empty, each command
    /// through `run` (`Backend::run_wave` or `run_batch_wave`). Returns
    /// every level and the search's wall time.
    pub(super) fn run(
        &self,
        backend: &mut dyn Backend,
        loaded: &LoadedGraph,
        start: SearchPosition,
        mut run: impl FnMut(&mut dyn Backend, &CheckedCommand) -> Result<WaveReport, BackendError>,
    ) -> Result<(Vec<LevelTrace>, Duration), EngineError> {
        let caps = &self.caps;
        let graph = &loaded.graph;
        let mut telemetry = SearchTelemetry::start(graph.vertex_count(), graph.edge_count(), start);
        let mut planner = TopologyPlanner::default();
        let mut chains = ChainLength::new();
        let mut levels = Vec::new();
        let mut commands = 0u32;
        let started = Instant::now();
        while telemetry.position.frontier_len > 0 {
            let (topology, explanation) = match self.topology {
                TopologyChoice::Forced(t) => (t, format!("forced|topology={t:?}")),
                TopologyChoice::Auto => {
                    let req = telemetry.request(&loaded.bytes, loaded.budget_bytes, caps);
                    let plan = planner.plan_execution(req)?;
                    let explanation = planner
                        .last_decision()
                        .map(|d| {
                            let mut d = *d;
                            d.topology = plan.topology;
                            d.stable_explanation()
                        })
                        .unwrap_or_default();
                    if telemetry.is_blind() {
                        // Nothing was measured yet: this choice must not anchor
                        // the hysteresis of the first measured decision.
                        planner.reset();
                    }
                    (plan.topology, explanation)
                }
            };
            let max_levels =
                chains.levels(self.chaining, topology, &telemetry, caps.launch_overhead_ns);
            let position = telemetry.position;
            let frontier = FrontierSize {
                vertices: position.frontier_len,
                edges: position.frontier_edges,
                graph_vertices: graph.vertex_count(),
                graph_edges: graph.edge_count(),
                graph_max_out_degree: loaded.layout.max_out_degree,
            };
            let launch = size_launch(topology, frontier, caps)?;
            // A multi-level command stops at its topology's band, and a fused
            // one also where its grid runs out.
            let mut band_max_frontier_edges =
                ChainLength::band_max_frontier_edges(topology, max_levels, &telemetry)
                    .min(grid_band_max_frontier_edges(topology, &launch, caps));
            // A long chain also stops where its frontier outgrows the grid
            // its later levels are dispatched on.
            let mut band_max_frontier_vertices = u32::MAX;
            if let Some(grid) = chain_grid(topology, &launch, max_levels) {
                band_max_frontier_edges = band_max_frontier_edges.min(grid.band_max_frontier_edges);
                band_max_frontier_vertices = grid.band_max_frontier_vertices;
            }
            // Later levels are dispatched on their cap: no more than the
            // largest of them within the band can use.
            let launch = launch.later_within_band(
                topology,
                &ChainBand {
                    first_frontier_edges: frontier.edges,
                    band_max_frontier_edges,
                    band_max_frontier_vertices,
                    graph_vertices: frontier.graph_vertices,
                    graph_edges: frontier.graph_edges,
                },
            );
            let command = WaveCommand {
                topology,
                position,
                max_levels,
                launch,
                band_max_frontier_edges,
                band_max_frontier_vertices,
            };
            let command = match self.pass {
                Pass::Single => command.check(caps, &loaded.layout)?,
                Pass::Batch => command.check_batch(caps, &loaded.layout)?,
            };
            let exchange = (backend.ranks() > 1).then(|| ExchangeKind::of(topology));
            tracing::debug!(target: "vyre::wave", level = position.level, max_levels, exchange = exchange.map(ExchangeKind::name), "{explanation}");
            let explanation: Arc<str> = Arc::from(explanation);
            let report = run(backend, &command)?;
            check_report(&report, &position, max_levels)?;
            for record in &report.levels {
                levels.push(LevelTrace {
                    level: record.level,
                    command: commands,
                    command_levels: report.levels.len() as u32,
                    topology,
                    exchange,
                    explanation: Arc::clone(&explanation),
                    frontier_in: record.frontier_in,
                    frontier_out: record.frontier_out,
                    edges_examined: record.edges_examined,
                    device_ns: record.device_ns,
                    command_device_ns: report.device_ns,
                    command_wall_ns: report.wall_ns,
                });
            }
            telemetry.observe(topology, &report, caps.launch_overhead_ns);
            chains.ran(report.levels.len() as u32);
            commands += 1;
        }
        Ok((levels, started.elapsed()))
    }
}

fn check_launchable(
    topology: MegakernelExecutionTopology,
    caps: &DeviceCapabilities,
    pass: Pass,
) -> Result<(), EngineError> {
    if topology != MegakernelExecutionTopology::FusedWave {
        return Ok(());
    }
    let reason = if !caps.can_fuse() {
        format!(
            "{} has no device-wide barrier ({})",
            caps.device_name, caps.barrier_reason
        )
    } else if pass == Pass::Batch && !caps.batch_fused_wave {
        format!(
            "{} has a device-wide barrier but its backend runs no FusedWave in batch passes",
            caps.device_name
        )
    } else {
        return Ok(());
    };
    Err(EngineError::TopologyUnavailable {
        topology: format!("{topology:?}"),
        reason,
    })
}

/// A report must hold 1 to `max_levels` records that continue the search
/// from `position`: consecutive depths, each level's frontier the one the
/// level before discovered.
fn check_report(
    report: &WaveReport,
    position: &SearchPosition,
    max_levels: u32,
) -> Result<(), EngineError> {
    if report.levels.is_empty() || report.levels.len() > max_levels as usize {
        return Err(EngineError::ContractViolation(format!(
            "a command allowed {max_levels} levels reported {}",
            report.levels.len()
        )));
    }
    let mut frontier = position.frontier_len;
    for (k, record) in report.levels.iter().enumerate() {
        let level = position.level.saturating_add(k as u32);
        if record.level != level || record.frontier_in != frontier {
            return Err(EngineError::ContractViolation(format!(
                "level record {k} says depth {} with a frontier of {}, but the search is at depth {level} with {frontier}",
                record.level, record.frontier_in
            )));
        }
        if record.frontier_out == 0 && k + 1 < report.levels.len() {
            return Err(EngineError::ContractViolation(format!(
                "level record {k} discovered nothing but the command reported further levels"
            )));
        }
        frontier = record.frontier_out;
    }
    Ok(())
}
