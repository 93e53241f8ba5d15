//! The graph shapes every CUDA topology is checked on, with their sources

use std::sync::Arc;

use vyre_graph::Graph;
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::generate::{
    KroneckerSpec, UniformSpec, chain, disjoint_union, grid_2d, kronecker, star, uniform_random,
};
use vyre_graph::relabel::relabel_by_degree;

use super::*;

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
