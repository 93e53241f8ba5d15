use proptest::prelude::*;

use super::*;
use crate::Graph;
use crate::bfs::reference_bfs;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{UniformSpec, chain, grid_2d, star, uniform_random};

/// Run a whole pass from `sources`, choosing push or pull per level from
/// `pulls` (bit k: level k pulls), and return every lane's depths
/// (vertex-major) and the per-level lane counts.
fn run_pass(graph: &Graph, sources: &[u32], pulls: u64) -> (Vec<u32>, Vec<[u32; 64]>) {
    let mut state = BatchState::new(graph.vertex_count(), sources.len() as u32, true).unwrap();
    let mut queue = state.start(sources);
    let mut from = 0usize;
    let mut counts = Vec::new();
    let mut level = 0u32;
    while !queue.is_empty() {
        let step = if pulls >> (level % 64) & 1 == 1 {
            let step = state.pull(graph, from, level);
            queue = state.queue_of(1 - from);
            assert_eq!(queue.len() as u32, step.stats.frontier_out);
            step
        } else {
            let step = state.push(graph, &queue, from, level);
            queue = step.next.clone();
            step
        };
        counts.push(step.lanes);
        from = 1 - from;
        level += 1;
    }
    let mut depths = vec![0; graph.vertex_count() as usize * sources.len()];
    state.read_depths(&mut depths).unwrap();
    (depths, counts)
}

/// Every lane's depths and counts equal a reference BFS from its source.
fn check(graph: &Graph, sources: &[u32], pulls: u64) {
    let (depths, counts) = run_pass(graph, sources, pulls);
    let k = sources.len();
    for (j, &s) in sources.iter().enumerate() {
        let reference = reference_bfs(graph, &[s]).depths;
        let lane: Vec<u32> = (0..graph.vertex_count() as usize)
            .map(|v| depths[v * k + j])
            .collect();
        assert_eq!(lane, reference, "lane {j} (source {s}), pulls {pulls:#x}");
        for (level, c) in counts.iter().enumerate() {
            let at = reference.iter().filter(|&&d| d == level as u32 + 1).count();
            assert_eq!(c[j] as usize, at, "lane {j}, level {level}");
        }
    }
}

#[test]
fn every_shape_matches_the_reference_pushing_pulling_and_switching() {
    let directed = uniform_random(UniformSpec {
        vertex_count: 300,
        edge_count: 900,
        seed: 5,
        directed: true,
    })
    .unwrap();
    let loops = build_graph(
        6,
        &[(0, 0), (0, 1), (1, 1), (1, 2), (2, 3), (0, 1), (4, 5)],
        BuildOptions {
            remove_self_loops: false,
            ..BuildOptions::UNDIRECTED
        },
    )
    .unwrap();
    let graphs = [
        grid_2d(13, 9).unwrap(),
        chain(200).unwrap(),
        star(700).unwrap(),
        directed,
        loops,
    ];
    for graph in &graphs {
        let n = graph.vertex_count();
        // 64 lanes, repeats included; and a single lane.
        let sources: Vec<u32> = (0..64u32).map(|j| (j * 37) % n).collect();
        for pulls in [0, u64::MAX, 0b1010_0110, 0x5555_5555_5555_5555] {
            check(graph, &sources, pulls);
            check(graph, &sources[3..4], pulls);
        }
    }
}

#[test]
fn a_pull_after_a_pull_and_a_push_after_a_pull_see_clean_words() {
    // Level 0 pulls (leaving array 0 dirty), level 1 pushes into array 0.
    let graph = grid_2d(20, 20).unwrap();
    check(&graph, &[0, 399, 210], 0b01);
    check(&graph, &[0, 399, 210], 0b011);
}

#[test]
fn a_state_holds_its_words_and_kept_depths() {
    let state = BatchState::new(1000, 10, true).unwrap();
    assert_eq!(state.bytes(), 3 * 8000 + 40_000);
    assert!(state.keeps_depths());
    let counts_only = BatchState::new(1000, 10, false).unwrap();
    assert_eq!(counts_only.bytes(), 24_000);
    let mut out = vec![0; 5];
    assert!(counts_only.read_depths(&mut out).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_graphs_lanes_and_directions_match_the_reference(
        n in 1u32..60,
        edges in proptest::collection::vec((0u32..60, 0u32..60), 0..200),
        lanes in 1usize..65,
        pulls in any::<u64>(),
        directed in any::<bool>(),
    ) {
        let edges: Vec<_> = edges.into_iter().map(|(a, b)| (a % n, b % n)).collect();
        let options = if directed { BuildOptions::DIRECTED } else { BuildOptions::UNDIRECTED };
        let graph = build_graph(n, &edges, options).unwrap();
        let sources: Vec<u32> = (0..lanes as u32).map(|j| (j * 7 + 3) % n).collect();
        check(&graph, &sources, pulls);
    }
}
