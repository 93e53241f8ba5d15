//! FusedWave: the persistent kernel against the reference BFS (on a device
//! whose probe verified a barrier; on lavapipe with one workgroup, which is
//! trivially co-resident), its refusal on a device without a barrier, and a
//! launch whose workgroups cannot all be resident ending in a typed error
//! instead of a hang.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::shapes::{hub_tree, tier};
use common::{
    Reference, Search, check_against, fused_device, fused_launch, later_sizing, random_directed,
    random_undirected, search, search_with, shape, upload,
};
use vyre_driver::backend::{
    Backend, BackendErrorKind, DeviceLayout, SearchPosition, SearchSources, WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_graph::generate::{chain, grid_2d, star};
use vyre_vulkan::testing::{TestDevice, open, open_with, visible};
use vyre_vulkan::{VulkanBackend, VulkanOpenRequest};

/// A whole search of fused commands of up to `levels` levels each, launched
/// as the engine launches them: every resident workgroup of the fused width.
fn fused_search(
    gpu: &mut VulkanBackend,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    levels: u32,
) -> Search {
    let n = graph.vertex_count();
    search_with(
        gpu,
        layout,
        graph,
        sources,
        levels,
        &|_| T::FusedWave,
        &|caps, topology, at| fused_launch(caps, topology, at, n),
    )
}

/// A fused command from `at` on `groups` workgroups of 256, unchecked.
fn fused_command(
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
    }
}

