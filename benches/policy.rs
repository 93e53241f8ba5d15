//! Cost of the per-wave policy and of the grid planner's caches.
//!
//! Run with `cargo bench --bench policy` (add `--no-default-features` to skip
//! building the GPU backends, which these benches do not use). Figures land in
//! the "Policy and grid planner" section of `docs/BENCHMARKS.md`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlanner, MegakernelExecutionRequest,
    MegakernelExecutionSample, MegakernelExecutionTopology, MegakernelGraphShape,
    MegakernelMemoryBudget, plan_megakernel_execution, select_megakernel_topology,
    select_megakernel_topology_stable,
};
use vyre_runtime::megakernel::planner::{
    ResidentGridLimits, ResidentGridPlan, ResidentGridRequest,
};
use vyre_runtime::plan::topology::TopologyPlanner;

/// A Graph500 scale-22 graph (4 Mi vertices, 64 Mi edges) on a 16 GiB budget,
/// mid-search: a hybrid-band frontier with real launch pressure.
fn request() -> MegakernelExecutionRequest {
    MegakernelExecutionRequest {
        sample: MegakernelExecutionSample {
            dispatch_cost_ns: 42_000.0,
            frontier_density: 0.31,
            readback_bytes: 16_384,
        },
        graph: MegakernelGraphShape {
            node_count: 1 << 22,
            edge_count: 1 << 26,
        },
        bytes_per_node: 16,
        bytes_per_edge: 4,
        frontier_bytes: 1 << 24,
        scratch_bytes: 1 << 22,
        output_bytes: 1 << 23,
        budget_bytes: 16 << 30,
        launch_overhead_ns: 4_500.0,
        fusion_pressure: 0.4,
        capabilities: MegakernelDeviceCapabilities::FUSION_CAPABLE,
    }
}

fn policy(c: &mut Criterion) {
    let r = request();
    let mut group = c.benchmark_group("policy");
    let memory = MegakernelMemoryBudget {
        required_bytes: 1 << 30,
        budget_bytes: r.budget_bytes,
    };
    group.bench_function("select_megakernel_topology", |b| {
        b.iter(|| {
            select_megakernel_topology(
                black_box(r.sample),
                black_box(r.graph),
                black_box(memory),
                black_box(r.launch_overhead_ns),
                black_box(r.fusion_pressure),
                black_box(r.capabilities),
            )
        });
    });
    group.bench_function("select_megakernel_topology_stable", |b| {
        b.iter(|| {
            select_megakernel_topology_stable(
                black_box(r.sample),
                black_box(r.graph),
                black_box(memory),
                black_box(r.launch_overhead_ns),
                black_box(r.fusion_pressure),
                black_box(MegakernelExecutionTopology::SparseFrontier),
                black_box(r.capabilities),
            )
        });
    });
    group.bench_function("plan_megakernel_execution", |b| {
        b.iter(|| {
            let r = black_box(r);
            plan_megakernel_execution(
                r.sample,
                r.graph,
                r.bytes_per_node,
                r.bytes_per_edge,
                r.frontier_bytes,
                r.scratch_bytes,
                r.output_bytes,
                r.budget_bytes,
                r.launch_overhead_ns,
                r.fusion_pressure,
                r.capabilities,
            )
        });
    });
    let mut planner = TopologyPlanner::new();
    group.bench_function("stable_wave_planner_warm", |b| {
        b.iter(|| planner.plan_execution(black_box(r)));
    });
    group.finish();
}

fn grid(c: &mut Criterion) {
    let mut group = c.benchmark_group("grid");
    let limits = ResidentGridLimits::new(1_024, 65_535, 1_024);
    let warm = ResidentGridRequest::new(1 << 20, 0);
    ResidentGridPlan::recommend(warm, limits).expect("valid limits");
    group.bench_function("recommend_cache_hit", |b| {
        b.iter(|| ResidentGridPlan::recommend(black_box(warm), black_box(limits)));
    });
    // 1 024 distinct queue lengths cycle through a 128-entry cache: every
    // call misses (its key was evicted 896 calls ago) and evicts.
    let mut next = 0u32;
    group.bench_function("recommend_cache_miss", |b| {
        b.iter(|| {
            next = (next + 1) % 1_024;
            ResidentGridPlan::recommend(
                black_box(ResidentGridRequest::new(100_000 + next, 0)),
                black_box(limits),
            )
        });
    });
    group.finish();
}

criterion_group!(benches, policy, grid);
criterion_main!(benches);
