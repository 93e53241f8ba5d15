//! Batch passes have no `FusedWave` on Vulkan: the capabilities say so, the
//! driver's batch check refuses one, and a command that skipped that check
//! is refused by the backend with a typed error before anything is
//! recorded; the pass goes on with per-wave commands, every lane checked
//! against the reference BFS.

mod common;

use std::sync::Arc;

use common::batch::{BatchReference, batch_search, begin_batch, check_batch, lane_sets};
use common::{Waves, fused_device, fused_launch, launch, upload};
use vyre_driver::backend::{Backend, BackendErrorKind, WaveCommand};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::generate::grid_2d;

#[test]
fn a_batch_fused_wave_is_refused_and_the_pass_goes_on_per_wave() {
    // A device that runs the single-search fused kernel (lavapipe: forced
    // to one resident workgroup), so only the batch is missing.
    let Some(mut gpu) = fused_device("a_batch_fused_wave_is_refused_and_the_pass_goes_on_per_wave")
    else {
        return;
    };
    let caps = gpu.capabilities().clone();
    assert!(caps.can_fuse(), "{}", caps.barrier_reason);
    assert!(!caps.batch_fused_wave && !caps.can_fuse_batch());
    assert!(!caps.for_batch().can_fuse());

    let graph = Arc::new(grid_2d(20, 15).expect("grid"));
    let n = graph.vertex_count();
    let layout = upload(&mut *gpu, &graph, 64);
    let sources = lane_sets(n)[0].clone();
    let start = begin_batch(&mut *gpu, &layout, &graph, &sources, true);
    let fused = WaveCommand {
        topology: T::FusedWave,
        position: start,
        max_levels: 64,
        launch: fused_launch(&caps, T::FusedWave, &start, n),
        band_max_frontier_edges: u64::MAX,
    };
    let err = fused.check_batch(&caps, &layout).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
    assert!(
        err.message().contains("no FusedWave in batch passes"),
        "{err}"
    );
    assert!(err.message().contains("Fix:"), "{err}");

    // Checked as a single search's command, it reaches the backend, which
    // refuses it rather than running something else.
    let single = fused.check(&caps, &layout).expect("a valid single command");
    let err = gpu.run_batch_wave(&single).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest, "{err}");
    assert!(err.message().contains("Fix:"), "{err}");

    // Per-wave batch passes still match the reference on the same device.
    let shape = |caps: &_, topology, at: &_| launch(caps, topology, at, n);
    let waves = Waves {
        layout: &layout,
        chain: 4,
        schedule: &|_| T::HybridFrontier,
        shape: &shape,
    };
    let reference = BatchReference::new(&graph, &sources);
    let run = batch_search(&mut *gpu, &graph, &sources, true, &waves);
    check_batch(
        &reference,
        &run,
        "grid 20x15 / hybrid after a refused fused command",
    );
    gpu.assert_valid();
}
