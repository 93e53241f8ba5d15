//! The per-wave decision paths allocate nothing once warm: the plain and
//! stable selectors, whole-wave planning (including its error paths), the
//! stable wave planner, and a grid plan-cache hit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlanner, MegakernelExecutionRequest,
    MegakernelExecutionSample, MegakernelExecutionTopology, MegakernelGraphShape,
    MegakernelMemoryBudget, NeutralMegakernelExecutionPlanner, plan_megakernel_execution,
    select_megakernel_topology, select_megakernel_topology_stable,
};
use vyre_runtime::megakernel::planner::{
    ResidentGridLimits, ResidentGridPlan, ResidentGridRequest,
};
use vyre_runtime::plan::topology::TopologyPlanner;

thread_local! {
    // Per thread, so that tests running in parallel do not count each
    // other's allocations. Const-initialised without a destructor, so
    // touching it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// The system allocator, counting allocations made by the current thread.
struct CountingAllocator;

fn count_one() {
    // try_with: the slot may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; counting touches no allocator state.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's `layout` obligations are passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: `ptr` came from this allocator, which is `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, which is `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

fn allocations_during(mut f: impl FnMut()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

fn requests() -> Vec<MegakernelExecutionRequest> {
    let base = MegakernelExecutionRequest {
        sample: MegakernelExecutionSample {
            dispatch_cost_ns: 1_000.0,
            frontier_density: 0.3,
            readback_bytes: 1 << 20,
        },
        graph: MegakernelGraphShape {
            node_count: 1_000,
            edge_count: 4_000,
        },
        bytes_per_node: 8,
        bytes_per_edge: 4,
        frontier_bytes: 4_000,
        scratch_bytes: 20_000,
        output_bytes: 4_000,
        budget_bytes: 1 << 30,
        launch_overhead_ns: 250.0,
        fusion_pressure: 0.9,
        capabilities: MegakernelDeviceCapabilities::FUSION_CAPABLE,
    };
    let mut all = Vec::new();
    for density in [f64::NAN, -1.0, 0.01, 0.1, 0.3, 0.75, 0.9, f64::INFINITY] {
        for fusion in [0.0, 0.65, 0.9] {
            // Fits; downgraded (hybrid over a 60 000-byte budget); sparse
            // over budget (an error); byte overflow (an error).
            for (budget, nodes) in [
                (1 << 30, 1_000),
                (60_000, 1_000),
                (1_000, 1_000),
                (u64::MAX, u64::MAX),
            ] {
                let mut r = base;
                r.sample.frontier_density = density;
                r.fusion_pressure = fusion;
                r.budget_bytes = budget;
                r.graph.node_count = nodes;
                all.push(r);
            }
        }
    }
    all
}

#[test]
fn decision_path_does_not_allocate() {
    let requests = requests();
    let mut outcomes = 0usize;
    let n = allocations_during(|| {
        for r in &requests {
            let memory = MegakernelMemoryBudget {
                required_bytes: r.frontier_bytes,
                budget_bytes: r.budget_bytes,
            };
            let d = select_megakernel_topology(
                r.sample,
                r.graph,
                memory,
                r.launch_overhead_ns,
                r.fusion_pressure,
                r.capabilities,
            );
            outcomes += d.memory_pressure_bps as usize;
            let plan = plan_megakernel_execution(
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
            );
            outcomes += usize::from(plan.is_ok());
            outcomes += usize::from(NeutralMegakernelExecutionPlanner.plan_execution(*r).is_ok());
        }
    });
    assert!(outcomes > 0);
    assert_eq!(n, 0, "the decision path allocated {n} times");
}

#[test]
fn stable_decision_path_does_not_allocate_once_warm() {
    let requests = requests();
    let mut planner = TopologyPlanner::new();
    // Warm-up: fill the memory-plan cache for the first byte layout.
    for r in &requests {
        let _ = planner.plan_execution(*r);
    }
    let mut held = 0usize;
    let n = allocations_during(|| {
        for r in &requests {
            for previous in MegakernelExecutionTopology::ALL {
                let d = select_megakernel_topology_stable(
                    r.sample,
                    r.graph,
                    MegakernelMemoryBudget {
                        required_bytes: r.frontier_bytes,
                        budget_bytes: r.budget_bytes,
                    },
                    r.launch_overhead_ns,
                    r.fusion_pressure,
                    previous,
                    r.capabilities,
                );
                held += usize::from(d.topology == previous);
            }
            // Every request here changes the byte key, so this also covers
            // cache misses of the memory-plan cache.
            held += usize::from(planner.plan_execution(*r).is_ok());
        }
    });
    assert!(held > 0);
    assert_eq!(n, 0, "the stable decision path allocated {n} times");
}

#[test]
fn grid_plan_cache_hit_does_not_allocate() {
    let limits = ResidentGridLimits::new(1_024, 65_535, 1_024);
    let keys: Vec<ResidentGridRequest> = (0..100)
        .map(|i| ResidentGridRequest::new(i * 997, i % 3))
        .collect();
    for &key in &keys {
        ResidentGridPlan::recommend(key, limits).unwrap();
    }
    let mut lanes = 0u64;
    let n = allocations_during(|| {
        for _ in 0..10 {
            for &key in &keys {
                lanes += ResidentGridPlan::recommend(key, limits)
                    .unwrap()
                    .geometry
                    .total_lanes();
            }
        }
    });
    assert!(lanes > 0);
    assert_eq!(n, 0, "grid plan-cache hits allocated {n} times");
}

#[test]
fn counter_sees_this_threads_allocations() {
    // Control: the harness must see an allocation, or the zeros above mean
    // nothing. The explanation string is the one part of a decision that
    // allocates.
    let d = select_megakernel_topology(
        MegakernelExecutionSample {
            dispatch_cost_ns: 1.0,
            frontier_density: 0.5,
            readback_bytes: 0,
        },
        MegakernelGraphShape {
            node_count: 1,
            edge_count: 1,
        },
        MegakernelMemoryBudget {
            required_bytes: 0,
            budget_bytes: 1,
        },
        0.0,
        0.0,
        MegakernelDeviceCapabilities::FUSION_INCAPABLE,
    );
    let mut text = String::new();
    let n = allocations_during(|| text = d.stable_explanation());
    assert!(n >= 1 && !text.is_empty(), "counted {n}");
}
