//! Batch passes (up to 64 searches at once): every lane against the
//! reference BFS on every shape, every topology forced and switching
//! mid-pass (the frontier's words change form, and bottom-up levels leave
//! a word array for the next top-down level to clear), chains, kept depths
//! or counts only, 1, 33 and 64 lanes with repeated sources; the batch
//! state held exactly as its layout lists it and reused; typed errors.

use std::sync::Arc;

use vyre_driver::backend::{Backend, BackendErrorKind, BatchSources};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_graph::generate::{KroneckerSpec, chain, grid_2d, kronecker};
use vyre_wgsl_abi::records::LevelGrids;

use crate::batch::{BatchReference, batch_layout, batch_search, check_batch, lane_sets};
use crate::{TOPOLOGIES, Waves, command, corpus, launch, repeats, upload};

/// A small power-law graph: Graph500's Kronecker at scale 9.
fn power_law() -> Graph {
    kronecker(KroneckerSpec {
        scale: 9,
        edge_factor: 8,
        seed: 3,
        ..KroneckerSpec::default()
    })
    .expect("kronecker")
}

/// Every ordered pair of topologies as consecutive levels, from `offset`.
fn switching(offset: usize) -> impl Fn(u32) -> T {
    let cycle: Vec<T> = TOPOLOGIES
        .iter()
        .flat_map(|&a| TOPOLOGIES.iter().map(move |&b| [a, b]))
        .flatten()
        .collect();
    move |level| cycle[(level as usize + offset) % cycle.len()]
}

/// Run a pass of each lane set with `schedule`, chains of `chain`, and
/// check every lane.
fn passes<B: Backend + LevelGrids>(
    backend: &mut B,
    graph: &Graph,
    layout: &vyre_driver::backend::DeviceLayout,
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
    what: &str,
) {
    let n = graph.vertex_count();
    let shape = |caps: &_, topology, at: &_| launch(caps, topology, at, n);
    let waves = Waves {
        layout,
        chain,
        schedule,
        shape: &shape,
    };
    // Depths kept for 64 and 1 lanes; counts only for 33.
    for (sources, keep) in lane_sets(n).into_iter().zip([true, false, true]) {
        let reference = BatchReference::new(graph, &sources);
        let run = batch_search(backend, graph, &sources, keep, &waves);
        let lanes = sources.len();
        check_batch(&reference, &run, &format!("{what} / {lanes} lanes"));
    }
}

/// Every topology, forced for whole passes, and a pass switching between
/// every pair of them, match the reference lane by lane on every shape.
pub fn every_topology_matches_the_reference_lane_by_lane<B: Backend + LevelGrids>(backend: &mut B) {
    let mut shapes: Vec<(&str, Graph)> = corpus().into_iter().map(|(n, g, _)| (n, g)).collect();
    shapes.push(("power law", power_law()));
    for (name, graph) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 16);
        for topology in TOPOLOGIES {
            passes(
                backend,
                &graph,
                &layout,
                1,
                &|_| topology,
                &format!("{name} / {topology:?}"),
            );
        }
        passes(
            backend,
            &graph,
            &layout,
            1,
            &switching(3),
            &format!("{name} / switching"),
        );
    }
}

/// Chains of several levels, long enough that the lane counts of a command
/// do not all fit the staging buffer after the level records, and chains
/// that switch topology between commands.
pub fn chained_passes_match_the_reference<B: Backend + LevelGrids>(backend: &mut B) {
    let shapes = [
        ("grid 30x20", grid_2d(30, 20).expect("grid")),
        ("chain 300", chain(300).expect("chain")),
        ("random directed", crate::random_directed(1500, 5000, 9)),
        ("power law", power_law()),
    ];
    for (name, graph) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 256);
        for _ in 0..repeats() {
            for topology in TOPOLOGIES {
                for chain in [4, 256] {
                    let what = format!("{name} / {topology:?} / chain {chain}");
                    passes(backend, &graph, &layout, chain, &|_| topology, &what);
                }
            }
            for offset in [0, 1, 7] {
                let what = format!("{name} / switching from {offset} / chain 2");
                passes(backend, &graph, &layout, 2, &switching(offset), &what);
            }
        }
    }
}

