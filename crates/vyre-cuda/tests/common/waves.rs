//! A small wave loop standing in for the engine: launches by its rules in
//! small, commands checked by the driver, whole searches.

use std::sync::Arc;

use vyre_cuda::CudaBackend;
use vyre_driver::backend::{
    Backend, CheckedCommand, DeviceCapabilities, DeviceLayout, EDGES_PER_LANE, LaunchShape,
    LevelSizing, SearchPosition, SearchSources, WaveCommand, WaveReport, is_edge_balanced,
    slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::Graph;

use super::*;

/// What the test loop runs next.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub topology: Topology,
    pub max_levels: u32,
    pub band: u64,
    /// Workgroups of the launch instead of the simple rule.
    pub blocks: Option<u32>,
    /// A FusedWave as the device's cluster launch (`FusedCluster`).
    pub cluster: bool,
}

impl Choice {
    /// One level of `topology`.
    pub fn single(topology: Topology) -> Self {
        Self {
            topology,
            max_levels: 1,
            band: u64::MAX,
            blocks: None,
            cluster: false,
        }
    }
}

/// Where the search stands before a command.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub wave: usize,
    pub position: SearchPosition,
}

/// The launch the engine would size, by its rules in small: width 256 (64
/// when small); the first level's workgroups for its slots and, when
/// edge-balanced, its edges; later levels as many as the largest level
/// could use; every grid capped at what the device holds at once (at 4
/// workgroups when small), the lanes striding over the rest.
/// FusedWave at the resident width with at most the resident workgroups.
pub fn launch_for(
    caps: &DeviceCapabilities,
    choice: &Choice,
    position: &SearchPosition,
    graph: &Graph,
) -> LaunchShape {
    let (topology, len, n) = (choice.topology, position.frontier_len, graph.vertex_count());
    if choice.cluster {
        return caps.fused_cluster.launch();
    }
    let (width, blocks, later) = if topology == Topology::FusedWave {
        let width = caps.resident_workgroup_size;
        let needed = len.div_ceil(width).max(1);
        let blocks = choice
            .blocks
            .unwrap_or(needed.min(caps.resident_workgroups));
        let later = LevelSizing {
            edges_per_lane: 0,
            max_workgroups: blocks,
        };
        (width, blocks, later)
    } else {
        let width = size(256, 64);
        let resident = size((caps.resident_lanes / width).max(1), 4);
        let sizing = LevelSizing {
            edges_per_lane: if is_edge_balanced(topology) {
                EDGES_PER_LANE
            } else {
                0
            },
            max_workgroups: resident.min(caps.max_compute_workgroups_per_dimension),
        };
        let blocks = choice
            .blocks
            .unwrap_or_else(|| sizing.workgroups(topology, width, len, position.frontier_edges, n));
        let largest = sizing.workgroups(topology, width, n, graph.edge_count(), n);
        let later = LevelSizing {
            max_workgroups: largest,
            ..sizing
        };
        (width, blocks, later)
    };
    let slots = u64::from(slots_for(topology, len, n));
    let lanes = u64::from(blocks) * u64::from(width);
    LaunchShape {
        cluster: false,
        workgroup_size_x: width,
        dispatch_grid: [blocks, 1, 1],
        slots_per_lane: u32::try_from(slots.div_ceil(lanes).max(1)).expect("slots per lane"),
        later,
    }
}

/// The command `choice` makes at `position`, checked against the device and
/// the layout `upload` computes.
pub fn command_for(
    backend: &dyn Backend,
    graph: &Graph,
    choice: &Choice,
    position: SearchPosition,
) -> CheckedCommand {
    let caps = backend.capabilities();
    let layout = DeviceLayout::for_graph(graph, caps, HISTORY_LEVELS).expect("layout");
    WaveCommand {
        topology: choice.topology,
        position,
        max_levels: choice.max_levels,
        launch: launch_for(caps, choice, &position, graph),
        band_max_frontier_edges: choice.band,
        band_max_frontier_vertices: u32::MAX,
    }
    .check(caps, &layout)
    .unwrap_or_else(|e| panic!("{choice:?} at {position:?}: {e}"))
}

/// Begin a search from `sources`; its starting position.
pub fn begin(backend: &mut dyn Backend, graph: &Graph, sources: &[u32]) -> SearchPosition {
    let sources = SearchSources::new(sources, graph).expect("sources");
    backend.begin_search(&sources).expect("begin_search");
    SearchPosition::start(&sources)
}

/// Run `command`, check its report against the contract, and return it with
/// the position after it.
pub fn run(
    backend: &mut dyn Backend,
    command: &CheckedCommand,
) -> Result<(WaveReport, SearchPosition), vyre_driver::backend::BackendError> {
    let report = backend.run_wave(command)?;
    check_report(command, &report);
    let last = report.levels.last().expect("at least one level");
    let levels = report.levels.len() as u32;
    let after = command.position.after(command.topology, levels, last);
    Ok((report, after))
}

/// Upload `graph` with a layout from the device's capabilities and check the
/// memory held against it.
pub fn upload(backend: &mut CudaBackend, graph: &Arc<Graph>) -> DeviceLayout {
    let layout =
        DeviceLayout::for_graph(graph, backend.capabilities(), HISTORY_LEVELS).expect("layout");
    backend.upload(graph, &layout).expect("upload");
    let held = backend.allocated_bytes();
    assert!(
        held <= layout.total_bytes(),
        "holds {held} bytes, layout allows {}",
        layout.total_bytes()
    );
    assert!(held > 0);
    layout
}

/// One search's results and every report.
pub struct Outcome {
    pub depths: Vec<u32>,
    pub parents: Vec<u32>,
    pub waves: Vec<(Choice, WaveReport)>,
}

/// Run a search with the choices `choose` makes, checking every report
/// against the contract as it comes.
pub fn search(
    backend: &mut dyn Backend,
    graph: &Graph,
    sources: &[u32],
    mut choose: impl FnMut(&Step) -> Choice,
) -> Outcome {
    let n = graph.vertex_count();
    let mut step = Step {
        wave: 0,
        position: begin(backend, graph, sources),
    };
    let mut waves = Vec::new();
    while step.position.frontier_len > 0 {
        assert!(
            step.position.level <= n + 1,
            "the search runs past {n} levels"
        );
        let choice = choose(&step);
        let command = command_for(backend, graph, &choice, step.position);
        let (report, position) = run(backend, &command)
            .unwrap_or_else(|e| panic!("wave {} ({choice:?}): {e}", step.wave));
        step = Step {
            wave: step.wave + 1,
            position,
        };
        waves.push((choice, report));
    }
    let mut depths = vec![0; n as usize];
    let mut parents = vec![0; n as usize];
    backend.read_depths(&mut depths).expect("read_depths");
    backend.read_parents(&mut parents).expect("read_parents");
    Outcome {
        depths,
        parents,
        waves,
    }
}