/// Start a search from `sources` on `gpu`.
fn start(gpu: &mut VulkanBackend, graph: &Graph, sources: &[u32]) -> SearchPosition {
    let sources = SearchSources::new(sources, graph).expect("sources");
    gpu.begin_search(&sources).expect("search starts");
    SearchPosition::start(&sources)
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

#[test]
fn the_fused_kernel_matches_the_reference() {
    let Some(mut gpu) = fused_device("the_fused_kernel_matches_the_reference") else {
        return;
    };
    visible(&format!(
        "the_fused_kernel_matches_the_reference: {} workgroups ({})",
        gpu.capabilities().resident_workgroups,
        gpu.capabilities().barrier_reason
    ));
    for (name, graph, sources) in graphs() {
        let graph = Arc::new(graph);
        let layout = upload(&mut *gpu, &graph, 1024);
        let reference = Reference::new(&graph, &sources);
        // Whole searches in one launch, and in launches of a few levels
        // that continue from one another.
        for levels in [1024, 3, 1] {
            let result = fused_search(&mut gpu, &layout, &graph, &sources, levels);
            let what = format!("{name} / fused / {levels} levels per launch");
            check_against(&reference, &result, &what);
            let depth = reference.vertices.len() as u32;
            assert!(
                result.commands as u32 <= depth.div_ceil(levels) + 1,
                "{what}: {} launches for {depth} levels",
                result.commands
            );
            // Each level of a launch examines its frontier's out-edges.
            for level in &result.levels {
                let at = level.level as usize;
                assert_eq!(level.examined, reference.edges[at], "{what}: level {at}");
            }
        }
        // A per-wave search on the same upload still agrees.
        let per_wave = search(&mut *gpu, &layout, &graph, &sources, 4, &|_| {
            T::HybridFrontier
        });
        check_against(
            &reference,
            &per_wave,
            &format!("{name} / hybrid after fused"),
        );
    }
    gpu.assert_valid();
}

#[test]
fn a_fused_launch_stops_at_the_band_and_is_recorded_once() {
    let Some(mut gpu) = fused_device("a_fused_launch_stops_at_the_band_and_is_recorded_once")
    else {
        return;
    };
    // From a corner of a grid the frontier's out-edges grow level by level.
    let graph = Arc::new(grid_2d(20, 20).expect("grid"));
    let layout = upload(&mut *gpu, &graph, 1024);
    let caps = gpu.capabilities().clone();
    for round in 0..3 {
        let at = start(&mut gpu, &graph, &[0]);
        let groups = caps.resident_workgroups;
        let command = fused_command(at, groups, graph.vertex_count(), 1024, 6)
            .check(&caps, &layout)
            .expect("a fused command within the resident grid");
        let report = gpu.run_wave(&command).expect("the launch runs");
        let ran: Vec<(u32, u32)> = report
            .levels
            .iter()
            .map(|l| (l.frontier_in, l.frontier_out))
            .collect();
        // Level 1's frontier {1, 20} has 6 out-edges, level 2's 10.
        assert_eq!(ran, vec![(1, 2), (2, 3)], "round {round}");
        assert_eq!(
            report.device_ns.is_some(),
            caps.device_timestamps,
            "a launch is timed as a whole"
        );
        assert!(report.levels.iter().all(|l| l.device_ns.is_none()));
        assert_eq!(gpu.last_command_timing().recorded, round == 0);
    }
    assert_eq!(gpu.chains_recorded(), 1, "one shape, recorded once");
    gpu.assert_valid();
}

#[test]
fn fused_wave_is_refused_without_a_device_wide_barrier() {
    let Some(gpu) = open("fused_wave_is_refused_without_a_device_wide_barrier") else {
        return;
    };
    let caps = gpu.capabilities().clone();
    if caps.can_fuse() {
        visible(
            "fused_wave_is_refused_without_a_device_wide_barrier: skipped: this device has a verified barrier",
        );
        return;
    }
    // Software devices never get one (lavapipe runs workgroups on host
    // threads), whatever the probe saw.
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

/// A device forced to report 64 resident workgroups that lavapipe never
/// runs at once (it has at most 32 worker threads), with a graph uploaded
/// and a search started; `None` on another device.
fn stuck(test: &str, limit: Option<Duration>) -> Option<(TestDevice, Arc<Graph>, DeviceLayout)> {
    let probe = open(test)?;
    if !probe.capabilities().device_name.contains("llvmpipe") {
        visible(&format!("{test}: skipped: the device is not lavapipe"));
        return None;
    }
    drop(probe);
    let request = VulkanOpenRequest {
        force_resident_workgroups_for_tests: Some(64),
        device_wait_limit: limit,
        ..VulkanOpenRequest::default()
    };
    let mut gpu = open_with(test, &request)?;
    let graph = Arc::new(grid_2d(30, 30).expect("grid"));
    let layout = upload(&mut *gpu, &graph, 1024);
    Some((gpu, graph, layout))
}

/// Run a fused launch of 64 workgroups from vertex 0: it cannot complete
/// its first barrier.
fn run_stuck(gpu: &mut VulkanBackend, graph: &Graph, layout: &DeviceLayout) -> String {
    let at = start(gpu, graph, &[0]);
    let caps = gpu.capabilities().clone();
    let command = fused_command(at, 64, graph.vertex_count(), 1024, u64::MAX)
        .check(&caps, layout)
        .expect("64 workgroups are within what this device was forced to report");
    let started = Instant::now();
    let err = gpu
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
/// never run give up, and the launch ends in a typed error; the backend
/// keeps working.
#[test]
fn workgroups_that_wait_for_absent_ones_give_up() {
    let test = "workgroups_that_wait_for_absent_ones_give_up";
    let Some((mut gpu, graph, layout)) = stuck(test, None) else {
        return;
    };
    let message = run_stuck(&mut gpu, &graph, &layout);
    assert!(message.contains("gave up waiting"), "{message}");
    let result = search(&mut *gpu, &layout, &graph, &[0], 4, &|_| T::SparseFrontier);
    check_against(
        &Reference::new(&graph, &[0]),
        &result,
        "sparse after the failure",
    );
    gpu.assert_valid();
}

/// Past the wait limit the host sets the abort word, which the waiting
/// workgroups poll: the launch ends and the error says it was aborted; the
/// backend is not poisoned (it still uploads and reads back).
#[test]
fn a_launch_past_the_wait_limit_is_aborted_not_waited_for() {
    let test = "a_launch_past_the_wait_limit_is_aborted_not_waited_for";
    let Some((mut gpu, graph, layout)) = stuck(test, Some(Duration::from_nanos(1))) else {
        return;
    };
    let message = run_stuck(&mut gpu, &graph, &layout);
    assert!(
        message.contains("was aborted (its workgroups saw the abort word"),
        "{message}"
    );
    gpu.upload(&graph, &layout)
        .expect("the device still takes work");
    let mut depths = vec![0; graph.vertex_count() as usize];
    gpu.read_depths(&mut depths).expect("and reads back");
    assert!(depths.iter().all(|&d| d == vyre_graph::UNREACHED));
    gpu.assert_valid();
}
