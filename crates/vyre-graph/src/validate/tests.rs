use super::*;
use crate::bfs::reference_bfs;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{chain, grid_2d};
use crate::{Graph, UNREACHED};

fn graph(n: u32, edges: &[(u32, u32)]) -> Graph {
    build_graph(n, edges, BuildOptions::UNDIRECTED).unwrap()
}

fn check_of(g: &Graph, sources: &[u32], depths: &[u32], parents: &[u32]) -> Option<Graph500Check> {
    let err = validate_bfs(g, sources, depths, parents).unwrap_err();
    assert!(err.to_string().contains("Fix:"), "{err}");
    err.check()
}

#[test]
fn correct_results_pass_with_a_report() {
    let g = grid_2d(5, 4).unwrap();
    let t = reference_bfs(&g, &[0]);
    let report = validate_bfs(&g, &[0], &t.depths, &t.parents).unwrap();
    assert_eq!(report.reached, 20);
    assert_eq!(report.max_depth, 7);
    assert_eq!(report.searched_edges, 4 * 4 + 5 * 3);
    // Multi-source, and a disconnected part left unreached.
    let g = graph(6, &[(0, 1), (1, 2), (3, 4)]);
    let t = reference_bfs(&g, &[2, 0]);
    let report = validate_bfs(&g, &[2, 0], &t.depths, &t.parents).unwrap();
    assert_eq!(
        (report.reached, report.max_depth, report.searched_edges),
        (3, 1, 2)
    );
}

#[test]
fn check_1_fires_on_a_parent_cycle() {
    // Triangle 0-1-2 plus tail 2-3, searched from 0. Make 1 and 2 each
    // other's parent.
    let g = graph(4, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
    let t = reference_bfs(&g, &[0]);
    let mut parents = t.parents.clone();
    parents[1] = 2;
    parents[2] = 1;
    assert_eq!(
        check_of(&g, &[0], &t.depths, &parents),
        Some(Graph500Check::Acyclic)
    );
}

#[test]
fn check_2_fires_on_a_tree_edge_within_one_level() {
    // Triangle from 0: 1 and 2 at depth 1. Hang 2 under 1 (a real edge,
    // no cycle) without changing depths.
    let g = graph(3, &[(0, 1), (1, 2), (0, 2)]);
    let t = reference_bfs(&g, &[0]);
    let mut parents = t.parents.clone();
    parents[2] = 1;
    assert_eq!(
        check_of(&g, &[0], &t.depths, &parents),
        Some(Graph500Check::TreeEdgeLevels)
    );
}

#[test]
fn check_3_fires_on_an_edge_skipping_levels() {
    // A 4-cycle 0-1-2-3-0 from 0: the real depths are 0,1,2,1. Claim the
    // tree is the path 0-1-2-3 (depths 0,1,2,3): every tree edge is real
    // and one level apart, but edge 0-3 now spans three levels.
    let g = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
    let depths = [0, 1, 2, 3];
    let parents = [0, 0, 1, 2];
    assert_eq!(
        check_of(&g, &[0], &depths, &parents),
        Some(Graph500Check::EdgeLevels)
    );
}

#[test]
fn check_4_fires_when_a_reachable_vertex_is_left_out() {
    let g = chain(3).unwrap();
    let depths = [0, 1, UNREACHED];
    let parents = [0, 0, UNREACHED];
    assert_eq!(
        check_of(&g, &[0], &depths, &parents),
        Some(Graph500Check::SpansComponent)
    );
}

#[test]
fn check_5_fires_on_a_parent_that_is_no_neighbour() {
    // 0-1, 0-2, 1-3: from 0, vertex 3 is at depth 2 under 1. Claim its
    // parent is 2 (also at depth 1, but not adjacent).
    let g = graph(4, &[(0, 1), (0, 2), (1, 3)]);
    let t = reference_bfs(&g, &[0]);
    let mut parents = t.parents.clone();
    parents[3] = 2;
    assert_eq!(
        check_of(&g, &[0], &t.depths, &parents),
        Some(Graph500Check::ParentEdgeExists)
    );
}

#[test]
fn directed_edges_only_constrain_their_direction() {
    // 0 -> 1 -> 2 -> 3 and 3 -> 0: from 0 the back edge 3 -> 0 goes up
    // three levels, which is fine; from 1, vertex 0 must be reached.
    let g = build_graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)], BuildOptions::DIRECTED).unwrap();
    let t = reference_bfs(&g, &[0]);
    assert!(validate_bfs(&g, &[0], &t.depths, &t.parents).is_ok());
    let depths = [UNREACHED, 0, 1, 2];
    let parents = [UNREACHED, 1, 1, 2];
    assert_eq!(
        check_of(&g, &[1], &depths, &parents),
        Some(Graph500Check::SpansComponent)
    );
}

#[test]
fn malformed_results_are_rejected_before_the_checks() {
    let g = chain(3).unwrap();
    let t = reference_bfs(&g, &[0]);
    let cases: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)> = vec![
        (vec![0], t.depths[..2].to_vec(), t.parents.clone()),
        (vec![7], t.depths.clone(), t.parents.clone()),
        (vec![1], t.depths.clone(), t.parents.clone()),
        (vec![0], vec![0, 1, 2], vec![0, 0, UNREACHED]),
        (vec![0], vec![0, 0, 1], vec![0, 0, 1]),
        (vec![0], vec![0, 1, 2], vec![0, 0, 9]),
    ];
    for (sources, depths, parents) in cases {
        let err = validate_bfs(&g, &sources, &depths, &parents).unwrap_err();
        assert_eq!(err.check(), None, "{err}");
        assert!(err.to_string().contains("Fix:"));
    }
}
