//! Generated graphs: deterministic random ones, and the corpus of shapes
//! every topology is checked on.

use vyre_graph::Graph;
use vyre_graph::build::{BuildOptions, build_graph};

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
