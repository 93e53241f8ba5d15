//! Searches that change topology between waves, chain several per-wave
//! levels into one command, or leave and re-enter a fused launch through
//! its band; and the commands this backend refuses without losing the
//! search. Needs a CUDA device; skips visibly without one.

mod common;

use common::{
    Choice, HISTORY_LEVELS, check_outcome, corpus, has_barrier, open_gpu, search, upload,
};
use std::sync::Arc;
use vyre_driver::backend::{
    Backend, BackendErrorKind, DeviceLayout, SearchPosition, SearchSources, WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::generate::{KroneckerSpec, grid_2d, kronecker};

const PER_WAVE: [Topology; 5] = [
    Topology::WarpSparseFrontier,
    Topology::SparseFrontier,
    Topology::HybridFrontier,
    Topology::DenseFrontier,
    Topology::BlockDenseFrontier,
];

#[test]
fn switching_topology_every_wave_matches_the_reference() {
    let Some(mut gpu) = open_gpu("switching") else {
        return;
    };
    let mut order = PER_WAVE.to_vec();
    if has_barrier(&gpu) {
        order.push(Topology::FusedWave);
    }
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        for (k, sources) in case.sources.iter().enumerate() {
            // A different rotation per source set, so every ordered pair of
            // topologies meets somewhere.
            let outcome = search(&mut gpu.backend, &case.graph, sources, |step| {
                Choice::single(order[(step.wave * (k + 1) + k) % order.len()])
            });
            let what = format!("rotating topologies on {} from {sources:?}", case.name);
            check_outcome(&what, &case.graph, sources, &outcome);
        }
    }
}

#[test]
fn chains_of_per_wave_levels_match_the_reference() {
    let Some(mut gpu) = open_gpu("chains") else {
        return;
    };
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        let sources = &case.sources[0];
        for (i, &topology) in PER_WAVE.iter().enumerate() {
            for (max_levels, band) in [
                (2, u64::MAX),
                (7, u64::MAX),
                (64, 200),
                (common::size(1000, 24), u64::MAX),
            ] {
                // Alternate with the next topology between chains, so chains
                // also start from the other frontier form.
                let other = PER_WAVE[(i + 1) % PER_WAVE.len()];
                let outcome = search(&mut gpu.backend, &case.graph, sources, |step| Choice {
                    cluster: false,
                    topology: if step.wave % 2 == 0 { topology } else { other },
                    max_levels,
                    band,
                    blocks: None,
                });
                let what = format!(
                    "chains of {max_levels} {topology:?}/{other:?} levels (band {band}) on {}",
                    case.name
                );
                check_outcome(&what, &case.graph, sources, &outcome);
            }
        }
    }
}

#[test]
fn fused_waves_leave_through_the_band_and_resume() {
    let Some(mut gpu) = open_gpu("fused_band") else {
        return;
    };
    if !has_barrier(&gpu) {
        return;
    }
    let mut band_exits = 0;
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        for sources in &case.sources {
            let mut after_fused = false;
            let outcome = search(&mut gpu.backend, &case.graph, sources, |_| {
                // Fused with a small band; when it returns, one dense level,
                // then fused again.
                after_fused = !after_fused;
                if after_fused {
                    Choice {
                        max_levels: HISTORY_LEVELS,
                        band: 64,
                        ..Choice::single(Topology::FusedWave)
                    }
                } else {
                    Choice::single(Topology::DenseFrontier)
                }
            });
            band_exits += outcome
                .waves
                .iter()
                .filter(|(c, r)| {
                    c.topology == Topology::FusedWave
                        && r.levels
                            .last()
                            .is_some_and(|l| l.frontier_out > 0 && l.frontier_out_edges > 64)
                })
                .count();
            let what = format!("fused with band 64 on {} from {sources:?}", case.name);
            check_outcome(&what, &case.graph, sources, &outcome);
        }
    }
    assert!(
        band_exits > 10,
        "fused launches should have left through the band ({band_exits})"
    );
}

#[test]
fn fused_waves_run_at_full_residency_and_with_one_block() {
    let Some(mut gpu) = open_gpu("fused_grids") else {
        return;
    };
    if !has_barrier(&gpu) {
        return;
    }
    let resident = gpu.backend.capabilities().resident_workgroups;
    println!(
        "{}: {resident} fused workgroups resident",
        gpu.backend.capabilities().device_name
    );
    let graphs = [
        (
            "kronecker",
            kronecker(KroneckerSpec {
                scale: common::size(16, 9),
                seed: 2,
                ..KroneckerSpec::default()
            })
            .expect("kronecker"),
        ),
        (
            "grid",
            grid_2d(common::size(300, 24), common::size(300, 24)).expect("grid"),
        ),
    ];
    for (name, graph) in graphs {
        let graph = Arc::new(graph);
        upload(&mut gpu.backend, &graph);
        for blocks in [1, 2, resident / 2, resident] {
            for max_levels in [3, HISTORY_LEVELS] {
                let sources = [0, 7];
                let outcome = search(&mut gpu.backend, &graph, &sources, |_| Choice {
                    max_levels,
                    blocks: Some(blocks),
                    ..Choice::single(Topology::FusedWave)
                });
                let what = format!("fused on {name} with {blocks} workgroups, {max_levels} levels");
                check_outcome(&what, &graph, &sources, &outcome);
            }
        }
    }
}

