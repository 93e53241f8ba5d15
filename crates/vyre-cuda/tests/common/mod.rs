//! Shared harness of the CUDA integration tests: opening the device (or
//! skipping visibly), a corpus of graph shapes, a small wave loop standing in
//! for the engine, and checks against the reference BFS.
#![allow(dead_code)]

use std::sync::{Arc, Mutex, MutexGuard};

use vyre_cuda::{CudaBackend, CudaOpenRequest, driver_present};
use vyre_driver::backend::{
    Backend, BackendErrorKind, CheckedCommand, DeviceCapabilities, DeviceLayout, EDGES_PER_LANE,
    FrontierForm, LaunchShape, LevelSizing, SearchPosition, SearchSources, WaveCommand, WaveReport,
    frontier_form_of, is_edge_balanced, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::generate::{
    KroneckerSpec, UniformSpec, chain, disjoint_union, grid_2d, kronecker, star, uniform_random,
};
use vyre_graph::relabel::relabel_by_degree;
use vyre_graph::{Graph, UNREACHED};

/// Whether the tests run against the CPU stand-in for libcuda
/// (`emu/cargo_test.sh`): the same checks on smaller graphs and launches.
pub fn emulated() -> bool {
    std::env::var_os("VYRE_CUDA_EMULATED").is_some()
}

/// Whether the tests use small graphs and launches and check no timing:
/// under the emulator, or with `VYRE_CUDA_SMALL=1` (the sanitizer runs of
/// `sanitize.sh`).
pub fn small() -> bool {
    emulated() || std::env::var("VYRE_CUDA_SMALL").is_ok_and(|v| v == "1")
}

/// `full` on a GPU, `small` under the emulator or the sanitizers.
pub fn size(full: u32, small_size: u32) -> u32 {
    if small() { small_size } else { full }
}

/// Levels one command may record (sizes the history buffer).
pub const HISTORY_LEVELS: u32 = 4096;

/// Tests share one GPU; cooperative launches must not compete for it.
static GPU: Mutex<()> = Mutex::new(());

/// The device and the lock that keeps other tests off it.
pub struct Gpu<B = CudaBackend> {
    pub backend: B,
    _lock: MutexGuard<'static, ()>,
}

/// Print a line the test harness does not capture, so skips show in a plain
/// `cargo test` run.
pub fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether `VYRE_REQUIRE_BACKENDS` names cuda: a skip is then a failure.
pub fn required() -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS").is_ok_and(|v| v.to_ascii_lowercase().contains("cuda"))
}

/// Open device 0, or print why not and return `None` (a visible skip) —
/// unless `VYRE_REQUIRE_BACKENDS` names cuda, in which case fail.
pub fn open_gpu(test: &str) -> Option<Gpu> {
    open_gpu_with(test, || CudaBackend::open(&open_request()))
}

/// [`open_gpu`] for a backend `open` makes.
pub fn open_gpu_with<B>(
    test: &str,
    open: impl FnOnce() -> Result<B, vyre_driver::backend::BackendError>,
) -> Option<Gpu<B>> {
    let lock = GPU
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !driver_present() {
        assert!(
            !required(),
            "{test}: VYRE_REQUIRE_BACKENDS includes cuda but no CUDA driver was found"
        );
        visible(&format!("{test}: skipped: no CUDA driver"));
        return None;
    }
    match open() {
        Ok(backend) => Some(Gpu {
            backend,
            _lock: lock,
        }),
        Err(e) if e.kind() == BackendErrorKind::Unavailable && !required() => {
            visible(&format!("{test}: skipped: no usable CUDA device: {e}"));
            None
        }
        Err(e) => panic!("{test}: the CUDA backend did not open: {e}"),
    }
}

/// How the tests open the device: the default request, with the wait limit
/// of `VYRE_CUDA_WAIT_LIMIT_S` when set (the sanitizers slow kernels down).
pub fn open_request() -> CudaOpenRequest {
    let wait_limit = std::env::var("VYRE_CUDA_WAIT_LIMIT_S")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(std::time::Duration::from_secs);
    CudaOpenRequest {
        wait_limit,
        ..CudaOpenRequest::default()
    }
}

/// Whether the device can run FusedWave; prints a skip line when not, and
/// fails when `VYRE_REQUIRE_BACKENDS` names cuda (a missing barrier is then
/// a fault, not a skip).
pub fn has_barrier(gpu: &Gpu) -> bool {
    let caps = gpu.backend.capabilities();
    if caps.can_fuse() {
        return true;
    }
    assert!(
        !required(),
        "VYRE_REQUIRE_BACKENDS includes cuda but {} has no device-wide barrier: {}",
        caps.device_name,
        caps.barrier_reason
    );
    visible(&format!(
        "skipped: {} has no device-wide barrier: {}",
        caps.device_name, caps.barrier_reason
    ));
    false
}

