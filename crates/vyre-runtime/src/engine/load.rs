//! Loading a graph: its vertex order (renumbered by degree, by breadth, or
//! not), its layout and memory plan, and the upload.

use std::sync::Arc;
use std::time::{Duration, Instant};

use vyre_driver::backend::{DeviceLayout, PrepareRequest};
use vyre_driver::collective::{RankBytes, RankPlan};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_graph::memory::MemoryLimit;
use vyre_graph::relabel::{Relabelling, relabel_by_breadth, relabel_by_degree};
use vyre_graph::{Graph, GraphError};

use super::{Engine, EngineError, LoadedGraph, plan_memory};
use crate::plan::chain::MAX_FUSED_LEVELS;
use crate::plan::grid::per_wave_widths;
use crate::plan::order::{Numbering, OrderDecision, VertexOrder, choose_order};

/// A graph to load and how.
#[derive(Clone, Debug)]
pub struct LoadRequest {
    /// The graph, in the caller's numbering: sources and results stay in
    /// it whatever the order on the device.
    pub graph: Arc<Graph>,
    /// How its vertices are numbered on the device.
    pub order: VertexOrder,
    /// Host bytes a relabelled copy may take; what the machine has
    /// available when `None`.
    pub host_memory_limit: Option<u64>,
}

impl LoadRequest {
    /// Load `graph` with the engine choosing its order.
    #[must_use]
    pub fn new(graph: impl Into<Arc<Graph>>) -> Self {
        Self {
            graph: graph.into(),
            order: VertexOrder::Auto,
            host_memory_limit: None,
        }
    }
}

/// What a load did besides the upload.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadReport {
    /// The vertex order chosen and why.
    pub order: OrderDecision,
    /// Host time spent renumbering (zero when the order is kept): graph
    /// construction, apart from every search's time.
    pub relabel_time: Duration,
    /// Host time of the upload, with the backend's preparation for the
    /// graph's commands (`Backend::prepare`: pipelines it builds ahead).
    pub upload_time: Duration,
}

impl Engine {
    /// Upload `graph` in the order the engine chooses ([`VertexOrder::Auto`]),
    /// replacing the previous one. See [`Engine::load_with`].
    ///
    /// # Errors
    ///
    /// As [`Engine::load_with`].
    pub fn load(&mut self, graph: Arc<Graph>) -> Result<(), EngineError> {
        self.load_with(LoadRequest::new(graph)).map(|_| ())
    }

    /// Upload `request.graph`, replacing the previous one: renumbered by
    /// degree when its order says so, then checked against the memory
    /// budget before anything is allocated on the device.
    ///
    /// # Errors
    ///
    /// [`EngineError::Graph`] when a relabelled copy that `request.order`
    /// asks for does not fit the host (one the engine chose is skipped
    /// instead: the graph loads as given, and the report says why),
    /// [`EngineError::Memory`] when the graph does not fit the device
    /// (nothing is allocated), [`EngineError::Backend`] when the upload
    /// fails.
    pub fn load_with(&mut self, request: LoadRequest) -> Result<LoadReport, EngineError> {
        self.loaded = None;
        let mut order = choose_order(&request.graph, request.order);
        let relabel_started = Instant::now();
        let limit = || MemoryLimit::resolve(request.host_memory_limit);
        let relabelled = match order.numbering {
            Numbering::AsGiven => Ok(None),
            Numbering::ByDegree => relabel_by_degree(&request.graph, limit().as_ref()).map(Some),
            Numbering::ByBreadth => relabel_by_breadth(&request.graph, limit().as_ref()).map(Some),
        };
        let (graph, relabelling) = match relabelled {
            Ok(Some((graph, map))) => (Arc::new(graph), Some(map)),
            Ok(None) => (request.graph, None),
            // The engine's own choice is an optimisation: without room for the
            // copy, the graph loads as given.
            Err(GraphError::OutOfMemory { needed, .. }) if request.order == VertexOrder::Auto => {
                order = OrderDecision {
                    numbering: Numbering::AsGiven,
                    reason: format!(
                        "as given: {} would need {needed} host bytes for the renumbered copy, \
                         more than the limit allows",
                        order.numbering.name()
                    ),
                };
                (request.graph, None)
            }
            Err(e) => return Err(e.into()),
        };
        let relabel_time = relabel_started.elapsed();
        let upload_started = Instant::now();
        self.upload(graph, relabelling)?;
        Ok(LoadReport {
            order,
            relabel_time,
            upload_time: upload_started.elapsed(),
        })
    }

    fn upload(
        &mut self,
        graph: Arc<Graph>,
        relabelling: Option<Relabelling>,
    ) -> Result<(), EngineError> {
        let caps = self.backend.capabilities();
        let layout = DeviceLayout::for_graph(&graph, caps, MAX_FUSED_LEVELS)?;
        let bytes = layout.planner_bytes();
        let budget_bytes = self
            .memory_budget_override
            .unwrap_or(caps.memory_budget_bytes);
        let memory = plan_memory(
            MegakernelExecutionTopology::SparseFrontier,
            &graph,
            &bytes,
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
        let allowed = if self.backend.partitioned() {
            let budgets = vec![u64::MAX; self.backend.ranks() as usize];
            let plan = RankPlan::for_graph(&graph, &budgets)?;
            plan.bytes.iter().map(RankBytes::total).sum()
        } else {
            memory.required_bytes
        };
        if held > allowed {
            return Err(EngineError::ContractViolation(format!(
                "the backend of {} holds {held} bytes but the plan allows {allowed}",
                self.backend.capabilities().device_name,
            )));
        }
        let per_wave_widths = per_wave_widths(
            graph.vertex_count(),
            graph.edge_count(),
            self.backend.capabilities(),
        )?;
        self.backend.prepare(&PrepareRequest { per_wave_widths })?;
        self.loaded = Some(LoadedGraph {
            graph,
            relabelling,
            layout,
            bytes,
            budget_bytes,
            memory,
        });
        Ok(())
    }
}
