//! Whole-wave planning: memory for the sparse fallback, a topology, memory
//! for that topology, and a downgrade to sparse when it does not fit.

use super::decision::MegakernelTopologyDecision;
use super::memory::{MegakernelMemoryError, plan_megakernel_memory_budget};
use super::selection::select_megakernel_topology;
use super::stability::select_megakernel_topology_stable;
use super::types::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlan, MegakernelExecutionSample,
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryBudget,
    MegakernelMemoryPlan,
};

/// Every input one candidate wave needs to reach an execution plan.
///
/// This is the argument list of [`plan_megakernel_execution`] as one value so a
/// backend can memoize the decision without restating it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MegakernelExecutionRequest {
    /// Runtime telemetry for the candidate wave.
    pub sample: MegakernelExecutionSample,
    /// Static graph shape.
    pub graph: MegakernelGraphShape,
    /// Resident bytes per graph node.
    pub bytes_per_node: u64,
    /// Resident bytes per graph edge.
    pub bytes_per_edge: u64,
    /// Frontier-state bytes for the wave.
    pub frontier_bytes: u64,
    /// Base scratch bytes before the topology multiplier.
    pub scratch_bytes: u64,
    /// Final compact output bytes.
    pub output_bytes: u64,
    /// Caller-approved device-memory budget.
    pub budget_bytes: u64,
    /// Per-launch overhead observed for this device.
    pub launch_overhead_ns: f64,
    /// Caller-measured pressure toward fusing adjacent waves.
    pub fusion_pressure: f64,
    /// Capabilities of the device that will run the wave.
    pub capabilities: MegakernelDeviceCapabilities,
}

impl MegakernelExecutionRequest {
    /// [`plan_megakernel_memory_budget`] for `topology` with this request's
    /// byte inputs.
    ///
    /// # Errors
    ///
    /// As [`plan_megakernel_memory_budget`].
    pub fn plan_memory(
        &self,
        topology: MegakernelExecutionTopology,
    ) -> Result<MegakernelMemoryPlan, MegakernelMemoryError> {
        plan_megakernel_memory_budget(
            topology,
            self.graph,
            self.bytes_per_node,
            self.bytes_per_edge,
            self.frontier_bytes,
            self.scratch_bytes,
            self.output_bytes,
            self.budget_bytes,
        )
    }

    /// The topology decision for this wave given the sparse plan's peak
    /// bytes: [`select_megakernel_topology`] without a previous topology,
    /// [`select_megakernel_topology_stable`] with one.
    #[must_use]
    pub fn select_topology(
        &self,
        sparse_required_bytes: u64,
        previous_topology: Option<MegakernelExecutionTopology>,
    ) -> MegakernelTopologyDecision {
        let memory = MegakernelMemoryBudget {
            required_bytes: sparse_required_bytes,
            budget_bytes: self.budget_bytes,
        };
        match previous_topology {
            None => select_megakernel_topology(
                self.sample,
                self.graph,
                memory,
                self.launch_overhead_ns,
                self.fusion_pressure,
                self.capabilities,
            ),
            Some(previous) => select_megakernel_topology_stable(
                self.sample,
                self.graph,
                memory,
                self.launch_overhead_ns,
                self.fusion_pressure,
                previous,
                self.capabilities,
            ),
        }
    }
}

/// An execution plan together with the decision it came from.
///
/// `decision.topology` is the selected topology; `plan.topology` differs from
/// it only when the plan was downgraded to sparse to fit the budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MegakernelPlannedExecution {
    /// The memory-validated plan to run.
    pub plan: MegakernelExecutionPlan,
    /// The selector's decision and the pressures behind it.
    pub decision: MegakernelTopologyDecision,
}

