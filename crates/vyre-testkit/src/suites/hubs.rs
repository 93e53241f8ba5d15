//! Levels whose frontier mixes hubs with light, mid-degree and degree-0
//! vertices: the shapes SparseFrontier's device-wide edge balancing and
//! HybridFrontier's heavy-vertex pieces are for. Frontiers both within and
//! beyond what one workgroup scans (2048 vertices), degrees on both sides of
//! every threshold (32 light, 1024 per piece), one level at a time and in
//! chains sized on the device. Depths are compared with the reference BFS,
//! parents checked, and every level's counts (vertices found, their
//! out-edges, edges examined) and grid compared with the reference's and the
//! engine's rule. `VYRE_STRESS_REPEATS=N` repeats every search N times.

use std::sync::Arc;
use vyre_wgsl_abi::records::LevelGrids;

use crate::shapes::{Tier, broom, hub_tree, tier};
use crate::{
    Reference, Search, TOP_DOWN, TOPOLOGIES, check_against, later_sizing, repeats, search,
    search_with, shape, upload,
};
use vyre_driver::backend::{Backend, DeviceLayout, slots_for};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;

/// Every topology, one level per command and in chains of 16.
fn every_topology<B: Backend + LevelGrids>(
    backend: &mut B,
    name: &str,
    graph: &Arc<Graph>,
    sources: &[u32],
) {
    let layout = upload(backend, graph, 16);
    let reference = Reference::new(graph, sources);
    for _ in 0..repeats() {
        for topology in TOPOLOGIES {
            for chain in [1, 16] {
                let result = search(backend, &layout, graph, sources, chain, &|_| topology);
                let what = format!("{name} / {topology:?} / chain {chain}");
                check_against(&reference, &result, &what);
            }
        }
    }
}

/// A broom whose level is eight hubs.
pub fn a_broom_whose_level_is_eight_hubs<B: Backend + LevelGrids>(backend: &mut B) {
    let graph = Arc::new(broom());
    let reference = Reference::new(&graph, &[0]).depths;
    let hubs = (0..graph.vertex_count())
        .filter(|&v| reference[v as usize] == 10)
        .collect::<Vec<_>>();
    assert_eq!(hubs.len(), 8, "level 10 is exactly the hubs");
    assert!(hubs.iter().all(|&h| graph.out_edges().degree(h) == 20_001));
    every_topology(backend, "broom", &graph, &[0]);
    // From a leaf: the hub level follows a one-vertex level of that hub.
    every_topology(backend, "broom from a leaf", &graph, &[77_777]);
}

/// Hubs mixed with mid and light vertices in one scan.
pub fn hubs_mixed_with_mid_and_light_vertices_in_one_scan<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    // 1,023 frontier vertices with 98,369 out-edges: every workgroup scans
    // them all itself (97 workgroups of 256 lanes * 4 edges repeat 99,231
    // degree loads, within the 2^18 that warrant a chunk scan). Degrees on
    // both sides of 32 (light) and of 1024 and 2048 (piece boundaries).
    let tiers = [
        tier(3, 20_000),
        tier(100, 200),
        tier(5, 31),
        tier(5, 32),
        tier(900, 3),
        tier(3, 1023),
        tier(3, 1024),
        tier(2, 2047),
        tier(2, 2048),
    ];
    let graph = Arc::new(hub_tree(4, &tiers, false));
    every_topology(backend, "mixed, one scan", &graph, &[0]);
}

/// A short frontier with many edges is scanned in chunks too.
pub fn a_short_frontier_with_many_edges_is_scanned_in_chunks_too<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    // 1,514 frontier vertices with 286,014 out-edges: 280 workgroups of 256
    // lanes * 4 edges would repeat 423,920 degree loads scanning the whole
    // frontier each, more than 2^18 and than the edges, so the device scans
    // it in one chunk of its own. With and without degree-0 vertices (1,514
    // vertices, 282,400 edges, 276 workgroups).
    let tiers = [tier(14, 20_000), tier(1500, 3)];
    let graph = Arc::new(hub_tree(3, &tiers, false));
    assert_eq!(Reference::new(&graph, &[0]).edges[3], 286_014);
    every_topology(backend, "short and heavy", &graph, &[0]);
    let tiers = [tier(700, 0), tier(14, 20_000), tier(800, 3)];
    let graph = Arc::new(hub_tree(3, &tiers, true));
    every_topology(backend, "short and heavy, directed", &graph, &[0]);
}

/// Chunks crowded with mid degree vertices.
pub fn chunks_crowded_with_mid_degree_vertices<B: Backend + LevelGrids>(backend: &mut B) {
    // 600 frontier vertices of 1,001 edges (1,000 directed): every Hybrid
    // chunk has far more mid-degree edges than it walks itself and hands the
    // rest on as pieces.
    for directed in [false, true] {
        let graph = Arc::new(hub_tree(3, &[tier(600, 1000), tier(50, 2)], directed));
        every_topology(
            backend,
            &format!("crowded mid, directed {directed}"),
            &graph,
            &[0],
        );
    }
}

/// Hubs mixed with light vertices beyond one scan.
pub fn hubs_mixed_with_light_vertices_beyond_one_scan<B: Backend + LevelGrids>(backend: &mut B) {
    // 3,308 frontier vertices, then 223,000: both scanned in chunks.
    let tiers = [tier(8, 20_000), tier(300, 200), tier(3000, 3)];
    let graph = Arc::new(hub_tree(4, &tiers, false));
    every_topology(backend, "mixed, chunked", &graph, &[0]);
}

