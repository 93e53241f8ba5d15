//! The engine's batch passes against the scripted backend (`mock/`): every
//! lane against the reference, the memory plan, and where a pass may fuse.

mod mock;

use std::sync::Arc;

use mock::{Mock, grid};
use vyre_driver::backend::WaveCommand;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_graph::UNREACHED;
use vyre_graph::bfs::reference_bfs;
use vyre_runtime::{BatchRequest, ChainMode, Engine, EngineError, TopologyChoice};

/// Every lane of a batch (more than 64 sources: two passes) equals a
/// reference BFS from its source, in depths and in totals, under the policy
/// and with every per-wave topology forced.
#[test]
fn batches_match_the_reference_lane_by_lane_in_passes_of_64() {
    let graph = grid();
    let n = graph.vertex_count();
    let sources: Vec<u32> = (0..70u32).map(|i| (i * 97) % n).collect();
    let mut choices = vec![TopologyChoice::Auto];
    choices.extend(
        MegakernelExecutionTopology::ALL
            .into_iter()
            .filter(|t| *t != MegakernelExecutionTopology::FusedWave)
            .map(TopologyChoice::Forced),
    );
    for topology in choices {
        let (mock, commands) = Mock::new(false, (12_000, 1_000));
        let mut engine = Engine::new(Box::new(mock));
        engine.load(Arc::clone(&graph)).unwrap();
        let request = BatchRequest {
            sources: &sources,
            keep_depths: true,
            topology,
            chaining: ChainMode::Auto,
        };
        let result = engine.bfs_batch(&request).unwrap();
        assert_eq!(result.passes.len(), 2);
        assert_eq!((result.passes[1].first, result.passes[1].lanes), (64, 6));
        assert!(!commands.lock().unwrap().is_empty());
        let depths = result.depths.as_ref().unwrap();
        for (i, &s) in sources.iter().enumerate() {
            let reference = reference_bfs(&graph, &[s]).depths;
            let lane: Vec<u32> = (0..n as usize)
                .map(|v| depths[v * sources.len() + i])
                .collect();
            assert_eq!(lane, reference, "{topology:?} search {i}");
            let reached: Vec<u32> = reference.into_iter().filter(|&d| d != UNREACHED).collect();
            let r = result.lanes[i];
            assert_eq!(r.source, s);
            assert_eq!(r.reached, reached.len() as u64);
            assert_eq!(
                r.depth_sum,
                reached.iter().map(|&d| u64::from(d)).sum::<u64>()
            );
            assert_eq!(r.eccentricity, *reached.iter().max().unwrap());
        }
    }
}

#[test]
fn batch_state_over_the_budget_is_refused_before_anything_is_allocated() {
    let graph = grid();
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(Arc::clone(&graph)).unwrap();
    let layout_bytes = engine.layout().unwrap().total_bytes();
    engine.set_memory_budget(Some(layout_bytes + 100));
    engine.load(Arc::clone(&graph)).unwrap();
    let sources = [0u32, 5];
    let err = engine.bfs_batch(&BatchRequest::new(&sources)).unwrap_err();
    assert!(
        matches!(err, EngineError::BatchMemory { lanes: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Fix:"), "{err}");
    assert!(commands.lock().unwrap().is_empty());
}

/// A launch-bound batch pass on a device with a barrier, its backend
/// running batch `FusedWave` commands or not: the topologies of its levels
/// and the commands the backend received.
fn launch_bound_batch(
    batch_fused_wave: bool,
    topology: TopologyChoice,
) -> (
    Result<vyre_runtime::BatchResult, EngineError>,
    Vec<WaveCommand>,
) {
    let (mut mock, commands) = Mock::new(true, (12_000, 1_000));
    mock.caps.batch_fused_wave = batch_fused_wave;
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let sources = [0u32, 2399];
    let request = BatchRequest {
        sources: &sources,
        keep_depths: true,
        topology,
        chaining: ChainMode::Auto,
    };
    let result = engine.bfs_batch(&request);
    if let Ok(result) = &result {
        let depths = result.depths.as_ref().unwrap();
        for (i, &s) in sources.iter().enumerate() {
            let lane: Vec<u32> = (0..graph.vertex_count() as usize)
                .map(|v| depths[v * sources.len() + i])
                .collect();
            assert_eq!(lane, reference_bfs(&graph, &[s]).depths, "search {i}");
        }
    }
    let sent = commands.lock().unwrap().clone();
    (result, sent)
}

#[test]
fn batch_passes_fuse_only_where_the_backend_runs_batch_fused_waves() {
    let fused = |commands: &[WaveCommand]| {
        commands
            .iter()
            .filter(|c| c.topology == MegakernelExecutionTopology::FusedWave)
            .count()
    };
    let (result, commands) = launch_bound_batch(true, TopologyChoice::Auto);
    let levels = &result.unwrap().passes[0].levels;
    assert!(fused(&commands) > 0, "the policy never fused the batch");
    assert!(
        levels
            .iter()
            .filter(|l| l.topology == MegakernelExecutionTopology::FusedWave)
            .count()
            > levels.len() / 2
    );
    // The same device, its backend without a batch FusedWave: the policy
    // plans as if there were no barrier, and chains instead.
    let (result, commands) = launch_bound_batch(false, TopologyChoice::Auto);
    let levels = &result.unwrap().passes[0].levels;
    assert_eq!(fused(&commands), 0);
    assert!(
        levels
            .iter()
            .all(|l| l.topology != MegakernelExecutionTopology::FusedWave)
    );
    assert!(
        commands.iter().any(|c| c.max_levels > 1),
        "launch-bound levels chain"
    );
}

#[test]
fn a_forced_batch_fused_wave_is_refused_where_the_backend_runs_none() {
    let forced = TopologyChoice::Forced(MegakernelExecutionTopology::FusedWave);
    let (result, commands) = launch_bound_batch(false, forced);
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::TopologyUnavailable { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("no FusedWave in batch passes"),
        "{message}"
    );
    assert!(message.contains("Fix:"), "{message}");
    assert!(commands.is_empty(), "nothing ran");
    // Where the backend runs them, the forced batch fuses.
    let (result, commands) = launch_bound_batch(true, forced);
    assert!(result.is_ok());
    assert!(
        commands
            .iter()
            .all(|c| c.topology == MegakernelExecutionTopology::FusedWave)
    );
}
