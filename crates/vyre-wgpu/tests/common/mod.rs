//! Shared test helpers: opening lavapipe (or skipping), a small test-only
//! wave loop, graph shapes, and checks against the reference BFS.
#![allow(dead_code)]

pub mod shapes;

use std::sync::Arc;

use vyre_driver::backend::{
    Backend, DeviceCapabilities, DeviceLayout, FrontierForm, LaunchShape, WaveCommand, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::{Graph, UNREACHED};
use vyre_wgpu::{WgpuBackend, WgpuOpenRequest};

/// The five per-wave topologies this backend runs.
pub const TOPOLOGIES: [T; 5] = [
    T::WarpSparseFrontier,
    T::SparseFrontier,
    T::HybridFrontier,
    T::DenseFrontier,
    T::BlockDenseFrontier,
];

/// Open a backend with `request`, or print a visible skip line and return
/// `None` when no adapter exists (a failure when CI requires wgpu).
pub fn open_with(request: &WgpuOpenRequest) -> Option<WgpuBackend> {
    match WgpuBackend::open(request) {
        Ok(backend) => Some(backend),
        Err(error) => {
            let required = std::env::var("VYRE_REQUIRE_BACKENDS")
                .is_ok_and(|list| list.split(',').any(|b| b.trim() == "wgpu"));
            assert!(!required, "VYRE_REQUIRE_BACKENDS has wgpu but: {error}");
            println!("skipped: no wgpu adapter ({error})");
            None
        }
    }
}

/// Open the default adapter, or skip.
pub fn open() -> Option<WgpuBackend> {
    open_with(&WgpuOpenRequest::default())
}

/// Upload `graph` with a level history of `max_levels` per command and check
/// the bytes held against the layout.
pub fn upload(backend: &mut WgpuBackend, graph: &Arc<Graph>, max_levels: u32) -> DeviceLayout {
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

/// The test-only launch rule: width 256 clamped to the limits, one lane per
/// slot up to the per-dimension workgroup limit.
pub fn launch(caps: &DeviceCapabilities, topology: T, frontier_len: u32, n: u32) -> LaunchShape {
    let width = 256.min(caps.max_workgroup_size_x);
    let slots = slots_for(topology, frontier_len, n).max(1);
    let groups = slots
        .div_ceil(width)
        .clamp(1, caps.max_compute_workgroups_per_dimension);
    LaunchShape {
        workgroup_size_x: width,
        dispatch_grid: [groups, 1, 1],
        slots_per_lane: slots.div_ceil(groups * width),
        max_workgroups: caps.max_compute_workgroups_per_dimension,
    }
}

/// One finished search: depths, parents and per-level counters.
pub struct Search {
    pub depths: Vec<u32>,
    pub parents: Vec<u32>,
    /// (level, frontier_in, frontier_out, frontier_out_edges, edges_examined)
    pub levels: Vec<(u32, u32, u32, u64, u64)>,
    /// Device time of each level, where the device timed it.
    pub device_ns: Vec<Option<u64>>,
    /// Commands issued.
    pub commands: usize,
}

/// Run a whole search: each command uses `schedule(level)`'s topology and
/// chains up to `chain` levels, launched by the test-only rule [`launch`].
pub fn search(
    backend: &mut WgpuBackend,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
) -> Search {
    let n = graph.vertex_count();
    search_with(
        backend,
        graph,
        sources,
        chain,
        schedule,
        &|caps, topology, len| launch(caps, topology, len, n),
    )
}

/// [`search`] with every command launched as `shape(caps, topology,
/// frontier_len)` says.
pub fn search_with(
    backend: &mut WgpuBackend,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
    shape: &dyn Fn(&DeviceCapabilities, T, u32) -> LaunchShape,
) -> Search {
    let n = graph.vertex_count();
    backend.begin_search(sources).expect("search starts");
    let mut form = FrontierForm::Queue;
    let mut level = 0u32;
    let mut frontier_len = sources.len() as u32;
    let mut levels = Vec::new();
    let mut device_ns = Vec::new();
    let mut commands = 0;
    while frontier_len > 0 {
        let topology = schedule(level);
        let command = WaveCommand {
            topology,
            frontier: form,
            level,
            frontier_len,
            max_levels: chain,
            launch: shape(backend.capabilities(), topology, frontier_len),
            band_max_frontier_edges: u64::MAX,
        };
        let report = backend.run_wave(&command).expect("wave runs");
        commands += 1;
        assert!(
            !report.levels.is_empty(),
            "a non-empty frontier runs a level"
        );
        assert!(report.levels.len() <= chain as usize);
        assert!(report.readback_bytes > 0);
        for record in &report.levels {
            assert_eq!(record.level, level);
            assert_eq!(record.frontier_in, frontier_len);
            levels.push((
                record.level,
                record.frontier_in,
                record.frontier_out,
                record.frontier_out_edges,
                record.edges_examined,
            ));
            device_ns.push(record.device_ns);
            level += 1;
            frontier_len = record.frontier_out;
        }
        form = report.frontier.expect("a report names the frontier form");
        assert!(commands <= n as usize + 1, "search does not terminate");
    }
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
        device_ns,
        commands,
    }
}

/// Check depths against the reference BFS, parents for validity (adjacency
/// lists from `build_graph` are sorted), and each
/// level's discovered count and out-edge sum against the reference depths.
pub fn check(graph: &Graph, sources: &[u32], result: &Search, what: &str) {
    let expected = reference_bfs(graph, sources);
    assert_eq!(
        result.depths.len(),
        expected.depths.len(),
        "{what}: depth count"
    );
    let wrong = (0..expected.depths.len()).filter(|&v| result.depths[v] != expected.depths[v]);
    if let Some(first) = wrong.clone().next() {
        panic!(
            "{what}: {} depths differ; first at vertex {first}: {} instead of {}",
            wrong.count(),
            result.depths[first],
            expected.depths[first]
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
    let depths = &expected.depths;
    for &(level, frontier_in, frontier_out, out_edges, _) in &result.levels {
        let at = |d: u32| (0..graph.vertex_count()).filter(move |&v| depths[v as usize] == d);
        assert_eq!(
            frontier_in as usize,
            at(level).count(),
            "{what}: level {level} frontier_in"
        );
        assert_eq!(
            frontier_out as usize,
            at(level + 1).count(),
            "{what}: level {level} frontier_out"
        );
        let degrees: u64 = at(level + 1).map(|v| graph.out_edges().degree(v)).sum();
        assert_eq!(
            out_edges, degrees,
            "{what}: level {level} frontier_out_edges"
        );
    }
}

/// Out-degree sum of the vertices at `depth` in the reference search.
pub fn frontier_degrees(graph: &Graph, sources: &[u32], depth: u32) -> u64 {
    let expected = reference_bfs(graph, sources);
    (0..graph.vertex_count())
        .filter(|&v| expected.depths[v as usize] == depth)
        .map(|v| graph.out_edges().degree(v))
        .sum()
}

/// A deterministic pseudo-random edge list (64-bit LCG).
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
pub fn random_undirected(n: u32, m: usize, seed: u64) -> Graph {
    build_graph(n, &random_edges(n, m, seed), BuildOptions::UNDIRECTED).expect("valid graph")
}

/// Directed random graph (in-edges differ from out-edges).
pub fn random_directed(n: u32, m: usize, seed: u64) -> Graph {
    build_graph(n, &random_edges(n, m, seed), BuildOptions::DIRECTED).expect("valid graph")
}

/// The graph shapes every topology is checked on, with their sources.
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