/// A graph of the corpus and the source sets to search it from.
pub struct Case {
    pub name: &'static str,
    pub graph: Arc<Graph>,
    pub sources: Vec<Vec<u32>>,
}

fn case(name: &'static str, graph: Graph, sources: Vec<Vec<u32>>) -> Case {
    Case {
        name,
        graph: Arc::new(graph),
        sources,
    }
}

/// A broom: a path 0 - 1 whose vertex 1 is joined to `hubs` hubs of
/// `leaves` leaves each, and a path of `tail` vertices hanging off the last
/// leaf. Searched from 0, level 2's frontier is exactly the hubs.
pub fn broom(hubs: u32, leaves: u32, tail: u32) -> Graph {
    let mut edges = vec![(0, 1)];
    let mut next = 2;
    for _ in 0..hubs {
        let hub = next;
        edges.push((1, hub));
        edges.extend((hub + 1..=hub + leaves).map(|leaf| (hub, leaf)));
        next = hub + leaves + 1;
    }
    edges.extend((next..next + tail).map(|v| (v - 1, v)));
    build_graph(next + tail, &edges, BuildOptions::UNDIRECTED).expect("broom")
}

/// Vertex 0 joined to `light` light vertices (a ring, each with one extra
/// leaf every fifth) and to `hubs` hubs of `leaves` leaves each, the hubs
/// spread evenly among the light ones. Searched from 0, level 1's frontier
/// holds every hub among `light` light vertices.
pub fn hubs_among_light(light: u32, hubs: u32, leaves: u32) -> Graph {
    let count = light + hubs;
    let every = count / hubs.max(1);
    let mut edges = Vec::new();
    let mut ring = Vec::new();
    let mut next = count + 1;
    for v in 1..=count {
        edges.push((0, v));
        if hubs > 0 && v % every == every / 2 && (v / every) < hubs {
            edges.extend((next..next + leaves).map(|leaf| (v, leaf)));
            next += leaves;
        } else {
            ring.push(v);
        }
    }
    for (i, &v) in ring.iter().enumerate() {
        edges.push((v, ring[(i + 1) % ring.len()]));
        if i % 5 == 0 {
            edges.push((v, next));
            next += 1;
        }
    }
    build_graph(next, &edges, BuildOptions::UNDIRECTED).expect("hubs among light")
}