/// Fused commands launched as the device's cluster, whole searches and
/// commands of a few levels between per-wave ones, on every light graph of
/// the corpus and a grid. Skips where the device has no cluster launch (the
/// emulated one offers it with `VYRE_FAKE_CUDA_CLUSTERS=1`).
#[test]
fn fused_waves_as_one_cluster_match_the_reference() {
    let Some(mut gpu) = open_gpu("fused_cluster") else {
        return;
    };
    let cluster = gpu.backend.capabilities().fused_cluster;
    if !has_barrier(&gpu) || cluster.lanes() == 0 {
        println!(
            "skipped: no cluster launch ({})",
            gpu.backend.capabilities().barrier_reason
        );
        return;
    }
    let grid = Arc::new(grid_2d(common::size(300, 24), common::size(300, 24)).expect("grid"));
    let mut cases: Vec<_> = corpus()
        .into_iter()
        .map(|c| (c.name, c.graph, c.sources))
        .collect();
    cases.push(("grid", grid, vec![vec![0], vec![7, 100]]));
    let mut ran = 0;
    for (name, graph, source_sets) in cases {
        let layout = upload(&mut gpu.backend, &graph);
        if !cluster.runs(layout.max_out_degree) {
            continue;
        }
        for sources in &source_sets {
            for (max_levels, every) in [(HISTORY_LEVELS, 1), (3, 2)] {
                let outcome = search(&mut gpu.backend, &graph, sources, |step| {
                    if step.wave % every == 0 {
                        Choice {
                            max_levels,
                            cluster: true,
                            ..Choice::single(Topology::FusedWave)
                        }
                    } else {
                        Choice::single(Topology::SparseFrontier)
                    }
                });
                let what =
                    format!("cluster launches of {max_levels} levels on {name} from {sources:?}");
                check_outcome(&what, &graph, sources, &outcome);
                ran += 1;
            }
        }
    }
    assert!(ran > 10, "too few light graphs ran as a cluster ({ran})");
}

#[test]
fn every_vertex_as_a_source_discovers_nothing() {
    let Some(mut gpu) = open_gpu("all_sources") else {
        return;
    };
    let graph = Arc::new(grid_2d(common::size(64, 16), common::size(64, 16)).expect("grid"));
    upload(&mut gpu.backend, &graph);
    let sources: Vec<u32> = (0..graph.vertex_count()).rev().collect();
    for topology in PER_WAVE {
        let outcome = search(&mut gpu.backend, &graph, &sources, |_| {
            Choice::single(topology)
        });
        assert_eq!(outcome.waves.len(), 1);
        check_outcome(
            &format!("{topology:?} from every vertex"),
            &graph,
            &sources,
            &outcome,
        );
    }
}

#[test]
fn commands_without_a_search_are_refused_and_the_search_goes_on() {
    let Some(mut gpu) = open_gpu("refusals") else {
        return;
    };
    let graph = Arc::new(grid_2d(common::size(64, 16), common::size(64, 16)).expect("grid"));
    // Command validity is the driver's (its tests); the backend refuses only
    // what its own buffers and kernels cannot do.
    let refused = |backend: &mut vyre_cuda::CudaBackend, command, needle: &str| {
        let err = backend.run_wave(command).expect_err(needle);
        assert_eq!(err.kind(), BackendErrorKind::InvalidRequest, "{err}");
        assert!(err.message().contains(needle), "{needle}: {err}");
        assert!(err.message().contains("Fix:"), "{err}");
    };
    let start = {
        let sources = SearchSources::new(&[0], &graph).expect("sources");
        SearchPosition::start(&sources)
    };
    let hybrid = Choice::single(Topology::HybridFrontier);
    let command = common::command_for(&gpu.backend, &graph, &hybrid, start);
    let mut fresh = vyre_cuda::CudaBackend::open(&common::open_request()).expect("open");
    refused(&mut fresh, &command, "no graph is uploaded");
    drop(fresh);
    upload(&mut gpu.backend, &graph);
    refused(&mut gpu.backend, &command, "no search is in progress");
    common::begin(&mut gpu.backend, &graph, &[0]);
    // A part warp never reaches the backend: the driver's one check
    // refuses it against the subgroup size the device reports.
    let mut half_warp = WaveCommand::clone(&command);
    half_warp.launch.workgroup_size_x = 16;
    half_warp.launch.slots_per_lane = 1;
    let caps = gpu.backend.capabilities().clone();
    let layout = DeviceLayout::for_graph(&graph, &caps, HISTORY_LEVELS).expect("layout");
    let err = half_warp
        .check(&caps, &layout)
        .expect_err("the driver refuses 16 lanes");
    assert!(err.message().contains("whole groups of 32 lanes"), "{err}");
    // Nothing above touched the device: the search goes on from level 0,
    // where the corner of the grid has two neighbours.
    let (report, _) = common::run(&mut gpu.backend, &command).expect("a valid wave");
    assert_eq!(report.levels.len(), 1);
    assert_eq!(
        (report.levels[0].level, report.levels[0].frontier_out),
        (0, 2)
    );
}
