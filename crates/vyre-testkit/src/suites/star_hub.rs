//! A star whose hub has 100,000 leaves: more edges than lavapipe lets one
//! invocation loop over (65,535), so every topology must share the hub's
//! adjacency list among many invocations.

use std::sync::Arc;
use vyre_driver::backend::Backend;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{Reference, TOPOLOGIES, check_against, search, upload};
use vyre_graph::generate::star;

/// Star with a 100k leaf hub from hub and from leaf.
pub fn star_with_a_100k_leaf_hub_from_hub_and_from_leaf<B: Backend + LevelGrids>(backend: &mut B) {
    let graph = Arc::new(star(100_000).expect("star"));
    let layout = upload(backend, &graph, 4);
    for sources in [vec![0], vec![100_000], vec![31_337]] {
        let reference = Reference::new(&graph, &sources);
        for topology in TOPOLOGIES {
            let result = search(backend, &layout, &graph, &sources, 1, &|_| topology);
            let what = format!("star from {sources:?} / {topology:?}");
            check_against(&reference, &result, &what);
        }
        // The same searches as chains (the leaf levels sized on the device).
        for topology in TOPOLOGIES {
            let result = search(backend, &layout, &graph, &sources, 4, &|_| topology);
            let what = format!("chained star from {sources:?} / {topology:?}");
            check_against(&reference, &result, &what);
            assert_eq!(
                result.commands, 1,
                "a 3-level search fits one 4-level chain"
            );
        }
    }
}
