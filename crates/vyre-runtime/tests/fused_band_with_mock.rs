//! A launch-bound device must not start a fused command on a frontier dense
//! enough for bottom-up levels: the fused kernels expand top-down, so such a
//! command would run its first level top-down over most of the graph's edges
//! before its band handed it back (878 µs for a level that a bottom-up
//! command ran in 24 µs on one launch-bound device: docs/BENCHMARKS.md).

mod mock;

use std::sync::Arc;

use mock::Mock;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_driver::megakernel_execution::thresholds::DENSE_DENSITY;
use vyre_graph::Graph;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::generate::{KroneckerSpec, kronecker};
use vyre_runtime::{Engine, SearchRequest};

/// The frontier density of `vyre_runtime`'s telemetry (its module docs
/// define it after Beamer's direction-optimizing rules): the frontier's
/// out-edges against the unexplored edges / 35 and the vertices / 42.
fn density(graph: &Graph, depths: &[u32], level: u32) -> f64 {
    let offsets = graph.out_edges().offsets();
    let degree = |v: usize| (offsets[v + 1] - offsets[v]) as f64;
    let (mut frontier, mut visited) = (0.0, 0.0);
    for (v, &d) in depths.iter().enumerate() {
        if d == level {
            frontier += degree(v);
        }
        if d <= level {
            visited += degree(v);
        }
    }
    let unexplored = graph.edge_count() as f64 - visited;
    frontier / (frontier + unexplored / 35.0 + f64::from(graph.vertex_count()) / 42.0)
}

#[test]
fn dense_frontiers_run_bottom_up_even_when_every_level_is_launch_bound() {
    let graph = Arc::new(
        kronecker(KroneckerSpec {
            scale: 12,
            ..KroneckerSpec::default()
        })
        .unwrap(),
    );
    let source = (0..graph.vertex_count())
        .max_by_key(|&v| graph.out_edges().degree(v))
        .unwrap();
    let reference = reference_bfs(&graph, &[source]).depths;
    // 40 µs of wall per level for 2 µs on the device: fusion pressure high.
    let (mock, commands) = Mock::new(true, (40_000, 2_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[source])).unwrap();
    assert_eq!(result.depths, reference);

    let commands = commands.lock().unwrap();
    let dense_starts: Vec<_> = commands
        .iter()
        .map(|c| (c.topology, density(&graph, &reference, c.position.level)))
        .filter(|&(_, d)| d >= DENSE_DENSITY)
        .collect();
    // The search has dense levels (else this test shows nothing) and none
    // of them starts a fused command.
    assert!(!dense_starts.is_empty(), "no dense frontier: {commands:?}");
    assert!(
        dense_starts
            .iter()
            .all(|&(t, _)| t != MegakernelExecutionTopology::FusedWave),
        "{dense_starts:?}"
    );
    // The device is launch-bound, so the sparse levels still fuse.
    assert!(
        commands
            .iter()
            .any(|c| c.topology == MegakernelExecutionTopology::FusedWave),
        "{commands:?}"
    );
}
