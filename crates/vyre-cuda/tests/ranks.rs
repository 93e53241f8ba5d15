//! `CudaRanks`: one graph partitioned over 1, 2 and 3 ranks on one GPU
//! (exchanging by copies; NCCL refuses two ranks on one device), searched
//! with every per-wave topology forced, with lists and bitmap levels
//! alternating, in chains, and by a density rule, against the reference
//! BFS: depths, valid parents and every level's counts. Also the typed
//! refusals. Needs a CUDA device (or the emulator); skips visibly without.

mod common;

use std::sync::Arc;

use common::{
    Case, Choice, Gpu, Step, broom, check_outcome, corpus, open_gpu_with, open_request, search,
};
use vyre_cuda::{CudaRanks, CudaRanksOpenRequest};
use vyre_driver::backend::{
    Backend, BackendErrorKind, BatchLayout, BatchSources, DeviceLayout, SearchSources,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::build::{BuildOptions, build_graph};

/// Rank counts every search runs on.
const RANKS: [u32; 3] = [1, 2, 3];

fn one_device(ranks: u32) -> CudaRanksOpenRequest {
    CudaRanksOpenRequest {
        ranks,
        one_device: true,
        wait_limit: open_request().wait_limit,
        ..CudaRanksOpenRequest::default()
    }
}

fn open(test: &str, ranks: u32) -> Option<Gpu<CudaRanks>> {
    open_gpu_with(test, || CudaRanks::open(&one_device(ranks)))
}

/// Every case of the corpus from every source set, on every rank count,
/// with the waves `choose` picks.
fn every_case(test: &str, choose: impl Fn(&Step, &vyre_graph::Graph) -> Choice) {
    each_of(test, corpus, choose);
}

/// [`every_case`] over the cases `cases` makes.
fn each_of(
    test: &str,
    cases: impl Fn() -> Vec<Case>,
    choose: impl Fn(&Step, &vyre_graph::Graph) -> Choice,
) {
    for ranks in RANKS {
        let Some(mut gpu) = open(test, ranks) else {
            return;
        };
        assert_eq!(gpu.backend.ranks(), ranks);
        for case in cases() {
            let layout = DeviceLayout::for_graph(
                &case.graph,
                gpu.backend.capabilities(),
                common::HISTORY_LEVELS,
            )
            .expect("layout");
            gpu.backend.upload(&case.graph, &layout).expect("upload");
            assert!(gpu.backend.allocated_bytes() > 0);
            for sources in &case.sources {
                let outcome = search(&mut gpu.backend, &case.graph, sources, |step| {
                    choose(step, &case.graph)
                });
                let what = format!("{test}, {ranks} ranks, {} from {sources:?}", case.name);
                check_outcome(&what, &case.graph, sources, &outcome);
            }
            if common::small() {
                // The emulator takes minutes: show how far it got.
                common::visible(&format!("{test}: {ranks} ranks: {} passed", case.name));
            }
        }
    }
}

fn forced(test: &str, topology: Topology) {
    every_case(test, |_, _| Choice::single(topology));
}

#[test]
fn warp_sparse_frontier_on_ranks_matches_the_reference() {
    forced("ranks_warp_sparse", Topology::WarpSparseFrontier);
}

#[test]
fn sparse_frontier_on_ranks_matches_the_reference() {
    forced("ranks_sparse", Topology::SparseFrontier);
}

#[test]
fn hybrid_frontier_on_ranks_matches_the_reference() {
    forced("ranks_hybrid", Topology::HybridFrontier);
}

#[test]
fn dense_frontier_on_ranks_matches_the_reference() {
    forced("ranks_dense", Topology::DenseFrontier);
}

#[test]
fn block_dense_frontier_on_ranks_matches_the_reference() {
    forced("ranks_block_dense", Topology::BlockDenseFrontier);
}

#[test]
fn lists_and_bitmap_levels_alternating_in_chains_match_the_reference() {
    // Each wave switches exchange; chains of up to three levels stop at a
    // band of 40 frontier edges.
    const ROTATION: [Topology; 4] = [
        Topology::SparseFrontier,
        Topology::DenseFrontier,
        Topology::WarpSparseFrontier,
        Topology::BlockDenseFrontier,
    ];
    every_case("ranks_alternating", |step, _| Choice {
        cluster: false,
        topology: ROTATION[step.wave % ROTATION.len()],
        max_levels: 1 + (step.wave % 3) as u32,
        band: 40,
        blocks: None,
    });
}

#[test]
fn the_exchange_chosen_by_frontier_density_matches_the_reference() {
    // Beamer's switch: bottom-up (bitmap) once the frontier's edges pass a
    // fourteenth of the graph's, top-down (lists) otherwise.
    every_case("ranks_by_density", |step, graph| {
        let dense = step.position.frontier_edges.saturating_mul(14) > graph.edge_count();
        Choice::single(match dense {
            true => Topology::DenseFrontier,
            false => Topology::SparseFrontier,
        })
    });
}

#[test]
fn hubs_of_several_pieces_in_lists_levels_match_the_reference() {
    // Hubs of more than VYRE_PIECE_EDGES (1024) edges, even on the
    // emulator: their pieces spread over the grid, and in `shared` three
    // hubs reach the same leaves, so pieces race to claim and to queue one
    // target (once per sender) for its owner.
    let shared = || {
        let leaves = 4..4 + 2100;
        let mut edges: Vec<(u32, u32)> = (1..=3).map(|h| (0, h)).collect();
        for hub in 1..=3 {
            edges.extend(leaves.clone().map(|leaf| (hub, leaf)));
        }
        build_graph(4 + 2100, &edges, BuildOptions::UNDIRECTED).expect("shared leaves")
    };
    let cases = || {
        vec![
            Case {
                name: "broom of large hubs",
                graph: Arc::new(broom(3, 2500, 5)),
                sources: vec![vec![0], vec![2], vec![1, 2505]],
            },
            Case {
                name: "hubs sharing their leaves",
                graph: Arc::new(shared()),
                sources: vec![vec![0], vec![1], vec![4]],
            },
        ]
    };
    each_of("ranks_large_hubs", cases, |_, _| {
        Choice::single(Topology::SparseFrontier)
    });
}

#[test]
fn ranks_refuse_batches_and_fused_waves_with_a_fix() {
    let Some(mut gpu) = open("ranks_refusals", 2) else {
        return;
    };
    let caps = gpu.backend.capabilities().clone();
    assert!(!caps.megakernel.supports_device_wide_barrier);
    assert!(!caps.batch_fused_wave);
    assert!(caps.device_name.contains("2 ranks"), "{}", caps.device_name);
    let case = corpus().swap_remove(0);
    let layout = DeviceLayout::for_graph(&case.graph, &caps, common::HISTORY_LEVELS).unwrap();
    gpu.backend.upload(&case.graph, &layout).unwrap();
    let sources = BatchSources::new(&[0, 1], &case.graph).unwrap();
    let batch = BatchLayout {
        vertex_count: case.graph.vertex_count(),
        lanes: sources.lanes(),
        keep_depths: false,
        max_levels_per_command: common::HISTORY_LEVELS,
    };
    let error = gpu.backend.begin_batch(&sources, &batch).unwrap_err();
    assert!(error.message().contains("Fix: "), "{error}");
    assert!(error.message().contains("partitioned"), "{error}");
    // A fused wave across ranks does not pass the driver's check.
    let start = common::begin(
        &mut gpu.backend,
        &case.graph,
        SearchSources::new(&[0], &case.graph).unwrap().ids(),
    );
    let fused = vyre_driver::backend::WaveCommand {
        topology: Topology::FusedWave,
        position: start,
        max_levels: 4,
        launch: common::launch_for(
            &caps,
            &Choice::single(Topology::SparseFrontier),
            &start,
            &case.graph,
        ),
        band_max_frontier_edges: u64::MAX,
        band_max_frontier_vertices: u32::MAX,
    };
    assert!(fused.check(&caps, &layout).is_err());
    // A result slice of the wrong length is refused, not written past.
    let mut short = vec![0u32; 3];
    let error = gpu.backend.read_depths(&mut short).unwrap_err();
    assert!(error.message().contains("Fix: "), "{error}");
}

#[test]
fn no_ranks_or_more_gpus_than_the_machine_has_are_typed_errors() {
    let error = CudaRanks::open(&one_device(0)).err().expect("0 ranks");
    assert_eq!(error.kind(), BackendErrorKind::InvalidRequest);
    assert!(error.message().contains("Fix: "), "{error}");
    // Never the one-device copies in disguise: asking for more GPUs than
    // there are says how many the driver sees (or that there is no driver).
    let error = CudaRanks::open(&CudaRanksOpenRequest {
        ranks: 4096,
        ..CudaRanksOpenRequest::default()
    })
    .err()
    .expect("4096 GPUs");
    assert_eq!(error.kind(), BackendErrorKind::Unavailable, "{error}");
    assert!(
        error.message().contains("the driver sees") || error.message().contains("no CUDA driver"),
        "{error}"
    );
}
