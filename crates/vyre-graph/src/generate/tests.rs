use super::*;
use crate::bfs::reference_bfs;
use crate::{Graph, GraphError, UNREACHED};

fn max_depth(g: &Graph, source: u32) -> u32 {
    let tree = reference_bfs(g, &[source]);
    tree.depths
        .into_iter()
        .filter(|&d| d != UNREACHED)
        .max()
        .unwrap()
}

fn has_self_loop(g: &Graph) -> bool {
    (0..g.vertex_count()).any(|v| g.out_edges().neighbors(v).contains(&v))
}

#[test]
fn chain_is_a_path() {
    let g = chain(10).unwrap();
    assert_eq!((g.vertex_count(), g.edge_count()), (10, 18));
    assert_eq!(max_depth(&g, 0), 9);
    assert_eq!(max_depth(&g, 5), 5);
}

#[test]
fn star_hub_holds_every_leaf_even_past_lavapipe_loop_limit() {
    let g = star(70_000).unwrap();
    assert_eq!(g.out_edges().degree(0), 70_000);
    assert_eq!(g.edge_count(), 140_000);
    assert_eq!(max_depth(&g, 0), 1);
    assert_eq!(max_depth(&g, 7), 2);
    assert!(matches!(star(u32::MAX), Err(GraphError::InvalidCsr { .. })));
}

#[test]
fn grid_depth_from_a_corner_is_width_plus_height_minus_two() {
    for (w, h) in [(1, 1), (1, 7), (7, 1), (3, 4), (16, 9), (40, 40)] {
        let g = grid_2d(w, h).unwrap();
        let undirected_edges = u64::from((w - 1) * h + w * (h - 1));
        assert_eq!(g.edge_count(), 2 * undirected_edges, "{w}x{h}");
        assert_eq!(max_depth(&g, 0), w + h - 2, "{w}x{h} from (0, 0)");
        assert_eq!(
            max_depth(&g, w * h - 1),
            w + h - 2,
            "{w}x{h} from the far corner"
        );
        let interior_degree = if w >= 3 && h >= 3 { 4 } else { 0 };
        if interior_degree > 0 {
            assert_eq!(g.out_edges().degree(w + 1), 4);
        }
    }
    assert!(grid_2d(1 << 16, 1 << 16).is_err());
}

#[test]
fn complete_graph_has_every_pair_once() {
    let g = complete(6).unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.edge_count(), 30);
    for v in 0..6 {
        let expect: Vec<u32> = (0..6).filter(|&u| u != v).collect();
        assert_eq!(g.out_edges().neighbors(v), expect.as_slice());
    }
    assert_eq!(max_depth(&g, 3), 1);
    assert_eq!(complete(1).unwrap().edge_count(), 0);
    assert!(matches!(
        complete(COMPLETE_MAX_VERTICES + 1),
        Err(GraphError::InvalidParameter { .. })
    ));
}

#[test]
fn disjoint_union_keeps_parts_apart() {
    let g = disjoint_union(&[chain(3).unwrap(), complete(4).unwrap(), chain(2).unwrap()]).unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.vertex_count(), 9);
    assert_eq!(g.edge_count(), 4 + 12 + 2);
    let tree = reference_bfs(&g, &[0]);
    let reached: Vec<u32> = (0..9)
        .filter(|&v| tree.depths[v as usize] != UNREACHED)
        .collect();
    assert_eq!(reached, vec![0, 1, 2]);
    assert_eq!(g.out_edges().neighbors(3), &[4, 5, 6]);
    assert_eq!(g.out_edges().neighbors(8), &[7]);
}

#[test]
fn disjoint_union_with_a_directed_part_is_directed() {
    let directed = uniform_random(UniformSpec {
        vertex_count: 50,
        edge_count: 200,
        seed: 3,
        directed: true,
    })
    .unwrap();
    let g = disjoint_union(&[chain(2).unwrap(), directed.clone()]).unwrap();
    assert!(!g.is_symmetric());
    assert_eq!(g.edge_count(), 2 + directed.edge_count());
    assert_eq!(g.in_edges().neighbors(0), &[1]);
    for v in 0..50 {
        let shifted: Vec<u32> = directed
            .in_edges()
            .neighbors(v)
            .iter()
            .map(|&u| u + 2)
            .collect();
        assert_eq!(g.in_edges().neighbors(v + 2), shifted.as_slice());
    }
}

fn degree_stats(g: &Graph) -> (f64, u64) {
    let n = g.vertex_count();
    let max = (0..n).map(|v| g.out_edges().degree(v)).max().unwrap();
    (g.edge_count() as f64 / f64::from(n), max)
}

#[test]
fn kronecker_has_graph500_shape() {
    let g = kronecker(KroneckerSpec {
        scale: 14,
        ..KroneckerSpec::default()
    })
    .unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.vertex_count(), 1 << 14);
    let generated = 16u64 << 14;
    // Duplicates and loops removed: fewer than twice the generated edges,
    // yet most survive.
    assert!(g.edge_count() < 2 * generated);
    assert!(g.edge_count() > generated, "{} stored", g.edge_count());
    assert!(!has_self_loop(&g));
    let (mean, max) = degree_stats(&g);
    assert!(max as f64 > 30.0 * mean, "max degree {max}, mean {mean}");
    let isolated = (0..g.vertex_count())
        .filter(|&v| g.out_edges().degree(v) == 0)
        .count();
    assert!(isolated > 1000, "{isolated} isolated vertices");
}

#[test]
fn uniform_random_has_no_hubs() {
    let g = uniform_random(UniformSpec::with_scale(14, 16, 5).unwrap()).unwrap();
    assert_eq!(g.vertex_count(), 1 << 14);
    let (mean, max) = degree_stats(&g);
    assert!((mean - 32.0).abs() < 1.0, "mean {mean}");
    assert!((max as f64) < 2.5 * mean, "max degree {max}, mean {mean}");
    assert!(!has_self_loop(&g));
}

#[test]
fn generators_are_deterministic_across_thread_counts() {
    let spec = KroneckerSpec {
        scale: 12,
        seed: 42,
        ..KroneckerSpec::default()
    };
    let many = kronecker(spec).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| kronecker(spec).unwrap());
    assert_eq!(many, one);
    let other_seed = kronecker(KroneckerSpec { seed: 43, ..spec }).unwrap();
    assert_ne!(many, other_seed);
}

#[test]
fn directed_generators_keep_direction() {
    let g = kronecker(KroneckerSpec {
        scale: 10,
        directed: true,
        ..KroneckerSpec::default()
    })
    .unwrap();
    assert!(!g.is_symmetric());
    assert!(g.edge_count() <= 16 << 10);
    let asymmetric = (0..g.vertex_count()).any(|u| {
        g.out_edges()
            .neighbors(u)
            .iter()
            .any(|&v| g.out_edges().neighbors(v).binary_search(&u).is_err())
    });
    assert!(asymmetric);
}

#[test]
fn bad_generator_parameters_are_typed_errors() {
    let too_big = kronecker(KroneckerSpec {
        scale: 32,
        ..KroneckerSpec::default()
    });
    let bad_probabilities = kronecker(KroneckerSpec {
        a: 0.9,
        b: 0.2,
        ..KroneckerSpec::default()
    });
    let no_vertices = uniform_random(UniformSpec {
        vertex_count: 0,
        edge_count: 3,
        seed: 0,
        directed: false,
    });
    for result in [too_big, bad_probabilities, no_vertices] {
        let err = result.unwrap_err();
        assert!(
            matches!(err, GraphError::InvalidParameter { .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("Fix:"));
    }
}
