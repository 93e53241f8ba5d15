//! Every per-wave topology, forced for whole searches, on every graph shape,
//! one level per command and chained, against the reference BFS (depths,
//! parents, every level's counts and grid).

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, check, corpus, open, search, upload};

#[test]
fn every_topology_matches_the_reference_on_every_shape() {
    let Some(mut gpu) = open("every_topology_matches_the_reference_on_every_shape") else {
        return;
    };
    for (name, graph, sources) in corpus() {
        let graph = Arc::new(graph);
        let layout = upload(&mut *gpu, &graph, 16);
        for topology in TOPOLOGIES {
            for chain in [1, 8] {
                let result = search(&mut *gpu, &layout, &graph, &sources, chain, &|_| topology);
                check(
                    &graph,
                    &sources,
                    &result,
                    &format!("{name} / {topology:?} / chain {chain}"),
                );
            }
        }
    }
    gpu.assert_valid();
}
