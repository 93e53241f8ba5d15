//! The stable wave planner: plain answer on the first wave, hysteresis after
//! it, and memory plans served from its cache.

use proptest::prelude::*;
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlanner, MegakernelExecutionRequest,
    MegakernelExecutionSample, MegakernelExecutionTopology as T, MegakernelGraphShape,
    MegakernelMemoryError, plan_megakernel_execution, plan_megakernel_execution_with,
};
use vyre_runtime::plan::topology::{MemoryPlanCacheStats, TopologyPlanner};

/// 1 000 nodes, 4 000 edges (degree 40 000 bps); 8 000 + 16 000 graph bytes,
/// 4 000 frontier, 1 000 scratch, 4 000 output: a sparse peak of 33 000
/// bytes, far below the 1 GiB budget.
fn wave(frontier_density: f64, fusion_pressure: f64) -> MegakernelExecutionRequest {
    MegakernelExecutionRequest {
        sample: MegakernelExecutionSample {
            dispatch_cost_ns: 1_000.0,
            frontier_density,
            readback_bytes: 1 << 20,
        },
        graph: MegakernelGraphShape {
            node_count: 1_000,
            edge_count: 4_000,
        },
        bytes_per_node: 8,
        bytes_per_edge: 4,
        frontier_bytes: 4_000,
        scratch_bytes: 1_000,
        output_bytes: 4_000,
        budget_bytes: 1 << 30,
        launch_overhead_ns: 250.0,
        fusion_pressure,
        capabilities: MegakernelDeviceCapabilities::FUSION_CAPABLE,
    }
}

fn run(planner: &mut TopologyPlanner, request: MegakernelExecutionRequest) -> T {
    planner.plan_execution(request).unwrap().topology
}

#[test]
fn hysteresis_holds_sparse_and_hybrid_near_their_threshold() {
    let mut planner = TopologyPlanner::new();
    assert_eq!(planner.previous(), None);
    assert_eq!(run(&mut planner, wave(0.10, 0.0)), T::SparseFrontier);
    // 0.14 is past the 0.125 sparse edge but within its 0.025 margin.
    assert_eq!(run(&mut planner, wave(0.14, 0.0)), T::SparseFrontier);
    assert_eq!(planner.previous(), Some(T::SparseFrontier));
    // Without a previous wave the same telemetry is hybrid.
    assert_eq!(
        run(&mut TopologyPlanner::new(), wave(0.14, 0.0)),
        T::HybridFrontier
    );
    // Past the margin the planner moves, and then holds hybrid down to 0.10.
    assert_eq!(run(&mut planner, wave(0.16, 0.0)), T::HybridFrontier);
    assert_eq!(run(&mut planner, wave(0.11, 0.0)), T::HybridFrontier);
    assert_eq!(run(&mut planner, wave(0.09, 0.0)), T::SparseFrontier);
}

#[test]
fn hysteresis_holds_a_fused_wave_while_pressure_stays_in_its_band() {
    let mut planner = TopologyPlanner::new();
    assert_eq!(run(&mut planner, wave(0.5, 0.9)), T::FusedWave);
    assert_eq!(run(&mut planner, wave(0.5, 0.65)), T::FusedWave);
    assert_eq!(
        run(&mut TopologyPlanner::new(), wave(0.5, 0.65)),
        T::HybridFrontier
    );
    assert_eq!(run(&mut planner, wave(0.5, 0.55)), T::HybridFrontier);
}

#[test]
fn memory_plans_are_cached_from_the_second_wave() {
    let mut planner = TopologyPlanner::new();
    // Hybrid needs the sparse plan and its own: two misses.
    run(&mut planner, wave(0.35, 0.0));
    assert_eq!(
        planner.memory_cache_stats(),
        MemoryPlanCacheStats { hits: 0, misses: 2 }
    );
    // A later wave plans twice (plain, then stable), all from the cache.
    run(&mut planner, wave(0.35, 0.0));
    assert_eq!(
        planner.memory_cache_stats(),
        MemoryPlanCacheStats { hits: 4, misses: 2 }
    );
    // Dense is new to the cache once; sparse is not.
    run(&mut planner, wave(0.80, 0.0));
    assert_eq!(
        planner.memory_cache_stats(),
        MemoryPlanCacheStats { hits: 7, misses: 3 }
    );
    // A new search keeps the plans: same bytes, same answers.
    planner.reset();
    run(&mut planner, wave(0.35, 0.0));
    assert_eq!(
        planner.memory_cache_stats(),
        MemoryPlanCacheStats { hits: 9, misses: 3 }
    );
    // Other byte inputs are another key.
    let mut other = wave(0.35, 0.0);
    other.budget_bytes = 1 << 29;
    run(&mut planner, other);
    assert_eq!(
        planner.memory_cache_stats(),
        MemoryPlanCacheStats {
            hits: 11,
            misses: 5
        }
    );
}

