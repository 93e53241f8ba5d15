//! Edge cases whose expected answers were worked out by hand from the
//! policy's rules (thresholds, basis-point formulas, scratch multipliers), not
//! taken from the code under test.

use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities as Caps, MegakernelExecutionPlan, MegakernelExecutionSample,
    MegakernelExecutionTopology as T, MegakernelGraphShape, MegakernelMemoryBudget,
    MegakernelMemoryError, MegakernelMemoryPlan, megakernel_resident_graph_bytes,
    plan_megakernel_execution, plan_megakernel_memory_budget, select_megakernel_topology,
    select_megakernel_topology_stable,
};

/// 1 000 nodes, 4 000 edges: average degree 40 000 bps.
const GRAPH: MegakernelGraphShape = MegakernelGraphShape {
    node_count: 1_000,
    edge_count: 4_000,
};

fn mem(required_bytes: u64) -> MegakernelMemoryBudget {
    MegakernelMemoryBudget {
        required_bytes,
        budget_bytes: 10_000,
    }
}

fn sample(
    dispatch_cost_ns: f64,
    frontier_density: f64,
    readback_bytes: u64,
) -> MegakernelExecutionSample {
    MegakernelExecutionSample {
        dispatch_cost_ns,
        frontier_density,
        readback_bytes,
    }
}

/// Density 0.5, 1 MiB readback, 1 us dispatch.
fn mid() -> MegakernelExecutionSample {
    sample(1_000.0, 0.5, 1 << 20)
}

fn pick(s: MegakernelExecutionSample, required: u64, overhead: f64, fusion: f64) -> T {
    select_megakernel_topology(
        s,
        GRAPH,
        mem(required),
        overhead,
        fusion,
        Caps::FUSION_CAPABLE,
    )
    .topology
}

fn hold(
    s: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    required: u64,
    overhead: f64,
    fusion: f64,
    previous: T,
) -> T {
    select_megakernel_topology_stable(
        s,
        graph,
        mem(required),
        overhead,
        fusion,
        previous,
        Caps::FUSION_CAPABLE,
    )
    .topology
}

#[test]
fn red_zone_starts_at_exactly_nine_thousand_bps() {
    // 9 000 / 10 000 -> 9 000 bps: red zone, sparse for memory's sake.
    let d = select_megakernel_topology(
        sample(1_000.0, 0.9, 512),
        GRAPH,
        mem(9_000),
        100.0,
        0.0,
        Caps::FUSION_CAPABLE,
    );
    assert_eq!(
        d.stable_explanation(),
        "megakernel-topology-v1|topology=SparseFrontier|memory_pressure_bps=9000|average_degree_bps=40000|launch_pressure_bps=1000|reason=memory_pressure_sparse_safety"
    );
    // 8 999 bps: density 0.9 >= 0.85 with degree 40 000 >= 20 000.
    assert_eq!(
        pick(sample(1_000.0, 0.9, 512), 8_999, 100.0, 0.0),
        T::BlockDenseFrontier
    );
}

#[test]
fn all_zero_and_nan_inputs_pick_warp_sparse_with_zero_figures() {
    let d = select_megakernel_topology(
        sample(f64::NAN, f64::NAN, 0),
        MegakernelGraphShape {
            node_count: 0,
            edge_count: 0,
        },
        MegakernelMemoryBudget {
            required_bytes: 0,
            budget_bytes: 0,
        },
        f64::NAN,
        f64::NAN,
        Caps::FUSION_CAPABLE,
    );
    assert_eq!(
        d.stable_explanation(),
        "megakernel-topology-v1|topology=WarpSparseFrontier|memory_pressure_bps=0|average_degree_bps=0|launch_pressure_bps=0|reason=ultra_sparse_warp_specialized"
    );
}

