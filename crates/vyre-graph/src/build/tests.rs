use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;

/// The adjacency a build must produce, computed the slow, obvious way.
fn naive_rows(n: u32, edges: &[(u32, u32)], options: BuildOptions) -> Vec<Vec<u32>> {
    let mut rows: BTreeMap<u32, Vec<u32>> = (0..n).map(|v| (v, Vec::new())).collect();
    for &(u, v) in edges {
        if u == v && options.remove_self_loops {
            continue;
        }
        rows.get_mut(&u).unwrap().push(v);
        if options.symmetrize && u != v {
            rows.get_mut(&v).unwrap().push(u);
        }
    }
    rows.into_values()
        .map(|mut row| {
            row.sort_unstable();
            if options.remove_duplicates {
                row.dedup();
            }
            row
        })
        .collect()
}

fn rows_of(csr: &Csr) -> Vec<Vec<u32>> {
    (0..csr.vertex_count())
        .map(|v| csr.neighbors(v).to_vec())
        .collect()
}

#[test]
fn symmetric_self_loop_is_stored_once_when_kept() {
    let options = BuildOptions {
        remove_self_loops: false,
        ..BuildOptions::UNDIRECTED
    };
    let g = build_graph(2, &[(0, 0), (0, 1)], options).unwrap();
    assert_eq!(rows_of(g.out_edges()), vec![vec![0, 1], vec![0]]);
}

#[test]
fn duplicates_kept_when_asked() {
    let options = BuildOptions {
        remove_duplicates: false,
        ..BuildOptions::DIRECTED
    };
    let g = build_graph(3, &[(0, 2), (0, 1), (0, 2)], options).unwrap();
    assert_eq!(g.out_edges().neighbors(0), &[1, 2, 2]);
    assert_eq!(g.in_edges().neighbors(2), &[0, 0]);
}

#[test]
fn out_of_range_endpoint_is_an_error_naming_the_edge() {
    let err = build_graph(3, &[(0, 1), (1, 3)], BuildOptions::UNDIRECTED).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("edge 1 (1, 3)"), "{text}");
    assert!(text.contains("Fix:"), "{text}");
}

#[test]
fn empty_graphs_build() {
    let g = build_graph(0, &[], BuildOptions::UNDIRECTED).unwrap();
    assert_eq!((g.vertex_count(), g.edge_count()), (0, 0));
    let g = build_graph(5, &[], BuildOptions::DIRECTED).unwrap();
    assert_eq!((g.vertex_count(), g.edge_count()), (5, 0));
}

#[test]
fn rows_spanning_many_chunks_are_finished() {
    // Enough edges for many parallel chunks, with one heavy row.
    let n = 5000u32;
    let mut edges: Vec<(u32, u32)> = (0..200_000u32).map(|i| (i % n, (i * 7919) % n)).collect();
    edges.extend((0..50_000u32).map(|i| (17, i % n)));
    for options in [BuildOptions::UNDIRECTED, BuildOptions::DIRECTED] {
        let g = build_graph(n, &edges, options).unwrap();
        assert_eq!(rows_of(g.out_edges()), naive_rows(n, &edges, options));
    }
}

fn options_strategy() -> impl Strategy<Value = BuildOptions> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(s, l, d)| BuildOptions {
        symmetrize: s,
        remove_self_loops: l,
        remove_duplicates: d,
    })
}

proptest! {
    #[test]
    fn build_matches_naive(
        n in 1u32..40,
        raw in prop::collection::vec((0u32..40, 0u32..40), 0..200),
        options in options_strategy(),
    ) {
        let edges: Vec<_> = raw.into_iter().map(|(u, v)| (u % n, v % n)).collect();
        let g = build_graph(n, &edges, options).unwrap();
        prop_assert_eq!(rows_of(g.out_edges()), naive_rows(n, &edges, options));
        prop_assert_eq!(g.is_symmetric(), options.symmetrize);
        // The reverse CSR holds exactly the reversed edges.
        let mut reversed: Vec<(u32, u32)> = (0..n)
            .flat_map(|u| g.out_edges().neighbors(u).iter().map(move |&v| (v, u)))
            .collect();
        reversed.sort_unstable();
        let mut from_in: Vec<(u32, u32)> = (0..n)
            .flat_map(|v| g.in_edges().neighbors(v).iter().map(move |&u| (v, u)))
            .collect();
        from_in.sort_unstable();
        prop_assert_eq!(reversed, from_in);
        prop_assert!(Csr::from_parts(g.in_edges().offsets().to_vec(), g.in_edges().targets().to_vec()).is_ok());
    }
}
