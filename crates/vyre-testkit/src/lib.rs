//! Test helpers shared by the backends that run vyre's WGSL kernels (wgpu
//! and Vulkan): a small test-only wave loop whose commands go through
//! `WaveCommand::check`, graph shapes, and checks against the reference
//! BFS, down to each level's counts and grid. Backends must not depend on
//! the engine (vyre-runtime), so the loop here stands in for it: its
//! launches follow the engine's rules, not its policy.
#![forbid(unsafe_code)]

pub mod batch;
pub mod shapes;
pub mod suites;

use std::sync::Arc;

use vyre_driver::backend::{
    Backend, ChainBand, CheckedCommand, DeviceCapabilities, DeviceLayout, EDGES_PER_LANE,
    FrontierBand, LaunchShape, LevelSizing, SearchPosition, SearchSources, WaveCommand,
    is_edge_balanced, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::{Graph, UNREACHED};
use vyre_wgsl_abi::records::LevelGrids;

/// The five per-wave topologies.
pub const TOPOLOGIES: [T; 5] = [
    T::WarpSparseFrontier,
    T::SparseFrontier,
    T::HybridFrontier,
    T::DenseFrontier,
    T::BlockDenseFrontier,
];

/// The topologies that push from the frontier: they examine exactly its
/// out-edges.
pub const TOP_DOWN: [T; 3] = [T::WarpSparseFrontier, T::SparseFrontier, T::HybridFrontier];

/// How often the stress-worthy tests repeat their searches:
/// `VYRE_STRESS_REPEATS` (default 1). Every repetition checks every level.
#[must_use]
pub fn repeats() -> usize {
    std::env::var("VYRE_STRESS_REPEATS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

/// Whether `VYRE_REQUIRE_BACKENDS` names `backend` (CI): then a missing
/// device fails instead of skipping.
#[must_use]
pub fn required(backend: &str) -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .is_ok_and(|list| list.split(',').any(|b| b.trim() == backend))
}

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

/// One level of a finished search.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// Topology the level ran with.
    pub topology: T,
    /// Depth of the frontier it expanded.
    pub level: u32,
    /// Vertices of that frontier.
    pub frontier_in: u32,
    /// Vertices it discovered.
    pub frontier_out: u32,
    /// Their out-edges.
    pub out_edges: u64,
    /// Edges it examined.
    pub examined: u64,
    /// Its device time, when the backend timed it alone.
    pub device_ns: Option<u64>,
    /// Workgroups the level ran with.
    pub grid: u32,
    /// What the command's launch (first level) or the engine's rule for its
    /// frontier (later levels) says it should have run with.
    pub engine_grid: u32,
}

/// One finished search: depths, parents and its levels.
pub struct Search {
    /// Depth of every vertex.
    pub depths: Vec<u32>,
    /// Parent of every vertex.
    pub parents: Vec<u32>,
    /// Every level that ran, in order.
    pub levels: Vec<Level>,
    /// Commands issued.
    pub commands: usize,
}

/// The launch of one command of a test search.
pub type Shape<'a> = &'a dyn Fn(&DeviceCapabilities, T, &SearchPosition) -> LaunchShape;

/// Run a whole search: each command uses `schedule(level)`'s topology and
/// chains up to `chain` levels, launched by the test-side rule [`launch`].
pub fn search<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
) -> Search {
    let n = graph.vertex_count();
    search_with(
        backend,
        layout,
        graph,
        sources,
        chain,
        schedule,
        &|caps, topology, at| launch(caps, topology, at, n),
    )
}

/// [`search`] with every command launched as `shape` says.
pub fn search_with<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
    shape: Shape<'_>,
) -> Search {
    let n = graph.vertex_count();
    let start = begin(backend, graph, sources);
    let waves = Waves {
        layout,
        chain,
        schedule,
        shape,
    };
    let (levels, commands) = waves.run(backend, start, &mut |backend, command| {
        backend.run_wave(command).expect("wave runs")
    });
    let mut depths = vec![0; n as usize];
    let mut parents = vec![0; n as usize];
    backend.read_depths(&mut depths).expect("depths read back");
    backend
        .read_parents(&mut parents)
        .expect("parents read back");
    Search {
        depths,
        parents,
        levels,
        commands,
    }
}