/// Directed frontiers with runs of degree zero vertices.
pub fn directed_frontiers_with_runs_of_degree_zero_vertices<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    let shapes: [(&str, Vec<Tier>); 2] = [
        // 208 frontier vertices.
        ("one scan", vec![tier(100, 0), tier(8, 3000), tier(100, 0)]),
        // 4,508 frontier vertices, whole chunks of them without out-edges.
        (
            "chunked",
            vec![tier(2500, 0), tier(8, 5000), tier(1500, 2), tier(500, 0)],
        ),
    ];
    for (name, tiers) in shapes {
        let graph = Arc::new(hub_tree(3, &tiers, true));
        assert!(!graph.is_symmetric());
        every_topology(backend, &format!("directed, {name}"), &graph, &[0]);
    }
}

/// Chains across small and chunked frontiers.
pub fn chains_across_small_and_chunked_frontiers<B: Backend + LevelGrids>(backend: &mut B) {
    // Levels grow past one scan and shrink back within the chain.
    let graph = Arc::new(crate::random_undirected(40_000, 70_000, 41));
    let sources = [0, 17, 39_999];
    let reference = Reference::new(&graph, &sources);
    assert!(reference.vertices.len() > 6, "a deep enough search");
    let layout = upload(backend, &graph, 32);
    for _ in 0..repeats() {
        for topology in TOP_DOWN {
            for chain in [4, 32] {
                let result = search(backend, &layout, &graph, &sources, chain, &|_| topology);
                assert!(
                    result.levels.iter().any(|l| l.frontier_in > 2048)
                        && result.levels.iter().any(|l| l.frontier_in < 2048),
                    "the search has small and chunked levels"
                );
                let what = format!("random / {topology:?} / chain {chain}");
                check_against(&reference, &result, &what);
            }
        }
    }
}

/// A frontier of more than one scan per chunk.
pub fn a_frontier_of_more_than_one_scan_per_chunk<B: Backend + LevelGrids>(backend: &mut B) {
    // 2048 * 2048 = 4,194,304 frontier vertices is the most chunks of one
    // scan each can hold; a larger frontier scans several per chunk.
    let graph = Arc::new(vyre_graph::generate::star(4_200_000).expect("star"));
    let layout = upload(backend, &graph, 4);
    let topology = T::SparseFrontier;
    for (sources, chain) in [(vec![0], 1), (vec![123_456], 4)] {
        let reference = Reference::new(&graph, &sources);
        for _ in 0..repeats() {
            let result = search(backend, &layout, &graph, &sources, chain, &|_| topology);
            assert!(result.levels.iter().any(|l| l.frontier_in > 2048 * 2048));
            let what = format!("star 4.2M from {sources:?} / chain {chain}");
            check_against(&reference, &result, &what);
        }
    }
}

/// Run a whole search with every level on `groups` workgroups of `width`
/// (later levels capped at `groups` too, so device-sized levels stride), or
/// on grids that cover the level's vertices.
fn narrow_search<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    topology: T,
    width: u32,
    groups: Option<u32>,
    chain: u32,
) -> Search {
    let n = graph.vertex_count();
    search_with(
        backend,
        layout,
        graph,
        &[0],
        chain,
        &|_| topology,
        &|_, topology, at| {
            let cover = slots_for(topology, at.frontier_len, n)
                .max(1)
                .div_ceil(width);
            let grid = groups.unwrap_or(cover).min(65_535);
            let later = later_sizing(topology, groups.unwrap_or(65_535));
            shape(width, [grid, 1, 1], later, topology, at, n)
        },
    )
}

/// Hubs at every width and with few workgroups.
pub fn hubs_at_every_width_and_with_few_workgroups<B: Backend + LevelGrids>(backend: &mut B) {
    let max_width = backend.capabilities().max_workgroup_size_x;
    // 2,354 frontier vertices (chunked) with 4 hubs of 5,000 edges.
    let tiers = [tier(4, 5000), tier(50, 100), tier(2300, 2)];
    let graph = Arc::new(hub_tree(3, &tiers, false));
    let layout = upload(backend, &graph, 8);
    let reference = Reference::new(&graph, &[0]);
    // Every slot covered, one workgroup, three. An invocation handles at
    // least edges / (width * workgroups) edges, and lavapipe ends its loops
    // after 65,535 iterations: width 1 runs only on grids sized to the level.
    let combos = [
        (1, None),
        (8, None),
        (8, Some(1)),
        (8, Some(3)),
        (32, Some(1)),
        (32, Some(3)),
        (max_width, None),
        (max_width, Some(1)),
        (max_width, Some(3)),
    ];
    // WarpSparse is left out: one warp per frontier vertex walks the 29,600
    // leaves of the last level in as many rounds, past lavapipe's budget on
    // one narrow workgroup.
    for _ in 0..repeats() {
        for (width, groups) in combos {
            for topology in [T::SparseFrontier, T::HybridFrontier] {
                let chain = if groups == Some(3) { 8 } else { 1 };
                let result =
                    narrow_search(backend, &layout, &graph, topology, width, groups, chain);
                let what = format!("{topology:?} / width {width} / {groups:?} workgroups");
                check_against(&reference, &result, &what);
            }
        }
    }
}
