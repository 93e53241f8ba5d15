//! The resident grid planner's guarantees, over random and extreme limits
//! and queue lengths, and its per-thread caches seen through the public API.

use proptest::prelude::*;
use vyre_runtime::megakernel::planner::{
    ResidentGridLimits, ResidentGridPlan, ResidentGridRequest, ResidentLaunchGeometry,
    ResidentSizingPolicy, planner_cache_stats,
};

fn plan(queue_len: u32, requested: u32, limits: (u32, u32, u32)) -> ResidentGridPlan {
    ResidentGridPlan::recommend(
        ResidentGridRequest::new(queue_len, requested),
        ResidentGridLimits::new(limits.0, limits.1, limits.2),
    )
    .expect("non-zero limits")
}

fn shape(p: &ResidentGridPlan) -> (u32, u32, [u32; 3], u32, u32) {
    (
        p.geometry.workgroup_size_x,
        p.geometry.slot_count,
        p.geometry.dispatch_grid,
        p.worker_groups,
        p.geometry.slots_per_lane(),
    )
}

// Expected values below are worked out by hand from the sizing rules:
// width = largest power of two <= min(256, width limit, invocation limit),
// slots = queue rounded up to the width, workers = slots / width capped.

#[test]
fn ordinary_queue_gets_one_slot_per_lane() {
    // 1 000 -> 1 024 slots, 4 workgroups of 256.
    assert_eq!(
        shape(&plan(1_000, 0, (1_024, 65_535, 1_024))),
        (256, 1_024, [4, 1, 1], 4, 1)
    );
}

#[test]
fn empty_queue_still_launches_one_workgroup() {
    assert_eq!(
        shape(&plan(0, 0, (1_024, 65_535, 1_024))),
        (256, 256, [1, 1, 1], 1, 1)
    );
}

#[test]
fn queue_larger_than_the_grid_strides() {
    // 100 000 000 = 390 625 x 256; 65 535 workgroups x 256 lanes = 16 776 960
    // lanes; 100 000 000 / 16 776 960 = 5.96 -> 6 slots per lane.
    assert_eq!(
        shape(&plan(100_000_000, 0, (1_024, 65_535, 1_024))),
        (256, 100_000_000, [65_535, 1, 1], 65_535, 6)
    );
    // 10 000 000 / 256 = 39 062.5 -> 39 063 workgroups, 10 000 128 slots.
    assert_eq!(
        shape(&plan(10_000_000, 0, (1_024, 65_535, 1_024))),
        (256, 10_000_128, [39_063, 1, 1], 39_063, 1)
    );
}

#[test]
fn largest_queue_narrows_the_width_to_fit_u32() {
    // No multiple of 2 or more fits u32 at or above u32::MAX: width 1.
    // 65 535 workgroups x 1 lane, and 65 535 x 65 537 = u32::MAX exactly.
    assert_eq!(
        shape(&plan(u32::MAX, 0, (256, 65_535, 256))),
        (1, u32::MAX, [65_535, 1, 1], 65_535, 65_537)
    );
}

#[test]
fn persistent_launch_asks_for_exactly_the_resident_workgroups() {
    // 1 056 resident workgroups of 256 (132 multiprocessors x 8, a large GPU's cooperative limit).
    let resident = plan(1_056 * 256, 1_056, (256, i32::MAX as u32, 1_024));
    assert_eq!(shape(&resident), (256, 270_336, [1_056, 1, 1], 1_056, 1));
    // A bigger queue strides instead of growing the grid: 1 000 000 slots
    // (999 936 + 64 -> 1 000 192 padded) over 270 336 lanes -> 3.7 -> 4.
    let big = plan(1_000_000, 1_056, (256, i32::MAX as u32, 1_024));
    assert_eq!(shape(&big), (256, 1_000_192, [1_056, 1, 1], 1_056, 4));
    // A small queue needs fewer than the request: 4 workgroups.
    assert_eq!(plan(1_000, 1_056, (256, 65_535, 256)).worker_groups, 4);
}