/// Each level of `report` as (its frontier, the vertices it found).
#[must_use]
pub fn frontiers(report: &vyre_driver::backend::WaveReport) -> Vec<(u32, u32)> {
    report
        .levels
        .iter()
        .map(|l| (l.frontier_in, l.frontier_out))
        .collect()
}

/// Check that `result`, a search of `depth` levels, took at most one
/// command per `per_command` levels, and one more.
pub fn check_command_count(result: &Search, depth: u32, per_command: u32, what: &str) {
    assert!(
        result.commands as u32 <= depth.div_ceil(per_command) + 1,
        "{what}: {} commands for {depth} levels",
        result.commands
    );
}

/// How a test checks its commands: `WaveCommand::check` or
/// `WaveCommand::check_batch`.
pub type CheckFn = fn(
    WaveCommand,
    &DeviceCapabilities,
    &DeviceLayout,
) -> Result<CheckedCommand, vyre_driver::backend::BackendError>;

/// How a test search's commands are made: each uses `schedule(level)`'s
/// topology, chains up to `chain` levels and is launched as `shape` says.
pub struct Waves<'a> {
    /// The uploaded layout.
    pub layout: &'a DeviceLayout,
    /// Most levels a command runs.
    pub chain: u32,
    /// The topology of the command starting at each level.
    pub schedule: &'a dyn Fn(u32) -> T,
    /// The launch of each command.
    pub shape: Shape<'a>,
}

impl Waves<'_> {
    /// Run commands from `start` through `run` until the frontier is empty;
    /// check that every report continues the search, and return every
    /// level with the grid it ran on, and the commands issued.
    pub fn run<B: Backend + LevelGrids>(
        &self,
        backend: &mut B,
        start: SearchPosition,
        run: &mut dyn FnMut(&mut B, &CheckedCommand) -> vyre_driver::backend::WaveReport,
    ) -> (Vec<Level>, usize) {
        self.run_with(backend, start, WaveCommand::check, run)
    }

    /// [`Self::run`] with every command checked by `check` (for a batch
    /// pass, [`WaveCommand::check_batch`]).
    pub fn run_with<B: Backend + LevelGrids>(
        &self,
        backend: &mut B,
        start: SearchPosition,
        check: CheckFn,
        run: &mut dyn FnMut(&mut B, &CheckedCommand) -> vyre_driver::backend::WaveReport,
    ) -> (Vec<Level>, usize) {
        let n = self.layout.vertex_count;
        let mut at = start;
        let mut levels = Vec::new();
        let mut commands = 0;
        while at.frontier_len > 0 {
            let topology = (self.schedule)(at.level);
            let launch = (self.shape)(backend.capabilities(), topology, &at);
            let launch = within_band(
                launch,
                topology,
                &at,
                self.layout,
                FrontierBand::of_edges(u64::MAX),
            );
            let command = WaveCommand {
                topology,
                position: at,
                max_levels: self.chain,
                launch,
                band_max_frontier_edges: u64::MAX,
                band_max_frontier_vertices: u32::MAX,
            };
            let command = check(command, backend.capabilities(), self.layout)
                .expect("the test's command is valid");
            let report = run(backend, &command);
            commands += 1;
            assert!(
                !report.levels.is_empty(),
                "a non-empty frontier runs a level"
            );
            assert!(report.levels.len() <= self.chain as usize);
            assert!(report.readback_bytes > 0);
            let grids = backend.last_level_grids();
            assert_eq!(grids.len(), report.levels.len());
            let mut engine_grid = u32::try_from(launch.workgroups()).expect("grid fits");
            for (k, (record, &grid)) in (0u32..).zip(report.levels.iter().zip(grids)) {
                assert_eq!(record.level, at.level + k);
                levels.push(Level {
                    topology,
                    level: record.level,
                    frontier_in: record.frontier_in,
                    frontier_out: record.frontier_out,
                    out_edges: record.frontier_out_edges,
                    examined: record.edges_examined,
                    device_ns: record.device_ns,
                    grid,
                    engine_grid,
                });
                engine_grid = launch.next_level_workgroups(
                    topology,
                    record.frontier_out,
                    record.frontier_out_edges,
                    n,
                );
            }
            let last = report.levels.last().expect("a level ran");
            at = at.after(topology, report.levels.len() as u32, last);
            assert!(commands <= n as usize + 1, "search does not terminate");
        }
        (levels, commands)
    }
}