/// Every shape the topologies are checked on.
pub fn corpus() -> Vec<Case> {
    let loops_and_duplicates = {
        let mut edges = vec![
            (0, 0),
            (0, 1),
            (0, 1),
            (1, 2),
            (2, 2),
            (2, 1),
            (3, 4),
            (4, 4),
        ];
        edges.extend((5..200).map(|v| (v - 1, v)));
        edges.extend((5..200).map(|v| (v, v)));
        edges.extend((5..200).step_by(3).map(|v| (v - 1, v)));
        let options = BuildOptions {
            symmetrize: true,
            remove_self_loops: false,
            remove_duplicates: false,
        };
        build_graph(200, &edges, options).expect("loops graph")
    };
    let directed_loops = {
        let mut edges: Vec<(u32, u32)> = (1..300).map(|v| (v - 1, v)).collect();
        edges.extend((0..300).step_by(7).map(|v| (v, v)));
        edges.extend((10..300).step_by(10).map(|v| (v, v - 10)));
        edges.extend([(5, 5), (5, 6), (5, 6)]);
        let options = BuildOptions {
            symmetrize: false,
            remove_self_loops: false,
            remove_duplicates: false,
        };
        build_graph(300, &edges, options).expect("directed loops graph")
    };
    let disconnected = disjoint_union(&[
        grid_2d(20, 20).expect("grid"),
        chain(50).expect("chain"),
        build_graph(30, &[], BuildOptions::UNDIRECTED).expect("isolated"),
        star(40).expect("star"),
    ])
    .expect("union");
    let grid = size(64, 12);
    let big_grid = size(300, 30);
    let path = size(3000, 60);
    let leaves = size(100_000, 300);
    let uniform = size(20_000, 800);
    vec![
        case(
            "grid",
            grid_2d(grid, grid).expect("grid"),
            vec![vec![0], vec![grid * grid / 2 + 7], vec![0, grid * grid - 1]],
        ),
        case(
            "big grid",
            grid_2d(big_grid, big_grid).expect("grid"),
            vec![vec![0]],
        ),
        case(
            "chain",
            chain(path).expect("chain"),
            vec![vec![0], vec![path / 2]],
        ),
        case(
            "star",
            star(leaves).expect("star"),
            vec![vec![0], vec![leaves * 7 / 9], vec![3, leaves]],
        ),
        case(
            "disconnected",
            disconnected,
            vec![vec![0], vec![405, 460], vec![401, 480]],
        ),
        case(
            "self-loops and duplicates",
            loops_and_duplicates,
            vec![vec![0], vec![3]],
        ),
        case(
            "directed with loops",
            directed_loops,
            vec![vec![0], vec![150]],
        ),
        case(
            "directed uniform",
            uniform_random(UniformSpec {
                vertex_count: size(5000, 600),
                edge_count: u64::from(size(30_000, 3600)),
                seed: 11,
                directed: true,
            })
            .expect("uniform"),
            vec![vec![0], vec![17, size(4000, 500)]],
        ),
        case(
            "directed kronecker",
            kronecker(KroneckerSpec {
                scale: size(12, 8),
                seed: 5,
                directed: true,
                ..KroneckerSpec::default()
            })
            .expect("kronecker"),
            vec![vec![1], vec![2, 3, 4]],
        ),
        case(
            // A power-law graph renumbered by degree, its isolated vertices
            // last: bottom-up levels search only up to the last vertex with
            // an in-edge and must still clear every word after it.
            "isolated tail",
            relabel_by_degree(
                &disjoint_union(&[
                    kronecker(KroneckerSpec {
                        scale: size(11, 7),
                        seed: 9,
                        ..KroneckerSpec::default()
                    })
                    .expect("kronecker"),
                    build_graph(size(20_000, 700), &[], BuildOptions::UNDIRECTED)
                        .expect("isolated"),
                ])
                .expect("union"),
                None,
            )
            .expect("relabel")
            .0,
            vec![vec![0], vec![1, 40]],
        ),
        case(
            // Directed: the last vertices only point into the rest, so no
            // in-edge reaches them; one of them is a source.
            "directed sources without in-edges",
            {
                let body = size(3000, 300);
                let mut edges: Vec<(u32, u32)> = (1..body).map(|v| (v - 1, v)).collect();
                edges.extend((0..body).step_by(3).map(|v| (v, (v * 7 + 1) % body)));
                edges.extend((body..body + 40).map(|v| (v, v % body)));
                build_graph(body + 40, &edges, BuildOptions::DIRECTED).expect("tail sources")
            },
            vec![vec![0], vec![size(3000, 300) + 39]],
        ),
        case(
            "broom",
            broom(8, size(20_000, 300), 30),
            vec![vec![0], vec![1, 5]],
        ),
        case(
            "hubs among light",
            // More light vertices than a block scans in shared memory (1024
            // at width 256, 256 at width 64).
            hubs_among_light(size(3000, 600), 8, size(20_000, 200)),
            vec![vec![0], vec![7]],
        ),
        case(
            "one vertex",
            build_graph(1, &[], BuildOptions::UNDIRECTED).expect("one"),
            vec![vec![0]],
        ),
        case(
            "no edges",
            build_graph(size(1000, 100), &[], BuildOptions::UNDIRECTED).expect("empty"),
            vec![vec![5], vec![1, 2, 3]],
        ),
        case(
            "uniform",
            uniform_random(UniformSpec {
                vertex_count: uniform,
                edge_count: u64::from(uniform) * 8,
                seed: 3,
                directed: false,
            })
            .expect("uniform"),
            vec![vec![0], vec![uniform - 1]],
        ),
        case(
            "kronecker",
            kronecker(KroneckerSpec {
                scale: size(14, 9),
                seed: 9,
                ..KroneckerSpec::default()
            })
            .expect("kronecker"),
            vec![vec![0], vec![100, 200, 300, 400]],
        ),
    ]
}

/// What the test loop runs next.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub topology: Topology,
    pub max_levels: u32,
    pub band: u64,
    /// Workgroups of the launch instead of the simple rule.
    pub blocks: Option<u32>,
}

