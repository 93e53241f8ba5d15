use proptest::prelude::*;

use super::*;
use crate::Graph;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{KroneckerSpec, grid_2d, kronecker};
use crate::validate::validate_bfs;

fn all_directions() -> [ParallelBfsOptions; 4] {
    let d = ParallelBfsOptions::default();
    [
        d,
        ParallelBfsOptions {
            direction: Direction::TopDown,
            ..d
        },
        ParallelBfsOptions {
            direction: Direction::BottomUp,
            ..d
        },
        // Switch eagerly both ways, to exercise the transitions.
        ParallelBfsOptions {
            alpha: 1_000_000,
            beta: 1,
            ..d
        },
    ]
}

fn check_against_reference(g: &Graph, sources: &[u32]) -> Result<(), TestCaseError> {
    let expected = reference_bfs(g, sources);
    for options in all_directions() {
        let got = parallel_bfs(g, sources, options);
        prop_assert_eq!(&got.depths, &expected.depths, "{:?}", options);
        let in_range: Vec<u32> = sources
            .iter()
            .copied()
            .filter(|&s| s < g.vertex_count())
            .collect();
        if let Err(err) = validate_bfs(g, &in_range, &got.depths, &got.parents) {
            return Err(TestCaseError::fail(format!("{options:?}: {err}")));
        }
    }
    Ok(())
}

fn random_graph() -> impl Strategy<Value = (Graph, Vec<u32>)> {
    (1u32..300, 0usize..1500, any::<bool>(), 1usize..4).prop_flat_map(|(n, m, directed, k)| {
        (
            prop::collection::vec((0..n, 0..n), m),
            prop::collection::vec(0..n + 2, k),
        )
            .prop_map(move |(edges, sources)| {
                let options = if directed {
                    BuildOptions::DIRECTED
                } else {
                    BuildOptions::UNDIRECTED
                };
                (build_graph(n, &edges, options).unwrap(), sources)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn parallel_equals_reference_on_random_graphs((g, sources) in random_graph()) {
        check_against_reference(&g, &sources)?;
    }
}

#[test]
fn parallel_equals_reference_on_kronecker_both_ways() {
    for directed in [false, true] {
        let g = kronecker(KroneckerSpec {
            scale: 13,
            directed,
            seed: 9,
            ..KroneckerSpec::default()
        })
        .unwrap();
        let hub = (0..g.vertex_count())
            .max_by_key(|&v| g.out_edges().degree(v))
            .unwrap();
        check_against_reference(&g, &[hub]).unwrap();
        check_against_reference(&g, &[hub, 1, 2, 3]).unwrap();
    }
}

#[test]
fn parallel_handles_deep_grids_and_empty_searches() {
    let g = grid_2d(60, 50).unwrap();
    check_against_reference(&g, &[0]).unwrap();
    check_against_reference(&g, &[1234, 2999]).unwrap();
    check_against_reference(&g, &[]).unwrap();
    let empty = build_graph(0, &[], BuildOptions::UNDIRECTED).unwrap();
    assert!(
        parallel_bfs(&empty, &[0], ParallelBfsOptions::default())
            .depths
            .is_empty()
    );
}

#[test]
fn workspace_reuse_gives_fresh_results() {
    let g = grid_2d(10, 10).unwrap();
    let mut ws = BfsWorkspace::new(100);
    assert_eq!(
        parallel_bfs_in(&mut ws, &g, &[0], ParallelBfsOptions::default()),
        18
    );
    assert_eq!(
        parallel_bfs_in(&mut ws, &g, &[55], ParallelBfsOptions::default()),
        10
    );
    assert_eq!(ws.state.to_tree().depths, reference_bfs(&g, &[55]).depths);
}