/// What the reference BFS says of a search: depths, and per depth the
/// vertices and their out-edges.
pub struct Reference<'g> {
    graph: &'g Graph,
    /// Depth of every vertex.
    pub depths: Vec<u32>,
    /// Vertices at each depth.
    pub vertices: Vec<u64>,
    /// Their out-edges.
    pub edges: Vec<u64>,
}

impl<'g> Reference<'g> {
    /// The reference search of `graph` from `sources`.
    #[must_use]
    pub fn new(graph: &'g Graph, sources: &[u32]) -> Self {
        let depths = reference_bfs(graph, sources).depths;
        let mut vertices = Vec::new();
        let mut edges = Vec::new();
        for v in 0..graph.vertex_count() {
            let d = depths[v as usize];
            if d != UNREACHED {
                if vertices.len() <= d as usize {
                    vertices.resize(d as usize + 1, 0);
                    edges.resize(d as usize + 1, 0);
                }
                vertices[d as usize] += 1;
                edges[d as usize] += graph.out_edges().degree(v);
            }
        }
        Self {
            graph,
            depths,
            vertices,
            edges,
        }
    }

    fn at(list: &[u64], depth: u32) -> u64 {
        list.get(depth as usize).copied().unwrap_or(0)
    }
}

/// Check depths against the reference BFS, parents for validity (adjacency
/// lists from `build_graph` are sorted), every level's counts (vertices in
/// and out, out-edges found, and for top-down topologies edges examined)
/// against the reference depths, and that every level ran on the grid its
/// command or the engine's rule gave it.
pub fn check(graph: &Graph, sources: &[u32], result: &Search, what: &str) {
    check_against(&Reference::new(graph, sources), result, what);
}

/// [`check`] against a reference computed once.
pub fn check_against(reference: &Reference<'_>, result: &Search, what: &str) {
    check_counts(reference, result, what);
    for l in &result.levels {
        assert_eq!(
            l.grid, l.engine_grid,
            "{what}: level {} ran on {} workgroups, the engine's rule says {}",
            l.level, l.grid, l.engine_grid
        );
    }
}

/// [`check`] without the grids.
pub fn check_counts(reference: &Reference<'_>, result: &Search, what: &str) {
    let graph = reference.graph;
    let expected = &reference.depths;
    assert_eq!(result.depths.len(), expected.len(), "{what}: depth count");
    let wrong = (0..expected.len()).filter(|&v| result.depths[v] != expected[v]);
    if let Some(first) = wrong.clone().next() {
        panic!(
            "{what}: {} depths differ; first at vertex {first}: {} instead of {}",
            wrong.count(),
            result.depths[first],
            expected[first]
        );
    }
    for v in 0..graph.vertex_count() {
        let (d, p) = (result.depths[v as usize], result.parents[v as usize]);
        if d == UNREACHED {
            assert_eq!(p, UNREACHED, "{what}: unreached {v} has a parent");
        } else if d == 0 {
            assert_eq!(p, v, "{what}: source {v} is not its own parent");
        } else {
            assert!(p < graph.vertex_count(), "{what}: {v} has parent {p}");
            assert_eq!(
                result.depths[p as usize] + 1,
                d,
                "{what}: parent {p} of {v} is not one level up"
            );
            assert!(
                graph.out_edges().neighbors(p).binary_search(&v).is_ok(),
                "{what}: parent {p} of {v} is not adjacent"
            );
        }
    }
    for l in &result.levels {
        let top_down = TOP_DOWN.contains(&l.topology);
        check_level(l, &reference.vertices, &reference.edges, top_down, what);
    }
}

