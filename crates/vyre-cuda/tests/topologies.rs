//! Every topology forced for a whole search, on every graph shape of the
//! corpus, against the reference BFS. Needs a CUDA device; skips visibly
//! without one.

mod common;

use common::{Choice, check_outcome, corpus, open_gpu, search, upload};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;

fn forced(test: &str, topology: Topology) {
    let Some(mut gpu) = open_gpu(test) else {
        return;
    };
    if topology == Topology::FusedWave && !common::has_barrier(&gpu) {
        return;
    }
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        for sources in &case.sources {
            let outcome = search(&mut gpu.backend, &case.graph, sources, |_| {
                Choice::single(topology)
            });
            let what = format!("{topology:?} on {} from {sources:?}", case.name);
            check_outcome(&what, &case.graph, sources, &outcome);
        }
    }
}

#[test]
fn warp_sparse_frontier_matches_the_reference() {
    forced("warp_sparse", Topology::WarpSparseFrontier);
}

#[test]
fn sparse_frontier_matches_the_reference() {
    forced("sparse", Topology::SparseFrontier);
}

#[test]
fn hybrid_frontier_matches_the_reference() {
    forced("hybrid", Topology::HybridFrontier);
}

#[test]
fn dense_frontier_matches_the_reference() {
    forced("dense", Topology::DenseFrontier);
}

#[test]
fn block_dense_frontier_matches_the_reference() {
    forced("block_dense", Topology::BlockDenseFrontier);
}

#[test]
fn fused_wave_one_level_per_launch_matches_the_reference() {
    forced("fused_single", Topology::FusedWave);
}

#[test]
fn fused_wave_whole_searches_match_the_reference() {
    let Some(mut gpu) = open_gpu("fused_whole") else {
        return;
    };
    if !common::has_barrier(&gpu) {
        return;
    }
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        for sources in &case.sources {
            let outcome = search(&mut gpu.backend, &case.graph, sources, |_| Choice {
                max_levels: common::HISTORY_LEVELS,
                ..Choice::single(Topology::FusedWave)
            });
            let what = format!("whole fused search on {} from {sources:?}", case.name);
            check_outcome(&what, &case.graph, sources, &outcome);
        }
    }
}