#[test]
fn downgrade_and_errors_update_the_state_as_documented() {
    let mut planner = TopologyPlanner::new();
    // Scratch 20 000: sparse peaks at 24 000 + 4 000 + 20 000 + 4 000 =
    // 52 000 bytes (8 666 bps of 60 000, below the red zone); hybrid triples
    // the scratch to 92 000 bytes, over budget.
    let mut tight = wave(0.35, 0.0);
    tight.scratch_bytes = 20_000;
    tight.budget_bytes = 60_000;
    let plan = planner.plan_execution(tight).unwrap();
    assert_eq!(
        (
            plan.topology,
            plan.downgraded_to_sparse,
            plan.memory.required_bytes
        ),
        (T::SparseFrontier, true, 52_000)
    );
    assert_eq!(planner.previous(), Some(T::SparseFrontier));
    let decision = *planner.last_decision().unwrap();
    assert_eq!(
        (decision.topology, decision.memory_pressure_bps),
        (T::HybridFrontier, 8_666)
    );
    // Sparse itself over budget: an error that leaves the state alone.
    let mut impossible = tight;
    impossible.budget_bytes = 51_999;
    assert!(matches!(
        planner.plan_execution(impossible),
        Err(MegakernelMemoryError::OverBudget {
            topology: T::SparseFrontier,
            required_bytes: 52_000,
            budget_bytes: 51_999,
            ..
        })
    ));
    assert_eq!(planner.previous(), Some(T::SparseFrontier));
    assert_eq!(planner.last_decision(), Some(&decision));
    planner.reset();
    assert_eq!((planner.previous(), planner.last_decision()), (None, None));
}

fn bytes() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 0..70_000u64, 1 => any::<u64>(), 1 => Just(u64::MAX)]
}

fn real() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0..1.0f64,
        1 => any::<f64>(),
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -1.0]),
    ]
}

fn request() -> impl Strategy<Value = MegakernelExecutionRequest> {
    (
        (1..5_000u64, 0..50_000u64, 0..16u64, 0..16u64),
        (
            bytes(),
            bytes(),
            bytes(),
            prop_oneof![3 => 50_000..2_000_000u64, 1 => bytes()],
        ),
        (
            prop_oneof![3 => 100.0..10_000.0f64, 1 => real()],
            real(),
            0..(1u64 << 21),
        ),
        (
            prop_oneof![2 => 50.0..500.0f64, 1 => real()],
            real(),
            any::<bool>(),
        ),
    )
        .prop_map(
            |(
                (node_count, edge_count, bytes_per_node, bytes_per_edge),
                (frontier_bytes, scratch_bytes, output_bytes, budget_bytes),
                (dispatch_cost_ns, frontier_density, readback_bytes),
                (launch_overhead_ns, fusion_pressure, barrier),
            )| MegakernelExecutionRequest {
                sample: MegakernelExecutionSample {
                    dispatch_cost_ns,
                    frontier_density,
                    readback_bytes,
                },
                graph: MegakernelGraphShape {
                    node_count,
                    edge_count,
                },
                bytes_per_node,
                bytes_per_edge,
                frontier_bytes,
                scratch_bytes,
                output_bytes,
                budget_bytes,
                launch_overhead_ns,
                fusion_pressure,
                capabilities: MegakernelDeviceCapabilities {
                    supports_device_wide_barrier: barrier,
                },
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_096, ..ProptestConfig::default() })]

    #[test]
    fn first_wave_answers_what_plan_megakernel_execution_answers(r in request()) {
        let expected = plan_megakernel_execution(
            r.sample, r.graph, r.bytes_per_node, r.bytes_per_edge, r.frontier_bytes,
            r.scratch_bytes, r.output_bytes, r.budget_bytes, r.launch_overhead_ns,
            r.fusion_pressure, r.capabilities,
        );
        let mut planner = TopologyPlanner::new();
        prop_assert_eq!(planner.plan_execution(r), expected.clone());
        // After a reset the next wave is a first wave again.
        planner.reset();
        prop_assert_eq!(planner.plan_execution(r), expected);
    }

    #[test]
    fn later_waves_follow_the_stable_policy_with_cached_memory(
        first in request(),
        waves in prop::collection::vec((real(), real(), 0..(1u64 << 21)), 1..12),
    ) {
        let mut planner = TopologyPlanner::new();
        let mut previous = None;
        for (frontier_density, fusion_pressure, readback_bytes) in
            std::iter::once((first.sample.frontier_density, first.fusion_pressure, first.sample.readback_bytes))
                .chain(waves)
        {
            let mut r = first;
            r.sample.frontier_density = frontier_density;
            r.sample.readback_bytes = readback_bytes;
            r.fusion_pressure = fusion_pressure;
            // The plain selector's FusedWave is taken as is; otherwise the
            // stable selector decides from the previous topology.
            let plain = plan_megakernel_execution_with(&r, None, |t| r.plan_memory(t));
            let fused = matches!(&plain, Ok(p) if p.plan.topology == T::FusedWave);
            let expected = if fused || previous.is_none() {
                plain
            } else {
                plan_megakernel_execution_with(&r, previous, |t| r.plan_memory(t))
            };
            let ours = planner.plan_execution(r);
            prop_assert_eq!(ours.clone(), expected.clone().map(|p| p.plan));
            if let Ok(planned) = expected {
                previous = Some(planned.plan.topology);
                prop_assert_eq!(planner.last_decision(), Some(&planned.decision));
            }
            prop_assert_eq!(planner.previous(), previous);
        }
        // One byte layout: each topology's memory is planned at most once.
        prop_assert!(planner.memory_cache_stats().misses <= 6);
    }
}

#[test]
fn a_launch_bound_wave_fuses_even_after_a_sparse_one() {
    let mut planner = TopologyPlanner::new();
    // Sparse density, no fusion pressure: sparse.
    assert_eq!(run(&mut planner, wave(0.05, 0.0)), T::SparseFrontier);
    // Same density, launch-bound: the stable selector alone would hold
    // sparse; the planner fuses.
    assert_eq!(run(&mut planner, wave(0.05, 0.9)), T::FusedWave);
    // Pressure between the hysteresis floor and the threshold: held.
    assert_eq!(run(&mut planner, wave(0.05, 0.65)), T::FusedWave);
    // Below the floor: back to a per-wave topology.
    assert_eq!(run(&mut planner, wave(0.05, 0.5)), T::SparseFrontier);
}