impl Choice {
    /// One level of `topology`.
    pub fn single(topology: Topology) -> Self {
        Self {
            topology,
            max_levels: 1,
            band: u64::MAX,
            blocks: None,
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

/// What every report must satisfy whatever the graph.
pub fn check_report(command: &WaveCommand, report: &WaveReport) {
    let levels = &report.levels;
    assert!(!levels.is_empty(), "a command runs at least one level");
    assert!(levels.len() <= command.max_levels.max(1) as usize);
    assert!(report.device_ns.is_some());
    assert!(report.readback_bytes > 0);
    assert_eq!(levels[0].frontier_in, command.position.frontier_len);
    for (i, l) in levels.iter().enumerate() {
        assert_eq!(l.level, command.position.level + i as u32);
        if i + 1 < levels.len() {
            // A level ran after this one, so this one must not have stopped
            // the command.
            assert!(l.frontier_out > 0, "ran a level after an empty frontier");
            assert!(
                l.frontier_out_edges <= command.band_max_frontier_edges
                    && l.frontier_out <= command.band_max_frontier_vertices,
                "ran a level after the frontier left the band"
            );
            assert_eq!(levels[i + 1].frontier_in, l.frontier_out);
        }
    }
    let last = levels.last().expect("non-empty");
    let stopped = last.frontier_out == 0
        || last.frontier_out_edges > command.band_max_frontier_edges
        || last.frontier_out > command.band_max_frontier_vertices
        || levels.len() == command.max_levels.max(1) as usize;
    assert!(stopped, "the command returned early: {levels:?}");
    if command.topology != Topology::FusedWave && command.max_levels <= 1024 {
        assert!(
            levels.iter().all(|l| l.device_ns.is_some()),
            "per-wave levels are timed"
        );
    }
}

/// Per-level figures of the reference search.
struct LevelStats {
    /// Vertices at each depth.
    count: Vec<u64>,
    /// Sum of out-degrees of the vertices at each depth.
    out_edges: Vec<u64>,
}

fn level_stats(graph: &Graph, depths: &[u32]) -> LevelStats {
    let deepest = depths
        .iter()
        .filter(|&&d| d != UNREACHED)
        .max()
        .copied()
        .unwrap_or(0);
    let mut s = LevelStats {
        count: vec![0; deepest as usize + 2],
        out_edges: vec![0; deepest as usize + 2],
    };
    for (v, &d) in depths.iter().enumerate() {
        if d != UNREACHED {
            s.count[d as usize] += 1;
            s.out_edges[d as usize] += graph.out_edges().degree(v as u32);
        }
    }
    s
}

/// Depths equal to the reference, parents forming a valid BFS tree, and
/// every level record equal to what the reference says about that level.
pub fn check_outcome(what: &str, graph: &Graph, sources: &[u32], outcome: &Outcome) {
    let reference = reference_bfs(graph, sources);
    if let Some(v) = (0..reference.depths.len()).find(|&v| outcome.depths[v] != reference.depths[v])
    {
        panic!(
            "{what}: depth of vertex {v} is {} but the reference says {}",
            outcome.depths[v], reference.depths[v]
        );
    }
    for (v, (&d, &p)) in outcome.depths.iter().zip(&outcome.parents).enumerate() {
        let v = v as u32;
        if d == UNREACHED {
            assert_eq!(p, UNREACHED, "{what}: unreached vertex {v} has parent {p}");
        } else if d == 0 {
            assert_eq!(p, v, "{what}: source {v} is not its own parent");
        } else {
            assert!(
                p < graph.vertex_count(),
                "{what}: vertex {v} has parent {p}"
            );
            assert_eq!(
                outcome.depths[p as usize],
                d - 1,
                "{what}: parent {p} of vertex {v} (depth {d}) is not one level up"
            );
            assert!(
                graph.out_edges().neighbors(p).contains(&v),
                "{what}: parent {p} of vertex {v} has no edge to it"
            );
        }
    }
    let stats = level_stats(graph, &reference.depths);
    let at = |v: &Vec<u64>, l: u32| v.get(l as usize).copied().unwrap_or(0);
    for (choice, report) in &outcome.waves {
        for l in &report.levels {
            let label = format!("{what}: level {} ({:?})", l.level, choice.topology);
            assert_eq!(
                u64::from(l.frontier_in),
                at(&stats.count, l.level),
                "{label}: frontier_in"
            );
            assert_eq!(
                u64::from(l.frontier_out),
                at(&stats.count, l.level + 1),
                "{label}: frontier_out"
            );
            assert_eq!(
                l.frontier_out_edges,
                at(&stats.out_edges, l.level + 1),
                "{label}: frontier_out_edges"
            );
            if frontier_form_of(choice.topology) == FrontierForm::Queue {
                assert_eq!(
                    l.edges_examined,
                    at(&stats.out_edges, l.level),
                    "{label}: a top-down level examines the frontier's out-edges"
                );
            } else {
                assert!(
                    l.edges_examined >= u64::from(l.frontier_out)
                        && l.edges_examined <= graph.edge_count(),
                    "{label}: bottom-up examined {} edges",
                    l.edges_examined
                );
            }
        }
    }
}