#[test]
fn zero_budget_with_required_bytes_is_full_pressure() {
    let d = select_megakernel_topology(
        mid(),
        GRAPH,
        MegakernelMemoryBudget {
            required_bytes: 1,
            budget_bytes: 0,
        },
        250.0,
        0.9,
        Caps::FUSION_CAPABLE,
    );
    assert_eq!(d.memory_pressure_bps, 10_000);
    assert_eq!(d.topology, T::SparseFrontier);
}

#[test]
fn edges_without_nodes_have_unbounded_degree() {
    let d = select_megakernel_topology(
        sample(1_000.0, 0.02, 0),
        MegakernelGraphShape {
            node_count: 0,
            edge_count: 1,
        },
        mem(1_000),
        100.0,
        0.0,
        Caps::FUSION_CAPABLE,
    );
    // Degree u64::MAX > 80 000 rules out warp-sparse; 0.02 <= 0.125 is sparse.
    assert_eq!(
        d.stable_explanation(),
        "megakernel-topology-v1|topology=SparseFrontier|memory_pressure_bps=1000|average_degree_bps=18446744073709551615|launch_pressure_bps=1000|reason=low_density_sparse_queue"
    );
}

#[test]
fn non_finite_and_out_of_range_densities() {
    assert_eq!(
        pick(sample(1_000.0, f64::INFINITY, 0), 1_000, 100.0, 0.0),
        T::WarpSparseFrontier
    );
    assert_eq!(
        pick(sample(1_000.0, f64::NEG_INFINITY, 0), 1_000, 100.0, 0.0),
        T::WarpSparseFrontier
    );
    assert_eq!(
        pick(sample(1_000.0, -0.5, 0), 1_000, 100.0, 0.0),
        T::WarpSparseFrontier
    );
    // 7.0 clamps to 1.0: block dense.
    assert_eq!(
        pick(sample(1_000.0, 7.0, 0), 1_000, 100.0, 0.0),
        T::BlockDenseFrontier
    );
    // Band edges are inclusive.
    assert_eq!(
        pick(sample(1_000.0, 0.03125, 0), 1_000, 100.0, 0.0),
        T::WarpSparseFrontier
    );
    assert_eq!(
        pick(sample(1_000.0, 0.125, 0), 1_000, 100.0, 0.0),
        T::SparseFrontier
    );
    assert_eq!(
        pick(sample(1_000.0, 0.70, 0), 1_000, 100.0, 0.0),
        T::DenseFrontier
    );
    assert_eq!(
        pick(sample(1_000.0, 0.85, 0), 1_000, 100.0, 0.0),
        T::BlockDenseFrontier
    );
}

#[test]
fn dense_topologies_need_degree_two() {
    // 1 000 nodes, 1 999 edges: 19 990 bps < 20 000, so density 0.9 is hybrid.
    let thin = MegakernelGraphShape {
        node_count: 1_000,
        edge_count: 1_999,
    };
    let d = select_megakernel_topology(
        sample(1_000.0, 0.9, 0),
        thin,
        mem(1_000),
        100.0,
        0.0,
        Caps::FUSION_CAPABLE,
    );
    assert_eq!(
        (d.topology, d.average_degree_bps),
        (T::HybridFrontier, 19_990)
    );
}

#[test]
fn fused_wave_boundaries() {
    // fusion 0.70, launch 150 / 1 000 -> 1 500 bps, readback 4 096, memory 8 500.
    let edge = sample(1_000.0, 0.5, 4_096);
    assert_eq!(pick(edge, 8_500, 150.0, 0.70), T::FusedWave);
    assert_eq!(pick(edge, 8_501, 150.0, 0.70), T::HybridFrontier);
    assert_eq!(
        pick(sample(1_000.0, 0.5, 4_095), 8_500, 150.0, 0.70),
        T::HybridFrontier
    );
    assert_eq!(pick(edge, 8_500, 150.0, 0.69), T::HybridFrontier);
    // 149.96 / 1 000 -> 1 499.6 bps rounds to 1 500; 149.94 -> 1 499.4 -> 1 499.
    assert_eq!(pick(edge, 8_500, 149.96, 0.70), T::FusedWave);
    assert_eq!(pick(edge, 8_500, 149.94, 0.70), T::HybridFrontier);
    // Fusion pressure: NaN counts as 0, 5.0 clamps to 1.0.
    assert_eq!(pick(edge, 1_000, 250.0, f64::NAN), T::HybridFrontier);
    assert_eq!(pick(edge, 1_000, 250.0, 5.0), T::FusedWave);
}

