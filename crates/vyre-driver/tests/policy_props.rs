//! Properties of the wave policy over every input, special values included.

mod support;

use proptest::prelude::*;
use support::seed_model;
use support::strategies::{budget, capabilities, graph, request, sample, topology, wild_f64};
use vyre_driver::megakernel_execution::{
    MegakernelExecutionPlanner, MegakernelExecutionTopology as T, MegakernelMemoryError,
    MegakernelTopologyDecision, NeutralMegakernelExecutionPlanner, plan_megakernel_execution,
    plan_megakernel_execution_with, select_megakernel_topology, select_megakernel_topology_stable,
};

fn figures(d: &MegakernelTopologyDecision) -> seed_model::Decision {
    (
        d.topology,
        d.memory_pressure_bps,
        d.average_degree_bps,
        d.launch_pressure_bps,
    )
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 4_096,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn plain_selector_agrees_with_the_specification(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), caps in capabilities(),
    ) {
        let ours = select_megakernel_topology(s, g, m, overhead, fusion, caps);
        prop_assert_eq!(figures(&ours), seed_model::select(s, g, m, overhead, fusion, caps));
    }

    #[test]
    fn stable_selector_agrees_with_the_specification(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), previous in topology(), caps in capabilities(),
    ) {
        let ours = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        prop_assert_eq!(
            figures(&ours),
            seed_model::select_stable(s, g, m, overhead, fusion, previous, caps)
        );
    }

    #[test]
    fn stable_selector_changes_only_the_topology(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), previous in topology(), caps in capabilities(),
    ) {
        let plain = select_megakernel_topology(s, g, m, overhead, fusion, caps);
        let stable = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        prop_assert_eq!(plain.memory_pressure_bps, stable.memory_pressure_bps);
        prop_assert_eq!(plain.average_degree_bps, stable.average_degree_bps);
        prop_assert_eq!(plain.launch_pressure_bps, stable.launch_pressure_bps);
        // The topology is either the plain answer or the held predecessor.
        prop_assert!(
            stable.topology == plain.topology
                || stable.topology == previous
                || stable.topology == T::SparseFrontier
        );
    }

    #[test]
    fn fused_wave_needs_a_device_wide_barrier(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), previous in topology(),
    ) {
        let caps = vyre_driver::megakernel_execution::MegakernelDeviceCapabilities::FUSION_INCAPABLE;
        let plain = select_megakernel_topology(s, g, m, overhead, fusion, caps);
        let stable = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        prop_assert_ne!(plain.topology, T::FusedWave);
        prop_assert_ne!(stable.topology, T::FusedWave);
    }

    #[test]
    fn pressures_stay_in_range_and_red_zone_is_sparse(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), previous in topology(), caps in capabilities(),
    ) {
        let plain = select_megakernel_topology(s, g, m, overhead, fusion, caps);
        let stable = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        prop_assert!(plain.memory_pressure_bps <= 10_000);
        if !(s.dispatch_cost_ns.is_finite() && s.dispatch_cost_ns > 0.0) {
            prop_assert_eq!(plain.launch_pressure_bps, 0);
        }
        if g.node_count == 0 {
            prop_assert_eq!(plain.average_degree_bps, if g.edge_count == 0 { 0 } else { u64::MAX });
        }
        if plain.memory_pressure_bps >= 9_000 {
            prop_assert_eq!(plain.topology, T::SparseFrontier);
            prop_assert_eq!(stable.topology, T::SparseFrontier);
            prop_assert!(plain.stable_explanation().ends_with("reason=memory_pressure_sparse_safety"));
        }
    }

    #[test]
    fn selection_is_deterministic(
        s in sample(), g in graph(), m in budget(),
        overhead in wild_f64(), fusion in wild_f64(), previous in topology(), caps in capabilities(),
    ) {
        let a = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        let b = select_megakernel_topology_stable(s, g, m, overhead, fusion, previous, caps);
        prop_assert_eq!(figures(&a), figures(&b));
        prop_assert_eq!(a.stable_explanation(), b.stable_explanation());
    }

    #[test]
    fn execution_plan_agrees_with_the_specification(r in request(), previous in prop::option::of(topology())) {
        let ours = plan_megakernel_execution_with(&r, previous, |t| r.plan_memory(t))
            .map(|planned| planned.plan);
        let spec = seed_model::plan_execution(
            r.sample, r.graph, r.bytes_per_node, r.bytes_per_edge, r.frontier_bytes,
            r.scratch_bytes, r.output_bytes, r.budget_bytes, r.launch_overhead_ns,
            r.fusion_pressure, r.capabilities, previous,
        );
        prop_assert_eq!(&ours, &spec);
        if previous.is_none() {
            let positional = plan_megakernel_execution(
                r.sample, r.graph, r.bytes_per_node, r.bytes_per_edge, r.frontier_bytes,
                r.scratch_bytes, r.output_bytes, r.budget_bytes, r.launch_overhead_ns,
                r.fusion_pressure, r.capabilities,
            );
            prop_assert_eq!(&positional, &spec);
            prop_assert_eq!(&NeutralMegakernelExecutionPlanner.plan_execution(r), &spec);
        }
    }

    #[test]
    fn memory_plans_agree_with_the_specification(r in request(), t in topology()) {
        let spec = seed_model::plan_memory(
            t, r.graph, r.bytes_per_node, r.bytes_per_edge, r.frontier_bytes,
            r.scratch_bytes, r.output_bytes, r.budget_bytes,
        );
        let ours = r.plan_memory(t);
        prop_assert_eq!(&ours, &spec);
        if let (Err(a), Err(b)) = (&ours, &spec) {
            prop_assert_eq!(a.to_string(), b.to_string());
        }
    }

    #[test]
    fn plans_fit_and_downgrade_only_when_the_choice_is_over_budget(
        r in request(), previous in prop::option::of(topology()),
    ) {
        let Ok(planned) = plan_megakernel_execution_with(&r, previous, |t| r.plan_memory(t)) else {
            return Ok(());
        };
        let plan = planned.plan;
        prop_assert!(plan.memory.required_bytes <= plan.memory.budget_bytes);
        prop_assert_eq!(plan.memory.budget_bytes, r.budget_bytes);
        prop_assert!(plan.memory.memory_pressure_bps <= 10_000);
        if !r.capabilities.supports_device_wide_barrier {
            prop_assert_ne!(plan.topology, T::FusedWave);
        }
        if plan.downgraded_to_sparse {
            prop_assert_eq!(plan.topology, T::SparseFrontier);
            prop_assert_ne!(planned.decision.topology, T::SparseFrontier);
            let over_budget = matches!(
                r.plan_memory(planned.decision.topology),
                Err(MegakernelMemoryError::OverBudget { .. })
            );
            prop_assert!(over_budget);
        } else {
            prop_assert_eq!(plan.topology, planned.decision.topology);
            prop_assert_eq!(Ok(plan.memory), r.plan_memory(plan.topology));
        }
    }

    #[test]
    fn errors_are_real(r in request(), previous in prop::option::of(topology())) {
        match plan_megakernel_execution_with(&r, previous, |t| r.plan_memory(t)) {
            Ok(_) => {}
            Err(MegakernelMemoryError::OverBudget { required_bytes, budget_bytes, topology, .. }) => {
                // Only the sparse plan's failure surfaces.
                prop_assert_eq!(topology, T::SparseFrontier);
                prop_assert!(required_bytes > budget_bytes);
            }
            Err(error @ MegakernelMemoryError::ByteCountOverflow { .. }) => {
                prop_assert!(error.to_string().contains("Fix: "));
            }
        }
    }
}