/// Check a level's frontier in and out, the out-edges it found and, when
/// it ran `top_down`, the edges it examined, against the vertices at each
/// depth and their out-edges.
pub fn check_level(l: &Level, vertices: &[u64], edges: &[u64], top_down: bool, what: &str) {
    let at = l.level;
    let vertices = |d| Reference::at(vertices, d);
    let edges = |d| Reference::at(edges, d);
    assert_eq!(
        u64::from(l.frontier_in),
        vertices(at),
        "{what}: level {at} frontier_in"
    );
    assert_eq!(
        u64::from(l.frontier_out),
        vertices(at + 1),
        "{what}: level {at} frontier_out"
    );
    assert_eq!(
        l.out_edges,
        edges(at + 1),
        "{what}: level {at} frontier_out_edges"
    );
    if top_down {
        assert_eq!(l.examined, edges(at), "{what}: level {at} edges examined");
    }
}

/// A deterministic pseudo-random edge list (64-bit LCG).
#[must_use]
pub fn random_edges(n: u32, m: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    (0..m).map(|_| (next() % n, next() % n)).collect()
}

/// Undirected random graph.
#[must_use]
pub fn random_undirected(n: u32, m: usize, seed: u64) -> Graph {
    build_graph(n, &random_edges(n, m, seed), BuildOptions::UNDIRECTED).expect("valid graph")
}

/// Directed random graph (in-edges differ from out-edges).
#[must_use]
pub fn random_directed(n: u32, m: usize, seed: u64) -> Graph {
    build_graph(n, &random_edges(n, m, seed), BuildOptions::DIRECTED).expect("valid graph")
}

/// The graph shapes every topology is checked on, with their sources.
#[must_use]
pub fn corpus() -> Vec<(&'static str, Graph, Vec<u32>)> {
    use vyre_graph::generate::{chain, grid_2d, star};
    let keep_all = BuildOptions {
        symmetrize: true,
        remove_self_loops: false,
        remove_duplicates: false,
    };
    let loops_dups = build_graph(
        6,
        &[
            (0, 0),
            (0, 1),
            (0, 1),
            (1, 2),
            (2, 2),
            (2, 3),
            (3, 4),
            (3, 4),
            (5, 5),
        ],
        keep_all,
    )
    .expect("valid graph");
    // Two components plus an isolated vertex.
    let disconnected = build_graph(
        9,
        &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 6), (6, 7)],
        BuildOptions::UNDIRECTED,
    )
    .expect("valid graph");
    vec![
        ("grid 23x17", grid_2d(23, 17).expect("grid"), vec![0]),
        ("chain 200", chain(200).expect("chain"), vec![57]),
        ("star 3000 from hub", star(3000).expect("star"), vec![0]),
        ("star 3000 from leaf", star(3000).expect("star"), vec![1777]),
        ("disconnected", disconnected, vec![4]),
        ("self-loops and duplicates", loops_dups, vec![0]),
        (
            "one vertex",
            build_graph(1, &[], BuildOptions::UNDIRECTED).expect("g"),
            vec![0],
        ),
        (
            "no edges",
            build_graph(50, &[], BuildOptions::UNDIRECTED).expect("g"),
            vec![7],
        ),
        (
            "random undirected",
            random_undirected(2000, 5000, 7),
            vec![3],
        ),
        ("random directed", random_directed(1500, 6000, 11), vec![5]),
        (
            "random multi-source",
            random_undirected(3000, 4000, 13),
            vec![0, 1000, 2999, 17],
        ),
    ]
}

/// `#[test]` functions that run suites of [`suites`]: for each
/// `module::name`, a test `name` calling `$run(stringify!(name),
/// suites::module::name)`, where `$run` opens the backend (or skips) and
/// runs the suite on it.
#[macro_export]
macro_rules! suite_tests {
    ($run:path => $($module:ident :: $name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $run(stringify!($name), $crate::suites::$module::$name);
            }
        )+
    };
}

