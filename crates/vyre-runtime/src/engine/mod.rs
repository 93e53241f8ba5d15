//! The wave engine: upload a graph once, then run searches level by level,
//! planning every wave from what the last one measured.
//!
//! One wave flows like this (see `docs/ARCHITECTURE.md`):
//! 1. [`telemetry`] turns the last report into a `MegakernelExecutionRequest`;
//! 2. the [`StableWavePlanner`] picks the topology (hysteresis, cached memory
//!    plans) unless the caller forced one;
//! 3. [`chain`] decides how many levels the command may run and its band;
//! 4. [`launch`] sizes the grid with `ResidentGridPlan::recommend`;
//! 5. the backend runs the [`WaveCommand`] and reports what it measured.

pub mod chain;
mod error;
mod launch;
mod request;
mod telemetry;

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::backend::{
    Backend, DeviceCapabilities, DeviceLayout, FrontierForm, LayoutBytes, WaveCommand,
    frontier_form_of,
};
use vyre_driver::megakernel_execution::{
    MegakernelExecutionPlanner, MegakernelExecutionTopology, MegakernelGraphShape,
    MegakernelMemoryPlan, plan_megakernel_memory_budget,
};
use vyre_graph::Graph;

pub use error::EngineError;
pub use request::{ChainMode, LevelTrace, SearchRequest, SearchResult, TopologyChoice};

use crate::wave_planner::StableWavePlanner;
use chain::{ChainPlanner, MAX_FUSED_LEVELS};
use telemetry::SearchTelemetry;

/// A graph resident on the engine's device.
struct Resident {
    graph: Arc<Graph>,
    layout: DeviceLayout,
    bytes: LayoutBytes,
    budget_bytes: u64,
    memory: MegakernelMemoryPlan,
}

/// Drives one backend through BFS searches.
pub struct Engine {
    backend: Box<dyn Backend>,
    resident: Option<Resident>,
    memory_budget_override: Option<u64>,
}

impl Engine {
    /// An engine over `backend` with no graph loaded.
    #[must_use]
    pub fn new(backend: Box<dyn Backend>) -> Self {
        Self {
            backend,
            resident: None,
            memory_budget_override: None,
        }
    }

    /// Plan against `bytes` instead of the device's reported budget (never
    /// more than the device has: a larger figure only moves the failure to
    /// the allocation). Applies to graphs loaded afterwards.
    pub fn set_memory_budget(&mut self, bytes: Option<u64>) {
        self.memory_budget_override = bytes;
    }

    /// The device's capabilities.
    #[must_use]
    pub fn capabilities(&self) -> &DeviceCapabilities {
        self.backend.capabilities()
    }

    /// The memory plan of the loaded graph (the sparse plan every search
    /// allocates for).
    #[must_use]
    pub fn memory_plan(&self) -> Option<&MegakernelMemoryPlan> {
        self.resident.as_ref().map(|r| &r.memory)
    }

    /// The device layout of the loaded graph.
    #[must_use]
    pub fn layout(&self) -> Option<&DeviceLayout> {
        self.resident.as_ref().map(|r| &r.layout)
    }

    /// Bytes the backend holds now.
    #[must_use]
    pub fn allocated_bytes(&self) -> u64 {
        self.backend.allocated_bytes()
    }

    /// Upload `graph`, replacing the previous one. The memory plan is checked
    /// against the budget before anything is allocated.
    ///
    /// # Errors
    ///
    /// [`EngineError::Memory`] when the graph does not fit (nothing is
    /// allocated), [`EngineError::Backend`] when the upload fails.
    pub fn load(&mut self, graph: Arc<Graph>) -> Result<(), EngineError> {
        self.resident = None;
        let caps = self.backend.capabilities();
        let layout = DeviceLayout::for_graph(&graph, caps, MAX_FUSED_LEVELS)?;
        let bytes = layout.planner_bytes();
        let budget_bytes = self
            .memory_budget_override
            .unwrap_or(caps.memory_budget_bytes);
        let memory = plan_megakernel_memory_budget(
            MegakernelExecutionTopology::SparseFrontier,
            shape_of(&graph),
            bytes.bytes_per_node,
            bytes.bytes_per_edge,
            bytes.frontier_bytes,
            bytes.scratch_bytes,
            bytes.output_bytes,
            budget_bytes,
        )?;
        if memory.required_bytes != layout.total_bytes() {
            return Err(EngineError::ContractViolation(format!(
                "the layout totals {} bytes but its planner split adds up to {}",
                layout.total_bytes(),
                memory.required_bytes
            )));
        }
        self.backend.upload(&graph, &layout)?;
        let held = self.backend.allocated_bytes();
        if held > memory.required_bytes {
            return Err(EngineError::ContractViolation(format!(
                "{} holds {held} bytes but the plan allows {}",
                self.backend.capabilities().backend,
                memory.required_bytes
            )));
        }
        self.resident = Some(Resident {
            graph,
            layout,
            bytes,
            budget_bytes,
            memory,
        });
        Ok(())
    }

