//! A star whose hub has 100,000 leaves: more edges than lavapipe lets one
//! invocation loop over (65,535), so every topology must share the hub's
//! adjacency list among many invocations.

mod common;

use std::sync::Arc;

use common::{Reference, TOPOLOGIES, check_against, open, search, upload};
use vyre_graph::generate::star;

#[test]
fn star_with_a_100k_leaf_hub_from_hub_and_from_leaf() {
    let Some(mut backend) = open() else { return };
    let graph = Arc::new(star(100_000).expect("star"));
    let layout = upload(&mut backend, &graph, 4);
    for sources in [vec![0], vec![100_000], vec![31_337]] {
        let reference = Reference::new(&graph, &sources);
        for topology in TOPOLOGIES {
            let result = search(&mut backend, &layout, &graph, &sources, 1, &|_| topology);
            let what = format!("star from {sources:?} / {topology:?}");
            check_against(&reference, &result, &what);
        }
        // The same searches as chains (the leaf levels sized on the device).
        for topology in TOPOLOGIES {
            let result = search(&mut backend, &layout, &graph, &sources, 4, &|_| topology);
            let what = format!("chained star from {sources:?} / {topology:?}");
            check_against(&reference, &result, &what);
            assert_eq!(
                result.commands, 1,
                "a 3-level search fits one 4-level chain"
            );
        }
    }
}
