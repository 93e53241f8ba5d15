//! Checks of a test search against the reference BFS, down to each
//! level's counts.

use vyre_graph::bfs::reference_bfs;
use vyre_graph::{Graph, UNREACHED};

use crate::TOP_DOWN;

use crate::search::{Level, Search};

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
