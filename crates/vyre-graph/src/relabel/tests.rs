use super::{Relabelling, relabel_by_degree, top_degree_share};
use crate::bfs::reference_bfs;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{KroneckerSpec, chain, grid_2d, kronecker, star};
use crate::memory::{LimitSource, MemoryLimit};
use crate::validate::validate_bfs;
use crate::{Graph, GraphError, UNREACHED};

pub(super) fn edges(graph: &Graph) -> Vec<(u32, u32)> {
    let csr = graph.out_edges();
    (0..graph.vertex_count())
        .flat_map(|u| csr.neighbors(u).iter().map(move |&v| (u, v)))
        .collect()
}

pub(super) fn kron(scale: u32, directed: bool) -> Graph {
    kronecker(KroneckerSpec {
        scale,
        directed,
        ..KroneckerSpec::default()
    })
    .unwrap()
}

/// Every edge of `graph`, renamed, is an edge of `relabelled` and the other
/// way round; degrees fall along the new ids and rows are sorted.
fn check_relabelled(graph: &Graph, relabelled: &Graph, map: &Relabelling) {
    check_edges_kept(graph, relabelled, map);
    let degree = |v: u32| relabelled.out_edges().degree(v) + relabelled.in_edges().degree(v);
    for v in 1..relabelled.vertex_count() {
        assert!(degree(v - 1) >= degree(v), "degree rises at new id {v}");
    }
}

/// Every edge of `graph`, renamed, is an edge of `relabelled` and the other
/// way round, and rows are sorted.
pub(super) fn check_edges_kept(graph: &Graph, relabelled: &Graph, map: &Relabelling) {
    assert_eq!(relabelled.vertex_count(), graph.vertex_count());
    assert_eq!(relabelled.edge_count(), graph.edge_count());
    assert_eq!(relabelled.is_symmetric(), graph.is_symmetric());
    for (csr, new_csr) in [
        (graph.out_edges(), relabelled.out_edges()),
        (graph.in_edges(), relabelled.in_edges()),
    ] {
        for old in 0..graph.vertex_count() {
            let new = map.new_id(old).unwrap();
            assert_eq!(map.old_id(new), Some(old));
            let mut renamed: Vec<u32> = csr
                .neighbors(old)
                .iter()
                .map(|&t| map.new_id(t).unwrap())
                .collect();
            renamed.sort_unstable();
            assert_eq!(new_csr.neighbors(new), renamed.as_slice(), "row of {old}");
        }
    }
}

#[test]
fn the_hub_of_a_star_becomes_vertex_zero() {
    // The hub of `star` is vertex 0; renumber so that it is the last vertex.
    let given = star(9).unwrap();
    let order: Vec<u32> = (0..10).rev().collect();
    let reversed = Relabelling::from_order(order).unwrap();
    let graph = build_graph(
        10,
        &edges(&given)
            .iter()
            .map(|&(u, v)| (reversed.new_id(u).unwrap(), reversed.new_id(v).unwrap()))
            .collect::<Vec<_>>(),
        BuildOptions::UNDIRECTED,
    )
    .unwrap();
    assert_eq!(graph.out_edges().degree(9), 9);
    let (relabelled, map) = relabel_by_degree(&graph, None).unwrap();
    assert_eq!(map.new_id(9), Some(0));
    assert_eq!(relabelled.out_edges().degree(0), 9);
    // Leaves keep their order among themselves (ties are stable).
    assert_eq!(map.to_new(&[0, 1, 8]), vec![1, 2, 9]);
    check_relabelled(&graph, &relabelled, &map);
}

/// A directed graph of `edges` exactly as listed: self-loops and
/// duplicates kept.
pub(super) fn as_listed(n: u32, edges: &[(u32, u32)]) -> Graph {
    build_graph(
        n,
        edges,
        BuildOptions {
            symmetrize: false,
            remove_self_loops: false,
            remove_duplicates: false,
        },
    )
    .unwrap()
}

/// Searches from `sources` on `relabelled`, mapped back by `map`, give
/// `graph`'s depths and valid parents in its own ids.
pub(super) fn check_searches_restore(
    graph: &Graph,
    relabelled: &Graph,
    map: &Relabelling,
    sources: &[u32],
) {
    let n = graph.vertex_count() as usize;
    for &source in sources {
        let expected = reference_bfs(graph, &[source]);
        let found = reference_bfs(relabelled, &map.to_new(&[source]));
        let mut depths = vec![0; n];
        let mut parents = vec![0; n];
        map.restore_values(&found.depths, &mut depths);
        map.restore_ids(&found.parents, &mut parents);
        assert_eq!(depths, expected.depths, "source {source}");
        validate_bfs(graph, &[source], &depths, &parents).unwrap();
        if expected.depths.contains(&UNREACHED) {
            assert!(parents.contains(&UNREACHED));
        }
    }
}

#[test]
fn relabelling_keeps_every_edge_on_many_shapes() {
    let duplicates_and_loops = as_listed(6, &[(0, 1), (0, 1), (2, 2), (3, 4), (4, 3), (5, 0)]);
    for graph in [
        kron(10, false),
        kron(9, true),
        grid_2d(7, 5).unwrap(),
        chain(50).unwrap(),
        duplicates_and_loops,
    ] {
        let (relabelled, map) = relabel_by_degree(&graph, None).unwrap();
        check_relabelled(&graph, &relabelled, &map);
    }
}

#[test]
fn searches_on_the_relabelled_graph_restore_to_the_callers_ids() {
    for graph in [kron(11, false), kron(10, true)] {
        let (relabelled, map) = relabel_by_degree(&graph, None).unwrap();
        check_searches_restore(&graph, &relabelled, &map, &[0, 7, graph.vertex_count() - 1]);
    }
}

#[test]
fn only_permutations_make_a_relabelling() {
    assert!(Relabelling::from_order(vec![2, 0, 1]).is_some());
    assert!(Relabelling::from_order(vec![0, 0, 1]).is_none());
    assert!(Relabelling::from_order(vec![0, 3, 1]).is_none());
    let map = Relabelling::from_order(vec![2, 0, 1]).unwrap();
    assert_eq!(map.new_id(3), None);
    // Out-of-range ids pass through for the search's range check.
    assert_eq!(map.to_new(&[2, 9]), vec![0, 9]);
}

#[test]
fn skewed_graphs_hold_their_edges_in_few_vertices() {
    // A star of 100 leaves: the top 1% (2 vertices) hold the hub's 100
    // endpoints and one leaf's 1, of 200.
    let hub = top_degree_share(&star(100).unwrap(), 0.01);
    assert!((hub - 101.0 / 200.0).abs() < 1e-12, "{hub}");
    let grid = top_degree_share(&grid_2d(100, 100).unwrap(), 0.01);
    assert!(grid < 0.02, "{grid}");
    let kron = top_degree_share(&kron(14, false), 0.01);
    assert!(kron > 0.25, "{kron}");
    assert_eq!(top_degree_share(&chain(1).unwrap(), 0.01), 0.0);
}

#[test]
fn a_copy_over_the_memory_limit_is_refused() {
    let limit = MemoryLimit {
        bytes: 1000,
        source: LimitSource::Configured,
    };
    let err = relabel_by_degree(&kron(10, false), Some(&limit)).unwrap_err();
    assert!(matches!(err, GraphError::OutOfMemory { .. }), "{err}");
    assert!(err.to_string().contains("Fix:"), "{err}");
}
