//! Every topology, forced for whole searches, on every graph shape.

use std::sync::Arc;
use vyre_driver::backend::Backend;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{TOPOLOGIES, check, corpus, search, upload};

/// Every topology matches the reference on every shape.
pub fn every_topology_matches_the_reference_on_every_shape<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    for (name, graph, sources) in corpus() {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 16);
        for topology in TOPOLOGIES {
            let result = search(backend, &layout, &graph, &sources, 1, &|_| topology);
            check(&graph, &sources, &result, &format!("{name} / {topology:?}"));
        }
    }
}
