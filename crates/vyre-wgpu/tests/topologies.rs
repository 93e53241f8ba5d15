//! Every topology, forced for whole searches, on every graph shape.

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, check, corpus, open, search, upload};

#[test]
fn every_topology_matches_the_reference_on_every_shape() {
    let Some(mut backend) = open() else { return };
    for (name, graph, sources) in corpus() {
        let graph = Arc::new(graph);
        let layout = upload(&mut backend, &graph, 1);
        for topology in TOPOLOGIES {
            let result = search(&mut backend, &layout, &graph, &sources, 1, &|_| topology);
            check(&graph, &sources, &result, &format!("{name} / {topology:?}"));
        }
    }
}