#[test]
fn infinite_launch_overhead_saturates_and_fuses() {
    let d = select_megakernel_topology(
        mid(),
        GRAPH,
        mem(1_000),
        f64::INFINITY,
        0.9,
        Caps::FUSION_CAPABLE,
    );
    assert_eq!(
        d.stable_explanation(),
        "megakernel-topology-v1|topology=FusedWave|memory_pressure_bps=1000|average_degree_bps=40000|launch_pressure_bps=4294967295|reason=launch_and_readback_pressure_fused"
    );
    let incapable = select_megakernel_topology(
        mid(),
        GRAPH,
        mem(1_000),
        f64::INFINITY,
        0.9,
        Caps::FUSION_INCAPABLE,
    );
    assert_eq!(incapable.topology, T::HybridFrontier);
    assert_eq!(incapable.launch_pressure_bps, u32::MAX);
}

#[test]
fn unusable_dispatch_costs_and_overheads_give_zero_launch_pressure() {
    for (overhead, cost) in [
        (250.0, 0.0),
        (250.0, -0.0),
        (250.0, -1.0),
        (250.0, f64::NAN),
        (250.0, f64::INFINITY),
        (f64::NAN, 1_000.0),
        (-250.0, 1_000.0),
        (f64::NEG_INFINITY, 1_000.0),
    ] {
        let d = select_megakernel_topology(
            sample(cost, 0.5, 1 << 20),
            GRAPH,
            mem(1_000),
            overhead,
            0.9,
            Caps::FUSION_CAPABLE,
        );
        assert_eq!(d.launch_pressure_bps, 0, "overhead {overhead} cost {cost}");
        assert_eq!(
            d.topology,
            T::HybridFrontier,
            "overhead {overhead} cost {cost}"
        );
    }
}

#[test]
fn sparse_predecessors_stay_sparse_near_the_red_zone() {
    let dense = sample(1_000.0, 0.9, 512);
    assert_eq!(
        hold(dense, GRAPH, 8_750, 100.0, 0.0, T::SparseFrontier),
        T::SparseFrontier
    );
    assert_eq!(
        hold(dense, GRAPH, 8_750, 100.0, 0.0, T::WarpSparseFrontier),
        T::SparseFrontier
    );
    assert_eq!(
        hold(dense, GRAPH, 8_749, 100.0, 0.0, T::SparseFrontier),
        T::BlockDenseFrontier
    );
    // A dense predecessor gets no such hold: 8 750 bps is below the red zone.
    assert_eq!(
        hold(dense, GRAPH, 8_750, 100.0, 0.0, T::HybridFrontier),
        T::BlockDenseFrontier
    );
    // In the red zone even a fused predecessor becomes sparse.
    assert_eq!(
        hold(mid(), GRAPH, 9_000, 250.0, 0.9, T::FusedWave),
        T::SparseFrontier
    );
}

