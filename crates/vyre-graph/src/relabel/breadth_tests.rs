use super::tests::{as_listed, check_edges_kept, check_searches_restore, edges, kron};
use super::{Relabelling, breadth_first_order, relabel_by_breadth};
use crate::build::{BuildOptions, build_graph};
use crate::generate::{chain, grid_2d};
use crate::memory::{LimitSource, MemoryLimit};
use crate::{Graph, GraphError};

/// `graph` with vertex `old` renamed `order[old]`.
fn renamed(graph: &Graph, order: &[u32], options: BuildOptions) -> Graph {
    let renamed: Vec<(u32, u32)> = edges(graph)
        .iter()
        .map(|&(u, v)| (order[u as usize], order[v as usize]))
        .collect();
    build_graph(graph.vertex_count(), &renamed, options).unwrap()
}

#[test]
fn a_grid_is_numbered_by_its_diagonals_from_a_corner() {
    let (width, height) = (9, 6);
    let (relabelled, map) = relabel_by_breadth(&grid_2d(width, height).unwrap(), None).unwrap();
    check_edges_kept(&grid_2d(width, height).unwrap(), &relabelled, &map);
    // Vertex (x, y) is x + y steps from the corner (0, 0): along the new ids
    // that distance never falls, so each search level from the corner is a
    // run of consecutive ids.
    let mut last = 0;
    for new in 0..width * height {
        let old = map.old_id(new).unwrap();
        let steps = old % width + old / width;
        assert!(
            steps == last || steps == last + 1,
            "id {new}: {steps} after {last}"
        );
        last = steps;
    }
    assert_eq!(last, width - 1 + height - 1);
}

#[test]
fn a_scrambled_chain_starts_at_an_end_and_runs_in_order() {
    // A chain of 40 vertices whose ids were scattered (i -> 17 i mod 40),
    // so that vertex 0 is an end but not the walk's first vertex either way.
    let n = 40;
    let order: Vec<u32> = (0..n).map(|i| (17 * i + 11) % n).collect();
    let scrambled = renamed(&chain(n).unwrap(), &order, BuildOptions::UNDIRECTED);
    let (relabelled, map) = relabel_by_breadth(&scrambled, None).unwrap();
    check_edges_kept(&scrambled, &relabelled, &map);
    for new in 0..n - 1 {
        assert_eq!(
            relabelled.out_edges().neighbors(new).last(),
            Some(&(new + 1))
        );
    }
    let ends = [order[0], order[n as usize - 1]];
    assert!(
        ends.contains(&map.old_id(0).unwrap()),
        "{:?}",
        map.old_id(0)
    );
}

#[test]
fn components_take_runs_of_ids_in_the_order_of_their_lowest_vertex() {
    // Vertex 5 alone; {0, 3, 6} a path 3-0-6; {1, 2, 4} a path 4-1-2; a
    // self-loop on 5 and a duplicate edge keep to their component.
    let graph = build_graph(
        7,
        &[(3, 0), (0, 6), (4, 1), (1, 2), (1, 2), (5, 5)],
        BuildOptions {
            symmetrize: true,
            remove_self_loops: false,
            remove_duplicates: false,
        },
    )
    .unwrap();
    let map = breadth_first_order(&graph).unwrap();
    let run = |ids: &[u32]| {
        let mut new: Vec<u32> = ids.iter().map(|&v| map.new_id(v).unwrap()).collect();
        new.sort_unstable();
        new
    };
    assert_eq!(run(&[0, 3, 6]), vec![0, 1, 2]);
    assert_eq!(run(&[1, 2, 4]), vec![3, 4, 5]);
    assert_eq!(map.new_id(5), Some(6));
    // Each path starts at an end, so its middle vertex is second.
    assert_eq!(map.new_id(0), Some(1));
    assert_eq!(map.new_id(1), Some(4));
    let (relabelled, map) = relabel_by_breadth(&graph, None).unwrap();
    check_edges_kept(&graph, &relabelled, &map);
}

#[test]
fn directed_edges_are_walked_both_ways() {
    // Every edge points at vertex 0; an out-edge walk from 0 reaches nothing.
    let inward = as_listed(5, &[(1, 0), (2, 0), (3, 0), (4, 3)]);
    let (relabelled, map) = relabel_by_breadth(&inward, None).unwrap();
    assert!(!relabelled.is_symmetric());
    check_edges_kept(&inward, &relabelled, &map);
    // One component: the walk starts at the far end, 4, then 3, then 0.
    assert_eq!(map.to_new(&[4, 3, 0]), vec![0, 1, 2]);
}

#[test]
fn searches_on_the_relabelled_graph_restore_to_the_callers_ids() {
    let order: Vec<u32> = (0..400).map(|i| (37 * i + 5) % 400).collect();
    let scrambled_grid = renamed(&grid_2d(20, 20).unwrap(), &order, BuildOptions::UNDIRECTED);
    for graph in [
        kron(10, false),
        kron(9, true),
        scrambled_grid,
        as_listed(6, &[(0, 1), (0, 1), (2, 2), (3, 4), (4, 3), (5, 0)]),
    ] {
        let (relabelled, map) = relabel_by_breadth(&graph, None).unwrap();
        check_edges_kept(&graph, &relabelled, &map);
        check_searches_restore(&graph, &relabelled, &map, &[0, 3, graph.vertex_count() - 1]);
    }
}

#[test]
fn an_empty_graph_and_lone_vertices_keep_their_order() {
    let none = as_listed(0, &[]);
    assert_eq!(breadth_first_order(&none).unwrap().vertex_count(), 0);
    let lone = as_listed(4, &[]);
    let map = breadth_first_order(&lone).unwrap();
    assert_eq!(map, Relabelling::from_order(vec![0, 1, 2, 3]).unwrap());
}

#[test]
fn a_copy_over_the_memory_limit_is_refused() {
    let limit = MemoryLimit {
        bytes: 1000,
        source: LimitSource::Configured,
    };
    let err = relabel_by_breadth(&grid_2d(30, 30).unwrap(), Some(&limit)).unwrap_err();
    assert!(matches!(err, GraphError::OutOfMemory { .. }), "{err}");
    assert!(err.to_string().contains("by breadth"), "{err}");
    assert!(err.to_string().contains("Fix:"), "{err}");
}