#[test]
fn width_respects_both_limits_and_powers_of_two() {
    assert_eq!(
        plan(1_000, 0, (100, 65_535, 1_024))
            .geometry
            .workgroup_size_x,
        64
    );
    assert_eq!(
        plan(1_000, 0, (1_024, 65_535, 48))
            .geometry
            .workgroup_size_x,
        32
    );
    assert_eq!(plan(1_000, 0, (1, 65_535, 1)).geometry.workgroup_size_x, 1);
    // Width 1, per-dimension limit 7: 7 lanes over 1 000 slots -> 143 each.
    assert_eq!(
        shape(&plan(1_000, 0, (1, 7, 1))),
        (1, 1_000, [7, 1, 1], 7, 143)
    );
}

#[test]
fn policy_and_recommendation_agree() {
    let request = ResidentGridRequest::new(12_345, 0);
    let limits = ResidentGridLimits::new(1_024, 65_535, 1_024);
    assert_eq!(
        ResidentSizingPolicy::standard().calculate_optimal_grid(request, limits),
        ResidentGridPlan::recommend(request, limits)
    );
    // Direct geometry: 12 345 -> 12 544 slots; worker count 0 derives 49.
    assert_eq!(
        ResidentSizingPolicy::standard().geometry_from_slots(12_345, 0, 1_024),
        ResidentLaunchGeometry {
            workgroup_size_x: 256,
            slot_count: 12_544,
            dispatch_grid: [49, 1, 1],
        }
    );
}

#[test]
fn zero_limits_are_errors_with_a_fix() {
    for limits in [(0, 1, 1), (1, 0, 1), (1, 1, 0), (0, 0, 0)] {
        let err = ResidentGridPlan::recommend(
            ResidentGridRequest::new(5, 0),
            ResidentGridLimits::new(limits.0, limits.1, limits.2),
        )
        .unwrap_err();
        assert!(err.message().contains("must be non-zero"), "{err}");
        assert!(
            err.message()
                .ends_with("Fix: pass live adapter limits instead of a zero limit.")
        );
    }
}

#[test]
fn caches_are_per_thread_count_hits_and_stay_bounded() {
    std::thread::spawn(|| {
        let limits = ResidentGridLimits::new(1_024, 65_535, 1_024);
        assert_eq!(
            planner_cache_stats().grid_misses,
            0,
            "a new thread starts cold"
        );
        let request = ResidentGridRequest::new(777, 0);
        let first = ResidentGridPlan::recommend(request, limits).unwrap();
        let stats = planner_cache_stats();
        assert_eq!((stats.grid_hits, stats.grid_misses), (0, 1));
        assert_eq!((stats.geometry_hits, stats.geometry_misses), (0, 1));
        assert_eq!(ResidentGridPlan::recommend(request, limits).unwrap(), first);
        let stats = planner_cache_stats();
        assert_eq!((stats.grid_hits, stats.grid_misses), (1, 1));

        for queue_len in 0..300 {
            ResidentGridPlan::recommend(ResidentGridRequest::new(queue_len, 0), limits).unwrap();
        }
        let stats = planner_cache_stats();
        assert_eq!(stats.grid_entries, 128);
        assert!(stats.geometry_entries <= 128);
        // 777 was evicted by 300 newer keys: asking again misses.
        let misses = stats.grid_misses;
        ResidentGridPlan::recommend(request, limits).unwrap();
        assert_eq!(planner_cache_stats().grid_misses, misses + 1);
    })
    .join()
    .unwrap();
}

fn limit() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => any::<u32>(),
        3 => 1..=2_048u32,
        2 => prop::sample::select(vec![1, 2, 3, 7, 48, 64, 100, 255, 256, 257, 1_024, 65_535, u32::MAX - 1, u32::MAX]),
        1 => (0..32u32).prop_map(|shift| 1u32 << shift),
    ]
}

