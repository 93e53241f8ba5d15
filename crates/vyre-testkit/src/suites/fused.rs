//! FusedWave: the persistent kernel (`fused.wgsl`) against the reference
//! BFS on a device that runs it (one whose probe verified a barrier; on
//! lavapipe one forced to a single workgroup, which is trivially
//! co-resident), its band stop, its refusal where there is no barrier and
//! in batch passes, and a launch whose workgroups cannot all be resident
//! ending in a typed error instead of a hang.

use std::sync::Arc;
use std::time::{Duration, Instant};

use vyre_driver::backend::{
    Backend, BackendErrorKind, DeviceCapabilities, DeviceLayout, LaunchShape, SearchPosition,
    SearchSources, WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_graph::generate::{chain, grid_2d, star};
use vyre_wgsl_abi::records::LevelGrids;

use crate::batch::{BatchReference, batch_search, begin_batch, check_batch, lane_sets};
use crate::shapes::{hub_tree, tier};
use crate::{
    Reference, Waves, begin, check_against, check_command_count, frontiers, later_sizing, launch,
    random_directed, random_undirected, search, search_with, shape, upload,
};

/// The launch of a fused command as the engine makes it: every resident
/// workgroup of the fused width, on a graph of `n` vertices.
#[must_use]
pub fn fused_launch(
    caps: &DeviceCapabilities,
    topology: T,
    at: &SearchPosition,
    n: u32,
) -> LaunchShape {
    let groups = caps.resident_workgroups;
    let later = later_sizing(topology, groups);
    shape(
        caps.resident_workgroup_size,
        [groups, 1, 1],
        later,
        topology,
        at,
        n,
    )
}

/// A fused command from `at` on `groups` workgroups of 256, unchecked.
#[must_use]
pub fn fused_command(
    at: SearchPosition,
    groups: u32,
    graph_vertices: u32,
    max_levels: u32,
    band_max_frontier_edges: u64,
) -> WaveCommand {
    let later = later_sizing(T::FusedWave, groups);
    WaveCommand {
        topology: T::FusedWave,
        position: at,
        max_levels,
        launch: shape(
            256,
            [groups, 1, 1],
            later,
            T::FusedWave,
            &at,
            graph_vertices,
        ),
        band_max_frontier_edges,
        band_max_frontier_vertices: u32::MAX,
    }
}

fn graphs() -> Vec<(&'static str, Graph, Vec<u32>)> {
    vec![
        ("grid 20x15", grid_2d(20, 15).expect("grid"), vec![0]),
        ("chain 300", chain(300).expect("chain"), vec![150]),
        ("star 3000 from hub", star(3000).expect("star"), vec![0]),
        ("star 3000 from leaf", star(3000).expect("star"), vec![2999]),
        (
            // Heavy vertices of several pieces, mid-degree ones of one piece
            // and light ones in one level.
            "hubs, mid and light",
            hub_tree(3, &[tier(3, 2500), tier(40, 40), tier(200, 3)], false),
            vec![0],
        ),
        (
            "hubs from a hub",
            hub_tree(2, &[tier(2, 1500), tier(30, 33)], false),
            vec![2],
        ),
        ("random directed", random_directed(1500, 6000, 7), vec![3]),
        (
            "random multi-source",
            random_undirected(2000, 3000, 9),
            vec![0, 700, 1999],
        ),
    ]
}

/// Whole searches in one launch, and in launches of a few levels that
/// continue from one another, match the reference level by level.
pub fn the_fused_kernel_matches_the_reference<B: Backend + LevelGrids>(backend: &mut B) {
    let caps = backend.capabilities();
    assert!(caps.can_fuse(), "{}", caps.barrier_reason);
    println!(
        "fused: {} workgroups ({})",
        caps.resident_workgroups, caps.barrier_reason
    );
    let fused = |_| T::FusedWave;
    for (name, graph, sources) in graphs() {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 1024);
        let reference = Reference::new(&graph, &sources);
        let n = graph.vertex_count();
        // Launched as the engine launches them.
        let shape = |caps: &_, topology, at: &_| fused_launch(caps, topology, at, n);
        for levels in [1024, 3, 1] {
            let result = search_with(backend, &layout, &graph, &sources, levels, &fused, &shape);
            let what = format!("{name} / fused / {levels} levels per launch");
            check_against(&reference, &result, &what);
            check_command_count(&result, reference.vertices.len() as u32, levels, &what);
            // Each level of a launch examines its frontier's out-edges.
            for level in &result.levels {
                let at = level.level as usize;
                assert_eq!(level.examined, reference.edges[at], "{what}: level {at}");
            }
        }
        // A per-wave search on the same upload still agrees.
        let per_wave = search(backend, &layout, &graph, &sources, 4, &|_| {
            T::HybridFrontier
        });
        check_against(
            &reference,
            &per_wave,
            &format!("{name} / hybrid after fused"),
        );
    }
}

