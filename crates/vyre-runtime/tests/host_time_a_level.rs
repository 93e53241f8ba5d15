//! The engine's host time a level on a long fused search, against the
//! scripted backend (`mock/`, which answers each command at once), so that
//! what the engine does per level of a report shows. A measurement, not a
//! check of speed: ignored by default; run it with
//! `cargo test --release -p vyre-runtime --test host_time_a_level -- --ignored --nocapture`.

mod mock;

use std::sync::Arc;
use std::time::Instant;

use mock::Mock;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::generate::chain;
use vyre_runtime::{Engine, SearchRequest};

#[test]
#[ignore = "a measurement; prints the host time a level"]
fn host_time_a_level_of_a_fused_chain() {
    let graph = Arc::new(chain(200_000).unwrap());
    let reference = reference_bfs(&graph, &[0]);
    for run in 0..5 {
        // Launch-bound timings, so that the policy fuses.
        let (mock, _) = Mock::new(true, (12_000, 1_000));
        let mut engine = Engine::new(Box::new(mock));
        engine.load(Arc::clone(&graph)).unwrap();
        let started = Instant::now();
        let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
        let elapsed = started.elapsed();
        assert_eq!(result.depths, reference.depths);
        let fused = result
            .levels
            .iter()
            .filter(|l| l.topology == MegakernelExecutionTopology::FusedWave)
            .count();
        assert!(
            fused + 2 >= result.levels.len(),
            "only {fused} levels fused"
        );
        eprintln!(
            "run {run}: {} levels in {} commands, {:.1} ns a level",
            result.levels.len(),
            result.levels.last().map_or(0, |l| l.command + 1),
            elapsed.as_nanos() as f64 / result.levels.len() as f64
        );
    }
}