fn queue() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => any::<u32>(),
        3 => 0..100_000u32,
        2 => (u32::MAX - 1_024)..=u32::MAX,
        1 => prop::sample::select(vec![0, 1, 255, 256, 257, u32::MAX - 256, u32::MAX - 255, u32::MAX]),
    ]
}

fn requested() -> impl Strategy<Value = u32> {
    prop_oneof![3 => Just(0u32), 2 => 1..2_000u32, 1 => any::<u32>()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_keeps_every_guarantee(
        queue_len in queue(), requested in requested(),
        wx in limit(), per_dim in limit(), invocations in limit(),
    ) {
        let request = ResidentGridRequest::new(queue_len, requested);
        let limits = ResidentGridLimits::new(wx, per_dim, invocations);
        let p = ResidentGridPlan::recommend(request, limits).unwrap();
        let g = p.geometry;
        let width = g.workgroup_size_x;
        let q = queue_len.max(1);

        prop_assert!(width.is_power_of_two());
        prop_assert!(width <= wx && width <= invocations && width <= 256);
        // Full width unless a multiple of it cannot reach the queue in u32.
        let full = 1u32 << (31 - 256.min(wx).min(invocations).leading_zeros());
        if u64::from(q) <= (1u64 << 32) - u64::from(full) {
            prop_assert_eq!(width, full);
        }
        prop_assert!(g.slot_count >= q);
        prop_assert!(g.slot_count.is_multiple_of(width));
        prop_assert!(g.slot_count - q < width, "padding is minimal");
        for dim in g.dispatch_grid {
            prop_assert!((1..=per_dim).contains(&dim));
        }
        prop_assert!(p.worker_groups >= 1 && p.worker_groups <= per_dim);
        if requested != 0 {
            prop_assert!(p.worker_groups <= requested);
        }
        prop_assert_eq!(g.dispatch_grid, [p.worker_groups, 1, 1]);
        let needed = g.slot_count / width;
        let cap = if requested == 0 { per_dim } else { per_dim.min(requested) };
        prop_assert_eq!(p.worker_groups, needed.min(cap));
        let lanes = u64::from(p.worker_groups) * u64::from(width);
        prop_assert!(lanes * u64::from(g.slots_per_lane()) >= u64::from(g.slot_count));
        // One pass fewer would leave slots unvisited: slots_per_lane is tight.
        prop_assert!(lanes * u64::from(g.slots_per_lane() - 1) < u64::from(g.slot_count));
        // The cached answer is the computed one.
        prop_assert_eq!(
            ResidentSizingPolicy::standard().calculate_optimal_grid(request, limits).unwrap(),
            p
        );
    }

    #[test]
    fn zero_limits_never_panic_and_always_explain(
        queue_len in queue(), requested in requested(),
        wx in limit(), per_dim in limit(), invocations in limit(), zero in 0..3usize,
    ) {
        let mut l = [wx, per_dim, invocations];
        l[zero] = 0;
        let err = ResidentGridPlan::recommend(
            ResidentGridRequest::new(queue_len, requested),
            ResidentGridLimits::new(l[0], l[1], l[2]),
        )
        .unwrap_err();
        prop_assert!(err.message().contains("Fix: "));
    }

    #[test]
    fn direct_geometry_never_panics_and_covers_its_slots(
        slots in queue(), workers in prop_oneof![Just(0u32), any::<u32>()], wx in prop_oneof![Just(0u32), limit()],
    ) {
        let g = ResidentSizingPolicy::standard().geometry_from_slots(slots, workers, wx);
        prop_assert!(g.workgroup_size_x.is_power_of_two());
        prop_assert!(g.workgroup_size_x <= wx.max(1));
        prop_assert!(g.slot_count >= slots.max(1) && g.slot_count.is_multiple_of(g.workgroup_size_x));
        prop_assert!(g.dispatch_grid[0] >= 1);
        prop_assert!(g.total_lanes() * u64::from(g.slots_per_lane()) >= u64::from(g.slot_count));
    }
}