/// A launch returns when the frontier's out-edges leave the band, timed as
/// a whole, the same every time it runs.
pub fn a_fused_launch_stops_at_the_band<B: Backend>(backend: &mut B) {
    // From a corner of a grid the frontier's out-edges grow level by level.
    let graph = Arc::new(grid_2d(20, 20).expect("grid"));
    let layout = upload(backend, &graph, 1024);
    let caps = backend.capabilities().clone();
    for round in 0..3 {
        let at = begin(backend, &graph, &[0]);
        let n = graph.vertex_count();
        let command = fused_command(at, caps.resident_workgroups, n, 1024, 6)
            .check(&caps, &layout)
            .expect("a fused command within the resident grid");
        let report = backend.run_wave(&command).expect("the launch runs");
        // Level 1's frontier {1, 20} has 6 out-edges, level 2's 10.
        assert_eq!(frontiers(&report), [(1, 2), (2, 3)], "round {round}");
        assert_eq!(
            report.device_ns.is_some(),
            caps.device_timestamps,
            "a launch is timed as a whole"
        );
        assert!(report.levels.iter().all(|l| l.device_ns.is_none()));
    }
}

/// The driver refuses FusedWave where the device has no barrier, with the
/// probe's reason.
pub fn fused_wave_is_refused_without_a_device_wide_barrier<B: Backend>(backend: &mut B) {
    let caps = backend.capabilities().clone();
    if caps.can_fuse() {
        println!("skipped: this device has a verified barrier");
        return;
    }
    assert!(!caps.megakernel.supports_device_wide_barrier);
    assert_eq!(caps.resident_workgroups, 0);
    let graph = chain(10).expect("chain");
    let layout = DeviceLayout::for_graph(&graph, &caps, 1024).expect("layout");
    let sources = SearchSources::new(&[0], &graph).expect("sources");
    let command = fused_command(SearchPosition::start(&sources), 1, 10, 16, u64::MAX);
    let err = command.check(&caps, &layout).expect_err("no barrier");
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
    assert!(
        err.message().contains("cannot run FusedWave")
            && err.message().contains(&caps.barrier_reason),
        "{err}"
    );
}

/// lavapipe runs each workgroup to completion on a worker thread, so it
/// gets no barrier, and the probe that says so ends (bounded spins).
pub fn lavapipe_has_no_device_wide_barrier<B: Backend>(backend: &mut B) {
    let caps = backend.capabilities();
    if !caps.device_name.contains("llvmpipe") {
        println!("skipped: the device is not lavapipe");
        return;
    }
    assert!(!caps.megakernel.supports_device_wide_barrier && !caps.can_fuse());
    assert_eq!((caps.resident_workgroups, caps.resident_lanes), (0, 0));
    // Two worker threads may run the probe's two workgroups at once, or
    // one after the other: either way no barrier is reported.
    let reason = &caps.barrier_reason;
    assert!(
        reason == "probe: only 1 of 2 workgroups arrived: workgroups are not co-resident"
            || reason.ends_with("no co-residency guarantee: no barrier"),
        "{reason}"
    );
}