    /// Run one search.
    ///
    /// # Errors
    ///
    /// [`EngineError`] for a missing graph, bad sources, a forced topology the
    /// device cannot run, or a backend failure.
    pub fn bfs(&mut self, request: &SearchRequest<'_>) -> Result<SearchResult, EngineError> {
        let resident = self.resident.as_ref().ok_or(EngineError::NoGraph)?;
        let graph = &resident.graph;
        let sources = distinct_sources(request.sources, graph.vertex_count())?;
        let caps = self.backend.capabilities().clone();
        if let TopologyChoice::Forced(topology) = request.topology {
            check_launchable(topology, &caps)?;
            self.check_memory(topology)?;
        }
        let resident = self.resident.as_ref().ok_or(EngineError::NoGraph)?;
        let graph = &resident.graph;
        let source_edges = sources
            .iter()
            .map(|&s| graph.out_edges().degree(s))
            .sum::<u64>();
        let mut telemetry = SearchTelemetry::start(
            graph.vertex_count(),
            graph.edge_count(),
            sources.len() as u32,
            source_edges,
        );
        let mut planner = StableWavePlanner::default();
        let mut chains = ChainPlanner::new();
        let mut levels = Vec::new();
        let mut commands = 0u32;
        let mut form = FrontierForm::Queue;
        let mut level = 0u32;
        let started = Instant::now();
        self.backend.begin_search(&sources)?;

        while telemetry.frontier_len > 0 {
            let (topology, explanation) = match request.topology {
                TopologyChoice::Forced(t) => (t, format!("forced|topology={t:?}")),
                TopologyChoice::Auto => {
                    let req = telemetry.request(&resident.bytes, resident.budget_bytes, &caps);
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
            let max_levels = chains.levels(
                request.chaining,
                topology,
                &telemetry,
                caps.launch_overhead_ns,
            );
            let command = WaveCommand {
                topology,
                frontier: form,
                level,
                frontier_len: telemetry.frontier_len,
                max_levels,
                launch: launch::size_launch(
                    topology,
                    launch::FrontierSize {
                        vertices: telemetry.frontier_len,
                        edges: telemetry.frontier_edges,
                        graph_vertices: graph.vertex_count(),
                        graph_edges: graph.edge_count(),
                    },
                    &caps,
                )?,
                band_max_frontier_edges: ChainPlanner::band_max_frontier_edges(
                    topology, max_levels, &telemetry,
                ),
            };
            tracing::debug!(target: "vyre::wave", level, max_levels, "{explanation}");
            let report = self.backend.run_wave(&command)?;
            if report.levels.is_empty() || report.levels.len() > max_levels as usize {
                return Err(EngineError::ContractViolation(format!(
                    "a command allowed {max_levels} levels reported {}",
                    report.levels.len()
                )));
            }
            for record in &report.levels {
                levels.push(LevelTrace {
                    level: record.level,
                    command: commands,
                    command_levels: report.levels.len() as u32,
                    topology,
                    explanation: explanation.clone(),
                    frontier_in: record.frontier_in,
                    frontier_out: record.frontier_out,
                    edges_examined: record.edges_examined,
                    device_ns: record.device_ns,
                    command_wall_ns: report.wall_ns,
                });
            }
            telemetry.observe(&report, caps.launch_overhead_ns);
            chains.ran(report.levels.len() as u32);
            commands += 1;
            level += report.levels.len() as u32;
            form = report.frontier.unwrap_or(frontier_form_of(topology));
        }
        let search_time = started.elapsed();

        let readback_started = Instant::now();
        let n = graph.vertex_count() as usize;
        let mut depths = vec![0u32; n];
        let mut parents = vec![0u32; n];
        self.backend.read_depths(&mut depths)?;
        self.backend.read_parents(&mut parents)?;
        Ok(SearchResult {
            depths,
            parents,
            levels,
            search_time,
            readback_time: readback_started.elapsed(),
        })
    }

    fn check_memory(&self, topology: MegakernelExecutionTopology) -> Result<(), EngineError> {
        let r = self.resident.as_ref().ok_or(EngineError::NoGraph)?;
        plan_megakernel_memory_budget(
            topology,
            shape_of(&r.graph),
            r.bytes.bytes_per_node,
            r.bytes.bytes_per_edge,
            r.bytes.frontier_bytes,
            r.bytes.scratch_bytes,
            r.bytes.output_bytes,
            r.budget_bytes,
        )?;
        Ok(())
    }
}

fn shape_of(graph: &Graph) -> MegakernelGraphShape {
    MegakernelGraphShape {
        node_count: u64::from(graph.vertex_count()),
        edge_count: graph.edge_count(),
    }
}

fn check_launchable(
    topology: MegakernelExecutionTopology,
    caps: &DeviceCapabilities,
) -> Result<(), EngineError> {
    if topology == MegakernelExecutionTopology::FusedWave
        && (!caps.megakernel.supports_device_wide_barrier || caps.resident_workgroups == 0)
    {
        return Err(EngineError::TopologyUnavailable {
            topology: format!("{topology:?}"),
            reason: "the device has no device-wide barrier",
        });
    }
    Ok(())
}

/// Sources in order of first appearance, each once, all in range.
fn distinct_sources(sources: &[u32], vertex_count: u32) -> Result<Vec<u32>, EngineError> {
    if sources.is_empty() {
        return Err(EngineError::NoSources);
    }
    if let Some(&source) = sources.iter().find(|&&s| s >= vertex_count) {
        return Err(EngineError::SourceOutOfRange {
            source,
            vertex_count,
        });
    }
    let mut seen = std::collections::HashSet::with_capacity(sources.len());
    Ok(sources
        .iter()
        .copied()
        .filter(|s| seen.insert(*s))
        .collect())
}
