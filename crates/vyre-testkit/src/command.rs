//! The commands a test search sends, launched by the engine's rules
//! (not its policy), and checked by the driver.

use std::sync::Arc;

use vyre_driver::backend::{
    Backend, ChainBand, CheckedCommand, DeviceCapabilities, DeviceLayout, EDGES_PER_LANE,
    FrontierBand, LaunchShape, LevelSizing, SearchPosition, SearchSources, WaveCommand,
    is_edge_balanced, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;

/// Upload `graph` with a level history of `max_levels` per command and check
/// the bytes held against the layout.
pub fn upload(backend: &mut dyn Backend, graph: &Arc<Graph>, max_levels: u32) -> DeviceLayout {
    let layout = DeviceLayout::for_graph(graph, backend.capabilities(), max_levels)
        .expect("layout fits the device");
    backend.upload(graph, &layout).expect("upload succeeds");
    assert!(
        backend.allocated_bytes() <= layout.total_bytes(),
        "allocated {} > layout {}",
        backend.allocated_bytes(),
        layout.total_bytes()
    );
    assert!(backend.allocated_bytes() > 0);
    layout
}

/// The test-side launch rule (the engine's is in vyre-runtime): width 256
/// within the limits, and the driver's later-level rule, up to the
/// per-dimension limit, for the first level too.
#[must_use]
pub fn launch(caps: &DeviceCapabilities, topology: T, at: &SearchPosition, n: u32) -> LaunchShape {
    let width = 256.min(caps.max_workgroup_size_x);
    let later = later_sizing(topology, caps.max_compute_workgroups_per_dimension);
    let groups = later.workgroups(topology, width, at.frontier_len, at.frontier_edges, n);
    shape(width, [groups, 1, 1], later, topology, at, n)
}

/// The rule for later levels the engine gives `topology`: edge-balanced
/// topologies are sized by their edges too.
#[must_use]
pub fn later_sizing(topology: T, max_workgroups: u32) -> LevelSizing {
    let edges_per_lane = if is_edge_balanced(topology) {
        EDGES_PER_LANE
    } else {
        0
    };
    LevelSizing {
        edges_per_lane,
        max_workgroups,
    }
}

/// A launch of `grid` workgroups of `width`, with the slots per lane that
/// cover the first level.
#[must_use]
pub fn shape(
    width: u32,
    grid: [u32; 3],
    later: LevelSizing,
    topology: T,
    at: &SearchPosition,
    n: u32,
) -> LaunchShape {
    let lanes = grid.iter().map(|&d| u64::from(d)).product::<u64>() * u64::from(width);
    let slots = u64::from(slots_for(topology, at.frontier_len, n).max(1));
    LaunchShape {
        cluster: false,
        workgroup_size_x: width,
        dispatch_grid: grid,
        slots_per_lane: u32::try_from(slots.div_ceil(lanes)).expect("slots per lane fit"),
        later,
    }
}

/// `launch` with its later levels capped as the engine caps them: at what
/// the largest later level of a command from `at` within `band` can use
/// ([`LaunchShape::later_within_band`]).
#[must_use]
pub fn within_band(
    launch: LaunchShape,
    topology: T,
    at: &SearchPosition,
    layout: &DeviceLayout,
    band: FrontierBand,
) -> LaunchShape {
    let band = ChainBand {
        first_frontier_edges: at.frontier_edges,
        band_max_frontier_edges: band.max_edges,
        band_max_frontier_vertices: band.max_vertices,
        graph_vertices: layout.vertex_count,
        graph_edges: layout.edge_count,
    };
    launch.later_within_band(topology, &band)
}

/// A command from `at` that stops where the frontier's out-edges pass
/// `band_max_frontier_edges`, checked by the driver.
#[must_use]
pub fn command(
    backend: &dyn Backend,
    layout: &DeviceLayout,
    topology: T,
    at: SearchPosition,
    max_levels: u32,
    band_max_frontier_edges: u64,
) -> CheckedCommand {
    let band = FrontierBand::of_edges(band_max_frontier_edges);
    command_in_band(backend, layout, topology, at, max_levels, band)
}

/// A command from `at` that stops where the frontier leaves `band`, its
/// later levels dispatched on what the band admits, checked by the driver.
#[must_use]
pub fn command_in_band(
    backend: &dyn Backend,
    layout: &DeviceLayout,
    topology: T,
    at: SearchPosition,
    max_levels: u32,
    band: FrontierBand,
) -> CheckedCommand {
    let launch = launch(backend.capabilities(), topology, &at, layout.vertex_count);
    WaveCommand {
        topology,
        position: at,
        max_levels,
        launch: within_band(launch, topology, &at, layout, band),
        band_max_frontier_edges: band.max_edges,
        band_max_frontier_vertices: band.max_vertices,
    }
    .check(backend.capabilities(), layout)
    .expect("the test's command is valid")
}

/// Start a search from `sources` and return its position.
pub fn begin(backend: &mut dyn Backend, graph: &Graph, sources: &[u32]) -> SearchPosition {
    let sources = SearchSources::new(sources, graph).expect("valid sources");
    backend.begin_search(&sources).expect("search starts");
    SearchPosition::start(&sources)
}