/// The tests of [`suites::topologies`], run by `$run`.
#[macro_export]
macro_rules! topologies_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            topologies::every_topology_matches_the_reference_on_every_shape,
        );
    };
}

/// The tests of [`suites::batch`], run by `$run`.
#[macro_export]
macro_rules! batch_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            batch::every_topology_matches_the_reference_lane_by_lane,
            batch::chained_passes_match_the_reference,
            batch::batch_state_is_held_as_its_layout_lists_and_reused,
            batch::batch_misuse_is_a_typed_error,
        );
    };
}

/// The tests of [`suites::fused`]: `$fused` opens a device that runs the
/// fused kernel, `$run` the default device, and `$stuck` one forced to 64
/// resident workgroups that it never runs at once (or skips).
#[macro_export]
macro_rules! fused_tests {
    (fused: $fused:path, plain: $run:path, stuck: $stuck:path) => {
        $crate::suite_tests!($fused =>
            fused::the_fused_kernel_matches_the_reference,
            fused::a_fused_launch_stops_at_the_band,
            fused::a_batch_fused_wave_is_refused_and_the_pass_goes_on_per_wave,
        );
        $crate::suite_tests!($run =>
            fused::fused_wave_is_refused_without_a_device_wide_barrier,
            fused::lavapipe_has_no_device_wide_barrier,
        );
        $crate::suite_tests!($stuck =>
            fused::workgroups_that_wait_for_absent_ones_give_up,
        );
    };
}

/// The tests of [`suites::chains`], run by `$run`.
#[macro_export]
macro_rules! chains_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            chains::chains_of_several_levels_match_the_reference,
            chains::switching_topologies_mid_search_converts_the_frontier,
            chains::a_chain_stops_when_the_frontier_leaves_the_band,
            chains::a_chain_stops_when_the_frontier_outgrows_its_band_of_vertices,
            chains::a_chain_ends_early_when_the_frontier_empties,
        );
    };
}

/// The tests of [`suites::star_hub`], run by `$run`.
#[macro_export]
macro_rules! star_hub_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            star_hub::star_with_a_100k_leaf_hub_from_hub_and_from_leaf,
        );
    };
}

/// The tests of [`suites::hubs`], run by `$run`.
#[macro_export]
macro_rules! hubs_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            hubs::a_broom_whose_level_is_eight_hubs,
            hubs::hubs_mixed_with_mid_and_light_vertices_in_one_scan,
            hubs::a_short_frontier_with_many_edges_is_scanned_in_chunks_too,
            hubs::chunks_crowded_with_mid_degree_vertices,
            hubs::hubs_mixed_with_light_vertices_beyond_one_scan,
            hubs::directed_frontiers_with_runs_of_degree_zero_vertices,
            hubs::chains_across_small_and_chunked_frontiers,
            hubs::a_frontier_of_more_than_one_scan_per_chunk,
            hubs::hubs_at_every_width_and_with_few_workgroups,
        );
    };
}

/// The tests of [`suites::launch_shapes`], run by `$run`.
#[macro_export]
macro_rules! launch_shapes_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            launch_shapes::every_width_and_grid_shape_gives_the_reference_depths,
        );
    };
}

/// The tests of [`suites::segments`], run by `$run_split` (which opens the
/// backend with bindings of [`suites::segments::SPLIT_BINDING_BYTES`]).
#[macro_export]
macro_rules! segments_tests {
    ($run_split:path) => {
        $crate::suite_tests!($run_split =>
            segments::split_edge_segments_give_the_same_searches,
        );

        #[test]
        fn a_graph_beyond_eight_segments_is_refused_before_allocation() {
            $run_split(
                "a_graph_beyond_eight_segments_is_refused_before_allocation",
                |backend| {
                    $crate::suites::segments::a_graph_beyond_eight_segments_is_refused_before_allocation(
                        backend,
                    )
                },
            );
        }
    };
}
