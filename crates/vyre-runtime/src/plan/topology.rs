//! [`TopologyPlanner`]: the engine's per-search wave planner. It runs the
//! policy's plan through the stable (hysteresis) selector, remembering the
//! previous wave's topology, and serves the per-topology memory plans from a
//! cache because they do not change between waves of one graph.

use vyre_driver::megakernel_execution::{
    MegakernelExecutionPlan, MegakernelExecutionPlanner, MegakernelExecutionRequest,
    MegakernelExecutionTopology, MegakernelGraphShape, MegakernelMemoryError, MegakernelMemoryPlan,
    MegakernelTopologyDecision, plan_megakernel_execution_with,
};

/// Plans the waves of one search with hysteresis and a memory-plan cache.
///
/// Each call follows `plan_megakernel_execution` exactly (plan sparse memory,
/// an error there is returned; select; plan the selected topology; downgrade
/// to sparse when it is over budget), except that from the second wave on
/// the topology comes from `select_megakernel_topology_stable` with the
/// previous wave's final topology — unless the plain selector picks
/// `FusedWave`, which is taken directly (hysteresis between per-wave
/// topologies must not keep a launch-bound search from fusing; once fused,
/// the stable selector's own `FusedWave` arm holds it). The first wave (or the first after
/// [`TopologyPlanner::reset`]) uses the plain selector, so it answers
/// exactly what `plan_megakernel_execution` answers.
#[derive(Debug, Default)]
pub struct TopologyPlanner {
    previous: Option<MegakernelExecutionTopology>,
    last_decision: Option<MegakernelTopologyDecision>,
    memory: MemoryPlanCache,
}

impl TopologyPlanner {
    /// A planner for a new search.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget the previous wave (a new search begins). Cached memory plans
    /// stay: they depend only on the byte inputs, which are part of their key.
    pub fn reset(&mut self) {
        self.previous = None;
        self.last_decision = None;
    }

    /// The topology the last successful plan ran (after any downgrade), which
    /// the next wave's hysteresis holds on to.
    #[must_use]
    pub fn previous(&self) -> Option<MegakernelExecutionTopology> {
        self.previous
    }

    /// The selector's decision behind the last successful plan, for
    /// [`MegakernelTopologyDecision::stable_explanation`]. Its topology is the
    /// one selected; the plan's differs when it was downgraded to sparse.
    #[must_use]
    pub fn last_decision(&self) -> Option<&MegakernelTopologyDecision> {
        self.last_decision.as_ref()
    }

    /// Hit and miss counts of the memory-plan cache.
    #[must_use]
    pub fn memory_cache_stats(&self) -> MemoryPlanCacheStats {
        self.memory.stats
    }
}

impl MegakernelExecutionPlanner for TopologyPlanner {
    fn plan_execution(
        &mut self,
        request: MegakernelExecutionRequest,
    ) -> Result<MegakernelExecutionPlan, MegakernelMemoryError> {
        let memory = &mut self.memory;
        memory.rekey(MemoryKey::of(&request));
        let plain = plan_megakernel_execution_with(&request, None, |topology| {
            memory.plan(&request, topology)
        });
        // The stable selector holds a per-wave topology while the density
        // stays in its band, even when launch and readback pressure say fuse.
        // Fusion is another axis (how many levels one launch runs), so the
        // plain selector's FusedWave is taken as is; the stable selector's
        // FusedWave arm then holds it at its lower thresholds.
        let fuse = matches!(
            &plain,
            Ok(p) if p.plan.topology == MegakernelExecutionTopology::FusedWave
        );
        let planned = if self.previous.is_none() || fuse {
            plain?
        } else {
            plan_megakernel_execution_with(&request, self.previous, |topology| {
                memory.plan(&request, topology)
            })?
        };
        self.previous = Some(planned.plan.topology);
        self.last_decision = Some(planned.decision);
        Ok(planned.plan)
    }
}

/// Hit and miss counts of a [`TopologyPlanner`]'s memory-plan cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryPlanCacheStats {
    /// Memory plans answered from the cache.
    pub hits: u64,
    /// Memory plans computed.
    pub misses: u64,
}

/// Every input of `plan_megakernel_memory_budget` except the topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MemoryKey {
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
    frontier_bytes: u64,
    scratch_bytes: u64,
    output_bytes: u64,
    budget_bytes: u64,
}

impl MemoryKey {
    fn of(request: &MegakernelExecutionRequest) -> Self {
        Self {
            graph: request.graph,
            bytes_per_node: request.bytes_per_node,
            bytes_per_edge: request.bytes_per_edge,
            frontier_bytes: request.frontier_bytes,
            scratch_bytes: request.scratch_bytes,
            output_bytes: request.output_bytes,
            budget_bytes: request.budget_bytes,
        }
    }
}

type MemoryResult = Result<MegakernelMemoryPlan, MegakernelMemoryError>;

/// Memory plans (or their deterministic errors) for one set of byte inputs,
/// one slot per topology. A search keeps one byte layout, so one key is
/// enough; a request with other byte inputs replaces the cached plans.
#[derive(Debug, Default)]
struct MemoryPlanCache {
    key: Option<MemoryKey>,
    plans: [Option<MemoryResult>; MegakernelExecutionTopology::ALL.len()],
    stats: MemoryPlanCacheStats,
}

impl MemoryPlanCache {
    fn rekey(&mut self, key: MemoryKey) {
        if self.key != Some(key) {
            self.key = Some(key);
            self.plans = Default::default();
        }
    }

    fn plan(
        &mut self,
        request: &MegakernelExecutionRequest,
        topology: MegakernelExecutionTopology,
    ) -> MemoryResult {
        let slot = &mut self.plans[slot_of(topology)];
        if let Some(cached) = slot {
            self.stats.hits = self.stats.hits.saturating_add(1);
            return cached.clone();
        }
        self.stats.misses = self.stats.misses.saturating_add(1);
        let planned = request.plan_memory(topology);
        *slot = Some(planned.clone());
        planned
    }
}

/// Index of `topology` in [`MegakernelExecutionTopology::ALL`].
fn slot_of(topology: MegakernelExecutionTopology) -> usize {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => 0,
        MegakernelExecutionTopology::SparseFrontier => 1,
        MegakernelExecutionTopology::BlockDenseFrontier => 2,
        MegakernelExecutionTopology::DenseFrontier => 3,
        MegakernelExecutionTopology::HybridFrontier => 4,
        MegakernelExecutionTopology::FusedWave => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::slot_of;
    use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

    #[test]
    fn slots_follow_the_declaration_order() {
        for (index, topology) in MegakernelExecutionTopology::ALL.into_iter().enumerate() {
            assert_eq!(slot_of(topology), index);
        }
    }
}