#[test]
fn density_hysteresis_bands() {
    let at = |density: f64| sample(1_000.0, density, 512);
    // Sparse is held up to 0.15.
    assert_eq!(
        hold(at(0.15), GRAPH, 1_000, 100.0, 0.0, T::SparseFrontier),
        T::SparseFrontier
    );
    assert_eq!(
        hold(at(0.16), GRAPH, 1_000, 100.0, 0.0, T::SparseFrontier),
        T::HybridFrontier
    );
    // Warp-sparse is held up to 0.05625 while the degree is <= 80 000 bps.
    assert_eq!(
        hold(at(0.05), GRAPH, 1_000, 100.0, 0.0, T::WarpSparseFrontier),
        T::WarpSparseFrontier
    );
    assert_eq!(
        hold(at(0.06), GRAPH, 1_000, 100.0, 0.0, T::WarpSparseFrontier),
        T::SparseFrontier
    );
    let heavy = MegakernelGraphShape {
        node_count: 1_000,
        edge_count: 9_000,
    };
    assert_eq!(
        hold(at(0.05), heavy, 1_000, 100.0, 0.0, T::WarpSparseFrontier),
        T::SparseFrontier
    );
    // Hybrid is held down to 0.10 against sparse, up to 0.725 against dense.
    assert_eq!(
        hold(at(0.11), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::HybridFrontier
    );
    assert_eq!(
        hold(at(0.09), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::SparseFrontier
    );
    assert_eq!(
        hold(at(0.02), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::WarpSparseFrontier
    );
    assert_eq!(
        hold(at(0.72), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::HybridFrontier
    );
    assert_eq!(
        hold(at(0.90), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::BlockDenseFrontier
    );
    assert_eq!(
        hold(at(0.73), GRAPH, 1_000, 100.0, 0.0, T::HybridFrontier),
        T::DenseFrontier
    );
    // Dense is held down to 0.675, block-dense down to 0.825.
    assert_eq!(
        hold(at(0.68), GRAPH, 1_000, 100.0, 0.0, T::DenseFrontier),
        T::DenseFrontier
    );
    assert_eq!(
        hold(at(0.67), GRAPH, 1_000, 100.0, 0.0, T::DenseFrontier),
        T::HybridFrontier
    );
    assert_eq!(
        hold(at(0.83), GRAPH, 1_000, 100.0, 0.0, T::BlockDenseFrontier),
        T::BlockDenseFrontier
    );
    assert_eq!(
        hold(at(0.82), GRAPH, 1_000, 100.0, 0.0, T::BlockDenseFrontier),
        T::DenseFrontier
    );
}

#[test]
fn fused_hysteresis_band() {
    // fusion 0.60, launch 125 / 1 000 -> 1 250 bps, readback 4 096, memory 8 750.
    let edge = sample(1_000.0, 0.5, 4_096);
    assert_eq!(
        hold(edge, GRAPH, 8_750, 125.0, 0.60, T::FusedWave),
        T::FusedWave
    );
    assert_eq!(
        hold(edge, GRAPH, 8_751, 125.0, 0.60, T::FusedWave),
        T::HybridFrontier
    );
    assert_eq!(
        hold(edge, GRAPH, 8_750, 124.0, 0.60, T::FusedWave),
        T::HybridFrontier
    );
    assert_eq!(
        hold(edge, GRAPH, 8_750, 125.0, 0.59, T::FusedWave),
        T::HybridFrontier
    );
    assert_eq!(
        hold(
            sample(1_000.0, 0.5, 4_095),
            GRAPH,
            8_750,
            125.0,
            0.60,
            T::FusedWave
        ),
        T::HybridFrontier
    );
}

/// 10 nodes x 8 bytes + 20 edges x 4 bytes = 160 graph bytes; 40 frontier,
/// 100 base scratch, 10 output.
const SMALL: MegakernelGraphShape = MegakernelGraphShape {
    node_count: 10,
    edge_count: 20,
};

fn small_plan(topology: T, budget: u64) -> Result<MegakernelMemoryPlan, MegakernelMemoryError> {
    plan_megakernel_memory_budget(topology, SMALL, 8, 4, 40, 100, 10, budget)
}

fn fits(
    scratch_bytes: u64,
    required_bytes: u64,
    memory_pressure_bps: u32,
) -> Result<MegakernelMemoryPlan, MegakernelMemoryError> {
    Ok(MegakernelMemoryPlan {
        graph_bytes: 160,
        frontier_bytes: 40,
        scratch_bytes,
        output_bytes: 10,
        required_bytes,
        budget_bytes: 1_000,
        memory_pressure_bps,
    })
}

#[test]
fn memory_plan_per_topology() {
    assert_eq!(megakernel_resident_graph_bytes(SMALL, 8, 4), Ok(160));
    assert_eq!(small_plan(T::SparseFrontier, 1_000), fits(100, 310, 3_100));
    assert_eq!(
        small_plan(T::WarpSparseFrontier, 1_000),
        fits(100, 310, 3_100)
    );
    assert_eq!(small_plan(T::DenseFrontier, 1_000), fits(200, 410, 4_100));
    assert_eq!(small_plan(T::HybridFrontier, 1_000), fits(300, 510, 5_100));
    assert_eq!(small_plan(T::FusedWave, 1_000), fits(400, 610, 6_100));
    // Warp-sparse needs at least 32 scratch bytes: 160 + 40 + 32 + 10 = 242.
    assert_eq!(
        plan_megakernel_memory_budget(T::WarpSparseFrontier, SMALL, 8, 4, 40, 0, 10, 1_000)
            .map(|p| p.required_bytes),
        Ok(242)
    );
    // Block-dense: max(100, 1 024) * 2 = 2 048 scratch, 2 258 in all.
    let err = small_plan(T::BlockDenseFrontier, 1_000).unwrap_err();
    assert_eq!(
        err,
        MegakernelMemoryError::OverBudget {
            topology: T::BlockDenseFrontier,
            required_bytes: 2_258,
            budget_bytes: 1_000,
            node_count: 10,
            edge_count: 20,
        }
    );
    assert_eq!(
        err.to_string(),
        "megakernel BlockDenseFrontier plan requires 2258 bytes but budget allows 1000 bytes for graph nodes=10 edges=20. Fix: choose a sparse topology, reduce fusion pressure, shard the graph, or raise the explicit device-memory budget."
    );
    // Exactly at the budget fits, at full pressure.
    assert_eq!(
        small_plan(T::SparseFrontier, 310).map(|p| p.memory_pressure_bps),
        Ok(10_000)
    );
    // 310 / 3 100 -> 1 000 bps; 310 / 930 -> 3 333.3 floors to 3 333.
    assert_eq!(
        small_plan(T::SparseFrontier, 930).map(|p| p.memory_pressure_bps),
        Ok(3_333)
    );
}

/// Topology, (nodes, edges), (bytes per node, per edge), (frontier, scratch,
/// output), and the field the overflow must name.
type OverflowCase = (T, (u64, u64), (u64, u64), (u64, u64, u64), &'static str);

#[test]
fn every_overflow_names_its_field() {
    let max = u64::MAX;
    let cases: [OverflowCase; 9] = [
        (
            T::SparseFrontier,
            (max, 0),
            (2, 0),
            (0, 0, 0),
            "node layout bytes",
        ),
        (
            T::SparseFrontier,
            (0, max),
            (0, 2),
            (0, 0, 0),
            "edge layout bytes",
        ),
        (
            T::SparseFrontier,
            (max, 1),
            (1, 1),
            (0, 0, 0),
            "graph layout bytes",
        ),
        (
            T::SparseFrontier,
            (max, 0),
            (1, 0),
            (1, 0, 0),
            "graph plus frontier bytes",
        ),
        (
            T::SparseFrontier,
            (0, 0),
            (0, 0),
            (max, 1, 0),
            "scratch bytes",
        ),
        (
            T::SparseFrontier,
            (0, 0),
            (0, 0),
            (max, 0, 1),
            "output bytes",
        ),
        (
            T::BlockDenseFrontier,
            (0, 0),
            (0, 0),
            (0, max / 2 + 1, 0),
            "block dense topology scratch bytes",
        ),
        (
            T::HybridFrontier,
            (0, 0),
            (0, 0),
            (0, max / 3 + 1, 0),
            "hybrid topology scratch bytes",
        ),
        (
            T::FusedWave,
            (0, 0),
            (0, 0),
            (0, max / 4 + 1, 0),
            "fused topology scratch bytes",
        ),
    ];
    for (
        topology,
        (node_count, edge_count),
        (per_node, per_edge),
        (frontier, scratch, output),
        field,
    ) in cases
    {
        let graph = MegakernelGraphShape {
            node_count,
            edge_count,
        };
        let err = plan_megakernel_memory_budget(
            topology, graph, per_node, per_edge, frontier, scratch, output, max,
        )
        .unwrap_err();
        assert_eq!(err, MegakernelMemoryError::ByteCountOverflow { field });
    }
    let dense =
        plan_megakernel_memory_budget(T::DenseFrontier, SMALL, 0, 0, 0, max / 2 + 1, 0, max);
    assert_eq!(
        dense,
        Err(MegakernelMemoryError::ByteCountOverflow {
            field: "dense topology scratch bytes"
        })
    );
    assert_eq!(
        MegakernelMemoryError::ByteCountOverflow {
            field: "output bytes"
        }
        .to_string(),
        "megakernel memory planner overflowed while computing output bytes. Fix: shard the graph or lower the candidate topology before planning device residency."
    );
    // u64::MAX scratch alone still fits a u64::MAX budget, at full pressure.
    let full =
        plan_megakernel_memory_budget(T::SparseFrontier, SMALL, 0, 0, 0, max, 0, max).unwrap();
    assert_eq!(
        (full.required_bytes, full.memory_pressure_bps),
        (max, 10_000)
    );
}

fn small_execution(
    density: f64,
    budget: u64,
    scratch: u64,
    fusion: f64,
) -> Result<MegakernelExecutionPlan, MegakernelMemoryError> {
    plan_megakernel_execution(
        sample(1_000.0, density, 1 << 20),
        SMALL,
        8,
        4,
        40,
        scratch,
        10,
        budget,
        250.0,
        fusion,
        Caps::FUSION_CAPABLE,
    )
}

#[test]
fn execution_plans_downgrade_only_over_budget() {
    // Degree 20 / 10 -> 20 000 bps, so density 0.9 picks block-dense, which
    // needs 2 258 bytes > 600: downgraded to the 310-byte sparse plan
    // (310 / 600 -> 5 166.7 -> 5 166 bps).
    let downgraded = small_execution(0.9, 600, 100, 0.0).unwrap();
    assert_eq!(
        downgraded,
        MegakernelExecutionPlan {
            topology: T::SparseFrontier,
            memory: MegakernelMemoryPlan {
                graph_bytes: 160,
                frontier_bytes: 40,
                scratch_bytes: 100,
                output_bytes: 10,
                required_bytes: 310,
                budget_bytes: 600,
                memory_pressure_bps: 5_166,
            },
            downgraded_to_sparse: true,
        }
    );
    // Density 0.75 picks dense: 410 bytes fit 600 (6 833 bps).
    let dense = small_execution(0.75, 600, 100, 0.0).unwrap();
    assert_eq!(
        (
            dense.topology,
            dense.memory.required_bytes,
            dense.memory.memory_pressure_bps,
            dense.downgraded_to_sparse
        ),
        (T::DenseFrontier, 410, 6_833, false)
    );
    // The sparse plan itself over budget is an error before any selection.
    assert_eq!(
        small_execution(0.75, 300, 100, 0.0),
        Err(MegakernelMemoryError::OverBudget {
            topology: T::SparseFrontier,
            required_bytes: 310,
            budget_bytes: 300,
            node_count: 10,
            edge_count: 20,
        })
    );
    // An overflow in the chosen (fused) topology is an error, not a downgrade:
    // sparse scratch 2^62 fits a u64::MAX budget at 2 500 bps, fused x4 does not.
    assert_eq!(
        small_execution(0.5, u64::MAX, 1 << 62, 0.9),
        Err(MegakernelMemoryError::ByteCountOverflow {
            field: "fused topology scratch bytes"
        })
    );
}
