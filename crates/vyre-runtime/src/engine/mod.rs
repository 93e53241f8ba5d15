//! The wave engine: upload a graph once, then run searches level by level,
//! planning every wave from what the last one measured.
//!
//! One wave flows like this (see `docs/ARCHITECTURE.md`):
//! 1. [`telemetry`] turns the last report into a `MegakernelExecutionRequest`;
//! 2. [`crate::plan::topology`] picks the topology (hysteresis, cached memory
//!    plans) unless the caller forced one;
//! 3. [`crate::plan::chain`] decides how many levels the command may run and
//!    its band;
//! 4. [`crate::plan::grid`] sizes every grid of the command;
//! 5. `WaveCommand::check` (vyre-driver) checks the command once, and the
//!    backend runs it and reports what it measured;
//! 6. the search position (in [`telemetry`]) moves past the levels that ran.

mod batch;
mod error;
mod load;
mod request;
pub(crate) mod telemetry;
mod waves;

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::backend::{
    Backend, DeviceCapabilities, DeviceLayout, LayoutBytes, SearchPosition, SearchSources,
};
use vyre_driver::megakernel_execution::{
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryPlan,
    plan_megakernel_memory_budget,
};
use vyre_graph::Graph;
use vyre_graph::relabel::Relabelling;

pub use batch::{BatchRequest, BatchResult, LaneResult, PassTrace};
pub use error::EngineError;
pub use load::{LoadReport, LoadRequest};
pub use request::{ChainMode, LevelTrace, SearchRequest, SearchResult, TopologyChoice};

use waves::{Pass, WavePlan};

/// The graph on the engine's device, with its layout and memory plan.
struct LoadedGraph {
    /// The graph as the device numbers it.
    graph: Arc<Graph>,
    /// The device's numbering, when it is not the caller's.
    relabelling: Option<Relabelling>,
    layout: DeviceLayout,
    bytes: LayoutBytes,
    budget_bytes: u64,
    memory: MegakernelMemoryPlan,
}

/// Drives one backend through BFS searches.
pub struct Engine {
    backend: Box<dyn Backend>,
    loaded: Option<LoadedGraph>,
    memory_budget_override: Option<u64>,
}

impl Engine {
    /// An engine over `backend` with no graph loaded.
    #[must_use]
    pub fn new(backend: Box<dyn Backend>) -> Self {
        Self {
            backend,
            loaded: None,
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
        self.loaded.as_ref().map(|r| &r.memory)
    }

    /// The device layout of the loaded graph.
    #[must_use]
    pub fn layout(&self) -> Option<&DeviceLayout> {
        self.loaded.as_ref().map(|r| &r.layout)
    }

    /// Bytes the backend holds now.
    #[must_use]
    pub fn allocated_bytes(&self) -> u64 {
        self.backend.allocated_bytes()
    }

    /// Run one search.
    ///
    /// # Errors
    ///
    /// [`EngineError`] for a missing graph, bad sources, a forced topology the
    /// device cannot run, or a backend failure.
    pub fn bfs(&mut self, request: &SearchRequest<'_>) -> Result<SearchResult, EngineError> {
        let loaded = self.loaded.as_ref().ok_or(EngineError::NoGraph)?;
        let sources = SearchSources::new(&loaded.device_ids(request.sources), &loaded.graph)?;
        let plan = WavePlan::new(
            self.backend.as_ref(),
            loaded,
            request.topology,
            request.chaining,
            Pass::Single,
        )?;
        self.backend.begin_search(&sources)?;
        let (levels, search_time) = plan.run(
            self.backend.as_mut(),
            loaded,
            SearchPosition::start(&sources),
            |backend, command| backend.run_wave(command),
        )?;
        let readback_started = Instant::now();
        let n = loaded.graph.vertex_count() as usize;
        let mut depths = vec![0u32; n];
        let mut parents = vec![0u32; n];
        self.backend.read_depths(&mut depths)?;
        self.backend.read_parents(&mut parents)?;
        if let Some(map) = &loaded.relabelling {
            let mut restored = vec![0u32; n];
            map.restore_values(&depths, &mut restored);
            depths = restored;
            let mut restored = vec![0u32; n];
            map.restore_ids(&parents, &mut restored);
            parents = restored;
        }
        Ok(SearchResult {
            depths,
            parents,
            levels,
            search_time,
            readback_time: readback_started.elapsed(),
        })
    }
}

impl LoadedGraph {
    /// `ids` of the caller's numbering in the device's.
    fn device_ids(&self, ids: &[u32]) -> Vec<u32> {
        match &self.relabelling {
            Some(map) => map.to_new(ids),
            None => ids.to_vec(),
        }
    }

    /// Vertex `id` of the device's numbering in the caller's.
    fn caller_id(&self, id: u32) -> u32 {
        self.relabelling
            .as_ref()
            .and_then(|map| map.old_id(id))
            .unwrap_or(id)
    }
}

/// The memory `topology` needs for `graph` laid out as `bytes`, against
/// `budget_bytes`.
fn plan_memory(
    topology: MegakernelExecutionTopology,
    graph: &Graph,
    bytes: &LayoutBytes,
    budget_bytes: u64,
) -> Result<MegakernelMemoryPlan, EngineError> {
    Ok(plan_megakernel_memory_budget(
        topology,
        MegakernelGraphShape {
            node_count: u64::from(graph.vertex_count()),
            edge_count: graph.edge_count(),
        },
        bytes.bytes_per_node,
        bytes.bytes_per_edge,
        bytes.frontier_bytes,
        bytes.scratch_bytes,
        bytes.output_bytes,
        budget_bytes,
    )?)
}