/// [`plan_megakernel_execution`] for a request, optionally through the stable
/// selector, with memory plans supplied by the caller.
///
/// `plan_memory` must answer exactly what [`MegakernelExecutionRequest::plan_memory`]
/// answers for the same topology; it is a parameter so that a planner can
/// serve those (wave-invariant) plans from a cache. The steps: plan sparse
/// memory (an error there is returned), select a topology against the sparse
/// peak (stable when `previous_topology` is given), plan the selected
/// topology's memory, and downgrade to sparse when only that plan is over
/// budget. Any other error is returned.
///
/// # Errors
///
/// [`MegakernelMemoryError`] when byte accounting overflows or even the
/// sparse plan exceeds the budget.
pub fn plan_megakernel_execution_with<F>(
    request: &MegakernelExecutionRequest,
    previous_topology: Option<MegakernelExecutionTopology>,
    mut plan_memory: F,
) -> Result<MegakernelPlannedExecution, MegakernelMemoryError>
where
    F: FnMut(MegakernelExecutionTopology) -> Result<MegakernelMemoryPlan, MegakernelMemoryError>,
{
    let sparse = plan_memory(MegakernelExecutionTopology::SparseFrontier)?;
    let decision = request.select_topology(sparse.required_bytes, previous_topology);
    let plan = if decision.topology == MegakernelExecutionTopology::SparseFrontier {
        // Same inputs as the plan just made: no need to compute it twice.
        MegakernelExecutionPlan {
            topology: decision.topology,
            memory: sparse,
            downgraded_to_sparse: false,
        }
    } else {
        match plan_memory(decision.topology) {
            Ok(memory) => MegakernelExecutionPlan {
                topology: decision.topology,
                memory,
                downgraded_to_sparse: false,
            },
            Err(MegakernelMemoryError::OverBudget { .. }) => MegakernelExecutionPlan {
                topology: MegakernelExecutionTopology::SparseFrontier,
                memory: sparse,
                downgraded_to_sparse: true,
            },
            Err(error) => return Err(error),
        }
    };
    Ok(MegakernelPlannedExecution { plan, decision })
}

/// Select a megakernel topology and validate its device-memory plan.
///
/// See [`plan_megakernel_execution_with`] for the steps; this is that with no
/// previous topology and memory planned directly.
///
/// # Errors
///
/// [`MegakernelMemoryError`] when byte accounting overflows or even the
/// sparse plan exceeds the budget.
#[allow(
    clippy::too_many_arguments,
    reason = "positional signature of the specified policy, kept for compatibility; \
              MegakernelExecutionRequest carries the same inputs as one value"
)]
pub fn plan_megakernel_execution(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
    frontier_bytes: u64,
    scratch_bytes: u64,
    output_bytes: u64,
    budget_bytes: u64,
    launch_overhead_ns: f64,
    fusion_pressure: f64,
    capabilities: MegakernelDeviceCapabilities,
) -> Result<MegakernelExecutionPlan, MegakernelMemoryError> {
    let request = MegakernelExecutionRequest {
        sample,
        graph,
        bytes_per_node,
        bytes_per_edge,
        frontier_bytes,
        scratch_bytes,
        output_bytes,
        budget_bytes,
        launch_overhead_ns,
        fusion_pressure,
        capabilities,
    };
    plan_megakernel_execution_with(&request, None, |topology| request.plan_memory(topology))
        .map(|planned| planned.plan)
}

/// Source of memory-validated megakernel execution plans.
///
/// The decision itself is [`plan_megakernel_execution`]. A backend implements
/// this trait only to put a device-local cache in front of that decision, never
/// to make a different one.
pub trait MegakernelExecutionPlanner {
    /// Plan one candidate wave.
    ///
    /// # Errors
    ///
    /// Returns [`MegakernelMemoryError`] when the request overflows byte
    /// accounting or cannot fit the approved budget.
    fn plan_execution(
        &mut self,
        request: MegakernelExecutionRequest,
    ) -> Result<MegakernelExecutionPlan, MegakernelMemoryError>;
}

/// The neutral policy with no memoization, for backends without a plan cache.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct NeutralMegakernelExecutionPlanner;

impl MegakernelExecutionPlanner for NeutralMegakernelExecutionPlanner {
    fn plan_execution(
        &mut self,
        request: MegakernelExecutionRequest,
    ) -> Result<MegakernelExecutionPlan, MegakernelMemoryError> {
        plan_megakernel_execution_with(&request, None, |topology| request.plan_memory(topology))
            .map(|planned| planned.plan)
    }
}
