use super::*;
use crate::bfs::reference_bfs;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{KroneckerSpec, chain, kronecker};

#[test]
fn searched_edges_counts_undirected_edges_of_the_component() {
    // Component {0,1,2} with edges 0-1, 1-2, 0-2; component {3,4} with 3-4.
    let g = build_graph(
        5,
        &[(0, 1), (1, 2), (0, 2), (3, 4), (1, 0)],
        BuildOptions::UNDIRECTED,
    )
    .unwrap();
    let t = reference_bfs(&g, &[0]);
    assert_eq!(searched_edges(&g, &t.depths), 3);
    let t = reference_bfs(&g, &[4]);
    assert_eq!(searched_edges(&g, &t.depths), 1);
}

#[test]
fn a_kept_self_loop_counts_once() {
    let options = BuildOptions {
        remove_self_loops: false,
        ..BuildOptions::UNDIRECTED
    };
    let g = build_graph(3, &[(0, 0), (0, 1), (1, 2)], options).unwrap();
    let t = reference_bfs(&g, &[0]);
    assert_eq!(searched_edges(&g, &t.depths), 3);
}

#[test]
fn directed_counts_edges_leaving_reached_vertices() {
    let g = build_graph(4, &[(0, 1), (1, 2), (3, 0), (2, 0)], BuildOptions::DIRECTED).unwrap();
    let t = reference_bfs(&g, &[0]);
    // Reached 0, 1, 2: edges 0->1, 1->2, 2->0; 3->0 leaves an unreached vertex.
    assert_eq!(searched_edges(&g, &t.depths), 3);
}

#[test]
fn harmonic_mean_matches_hand_values() {
    assert!((harmonic_mean(&[1.0, 2.0, 4.0]) - 12.0 / 7.0).abs() < 1e-12);
    assert!((harmonic_mean(&[5.0]) - 5.0).abs() < 1e-12);
    assert_eq!(harmonic_mean(&[]), 0.0);
    assert_eq!(harmonic_mean(&[3.0, 0.0]), 0.0);
}

#[test]
fn sources_are_distinct_non_isolated_and_repeatable() {
    let g = kronecker(KroneckerSpec {
        scale: 12,
        ..KroneckerSpec::default()
    })
    .unwrap();
    let a = sample_sources(&g, 64, 7);
    assert_eq!(a, sample_sources(&g, 64, 7));
    assert_ne!(a, sample_sources(&g, 64, 8));
    assert_eq!(a.len(), 64);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 64);
    assert!(a.iter().all(|&v| g.out_edges().degree(v) > 0));
}

#[test]
fn sampling_more_sources_than_candidates_returns_them_all() {
    // 2 edges among 100 vertices: only 3 vertices have degree > 0.
    let g = build_graph(100, &[(10, 20), (20, 30)], BuildOptions::UNDIRECTED).unwrap();
    let mut s = sample_sources(&g, 10, 1);
    s.sort_unstable();
    assert_eq!(s, vec![10, 20, 30]);
    assert!(sample_sources(&chain(1).unwrap(), 3, 1).is_empty());
}

#[test]
fn sampling_any_count_up_to_usize_max_neither_overflows_nor_spins() {
    // 64 * usize::MAX overflowed (a panic in debug builds) and, wrapped,
    // could leave billions of rejection attempts.
    let g = build_graph(100, &[(10, 20), (20, 30)], BuildOptions::UNDIRECTED).unwrap();
    for count in [usize::MAX, usize::MAX / 64 + 1, u32::MAX as usize + 1] {
        let mut s = sample_sources(&g, count, 3);
        s.sort_unstable();
        assert_eq!(s, vec![10, 20, 30], "count {count}");
    }
    let grid = crate::generate::grid_2d(8, 8).unwrap();
    assert_eq!(sample_sources(&grid, usize::MAX, 3).len(), 64);
}

#[test]
fn sampled_sources_need_an_out_edge_that_is_not_a_self_loop() {
    // Directed, loops kept: 0 has only its loop, 1 -> 2, 2 has no out-edge,
    // 3 has a loop and an edge to 0.
    let options = BuildOptions {
        remove_self_loops: false,
        ..BuildOptions::DIRECTED
    };
    let g = build_graph(4, &[(0, 0), (1, 2), (3, 3), (3, 0)], options).unwrap();
    let mut s = sample_sources(&g, 8, 1);
    s.sort_unstable();
    assert_eq!(s, vec![1, 3]);
}
