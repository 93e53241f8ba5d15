//! Every topology, forced for whole searches, on every graph shape.

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, check, corpus, frontier_degrees, open, search, upload};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

#[test]
fn every_topology_matches_the_reference_on_every_shape() {
    let Some(mut backend) = open() else { return };
    for (name, graph, sources) in corpus() {
        let graph = Arc::new(graph);
        upload(&mut backend, &graph, 1);
        for topology in TOPOLOGIES {
            let result = search(&mut backend, &graph, &sources, 1, &|_| topology);
            check(&graph, &sources, &result, &format!("{name} / {topology:?}"));
            // Top-down kernels examine exactly the frontier's out-edges.
            if matches!(
                topology,
                T::WarpSparseFrontier | T::SparseFrontier | T::HybridFrontier
            ) {
                for &(level, _, _, _, examined) in &result.levels {
                    assert_eq!(
                        examined,
                        frontier_degrees(&graph, &sources, level),
                        "{name} / {topology:?}: level {level} edges examined"
                    );
                }
            }
        }
    }
}