/// No batch persistent kernel: the batch check refuses a FusedWave, the
/// backend refuses one that skipped it, and the pass goes on per wave.
pub fn a_batch_fused_wave_is_refused_and_the_pass_goes_on_per_wave<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    let caps = backend.capabilities().clone();
    assert!(caps.can_fuse(), "{}", caps.barrier_reason);
    assert!(!caps.batch_fused_wave && !caps.can_fuse_batch());
    assert!(!caps.for_batch().can_fuse());

    let graph = Arc::new(grid_2d(20, 15).expect("grid"));
    let n = graph.vertex_count();
    let layout = upload(backend, &graph, 64);
    let sources = lane_sets(n)[0].clone();
    let start = begin_batch(backend, &layout, &graph, &sources, true);
    let fused = WaveCommand {
        topology: T::FusedWave,
        position: start,
        max_levels: 64,
        launch: fused_launch(&caps, T::FusedWave, &start, n),
        band_max_frontier_edges: u64::MAX,
        band_max_frontier_vertices: u32::MAX,
    };
    let err = fused.check_batch(&caps, &layout).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
    assert!(
        err.message().contains("no FusedWave in batch passes"),
        "{err}"
    );
    assert!(err.message().contains("Fix:"), "{err}");

    // Checked as a single search's command, it reaches the backend, which
    // refuses it rather than running something else.
    let single = fused.check(&caps, &layout).expect("a valid single command");
    let err = backend.run_batch_wave(&single).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest, "{err}");
    assert!(err.message().contains("Fix:"), "{err}");

    let shape = |caps: &_, topology, at: &_| launch(caps, topology, at, n);
    let waves = Waves {
        layout: &layout,
        chain: 4,
        schedule: &|_| T::HybridFrontier,
        shape: &shape,
    };
    let reference = BatchReference::new(&graph, &sources);
    let run = batch_search(backend, &graph, &sources, true, &waves);
    check_batch(
        &reference,
        &run,
        "grid 20x15 / hybrid after a refused fused command",
    );
}

/// A 30x30 grid, uploaded, for a stuck launch to run on.
#[must_use]
pub fn stuck_graph<B: Backend>(backend: &mut B) -> (Arc<Graph>, DeviceLayout) {
    let graph = Arc::new(grid_2d(30, 30).expect("grid"));
    let layout = upload(backend, &graph, 1024);
    (graph, layout)
}

/// Run a fused launch of 64 workgroups from vertex 0 on a device forced to
/// report them resident that runs fewer at once: it cannot complete its
/// first barrier. Returns the typed error's message.
pub fn run_stuck<B: Backend>(backend: &mut B, graph: &Graph, layout: &DeviceLayout) -> String {
    let at = begin(backend, graph, &[0]);
    let caps = backend.capabilities().clone();
    let command = fused_command(at, 64, graph.vertex_count(), 1024, u64::MAX)
        .check(&caps, layout)
        .expect("64 workgroups are within what this device was forced to report");
    let started = Instant::now();
    let err = backend
        .run_wave(&command)
        .expect_err("the barrier cannot complete");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(err.kind(), BackendErrorKind::Device, "{err}");
    assert!(err.message().contains("Fix:"), "{err}");
    err.message().to_string()
}

/// Waits at a barrier are bounded: workgroups that wait for others that
/// never run give up, the launch ends in a typed error, and the backend
/// keeps working. Runs on a device forced to 64 resident workgroups that
/// it never runs at once (lavapipe).
pub fn workgroups_that_wait_for_absent_ones_give_up<B: Backend + LevelGrids>(backend: &mut B) {
    let (graph, layout) = stuck_graph(backend);
    let message = run_stuck(backend, &graph, &layout);
    assert!(message.contains("gave up waiting"), "{message}");
    let result = search(backend, &layout, &graph, &[0], 4, &|_| T::SparseFrontier);
    check_against(
        &Reference::new(&graph, &[0]),
        &result,
        "sparse after the failure",
    );
}