/// The batch state is exactly its layout's, kept while passes repeat the
/// layout, replaced when not, and freed by the next upload.
pub fn batch_state_is_held_as_its_layout_lists_and_reused<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    let graph = Arc::new(grid_2d(12, 10).expect("grid"));
    let layout = upload(backend, &graph, 8);
    let n = graph.vertex_count();
    let schedule = |_| T::SparseFrontier;
    let shape = |caps: &_, topology, at: &_| launch(caps, topology, at, n);
    let waves = Waves {
        layout: &layout,
        chain: 1,
        schedule: &schedule,
        shape: &shape,
    };
    for (sources, keep) in [
        (vec![0u32, 5, 7], true),
        (vec![9, 1, 2], true),
        (vec![3, 4], false),
        (vec![3, 4, 5, 6], false),
    ] {
        let reference = BatchReference::new(&graph, &sources);
        let run = batch_search(backend, &graph, &sources, keep, &waves);
        check_batch(&reference, &run, &format!("{sources:?}"));
        let batch = batch_layout(&layout, sources.len() as u32, keep);
        assert_eq!(
            backend.allocated_bytes(),
            layout.total_bytes() + batch.total_bytes()
        );
    }
    // A search after a batch pass starts from a clean state.
    let result = crate::search(backend, &layout, &graph, &[0], 1, &|_| T::DenseFrontier);
    crate::check(&graph, &[0], &result, "a search after a batch pass");
    upload(backend, &graph, 8);
    assert_eq!(backend.allocated_bytes(), layout.total_bytes());
}

/// Batch calls out of order or with the wrong sizes get typed errors.
pub fn batch_misuse_is_a_typed_error<B: Backend + LevelGrids>(backend: &mut B) {
    let graph = Arc::new(grid_2d(6, 6).expect("grid"));
    let layout = upload(backend, &graph, 16);
    let sources = BatchSources::new(&[0, 35], &graph).expect("sources");
    let at = vyre_driver::backend::SearchPosition::start_batch(&sources);
    let wave = command(&*backend, &layout, T::SparseFrontier, at, 1, u64::MAX);
    let err = backend.run_batch_wave(&wave).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest, "{err}");
    assert!(
        err.message().contains("begin_batch") && err.message().contains("Fix:"),
        "{err}"
    );
    let wrong_lanes = batch_layout(&layout, 3, false);
    let err = backend.begin_batch(&sources, &wrong_lanes).unwrap_err();
    assert_eq!(err.kind(), BackendErrorKind::InvalidRequest, "{err}");
    assert!(err.message().contains("Fix:"), "{err}");
    backend
        .begin_batch(&sources, &batch_layout(&layout, 2, false))
        .expect("batch starts");
    let mut depths = vec![0; 72];
    let err = backend.read_batch_depths(&mut depths).unwrap_err();
    assert!(
        err.message().contains("keep") && err.message().contains("Fix:"),
        "{err}"
    );
    backend
        .begin_batch(&sources, &batch_layout(&layout, 2, true))
        .expect("batch starts");
    let err = backend.read_batch_depths(&mut depths[1..]).unwrap_err();
    assert!(err.message().contains("Fix:"), "{err}");
    // Before any wave, each lane has reached its source alone.
    backend.read_batch_depths(&mut depths).expect("depths read");
    let reached: Vec<(usize, u32)> = depths
        .iter()
        .enumerate()
        .filter(|(_, d)| **d != u32::MAX)
        .map(|(i, d)| (i, *d))
        .collect();
    assert_eq!(reached, [(0, 0), (71, 0)]);
}
