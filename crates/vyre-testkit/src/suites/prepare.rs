//! `Backend::prepare`: what it builds ahead, a search does not build again.

use std::sync::Arc;

use vyre_driver::backend::{Backend, PrepareRequest};
use vyre_graph::generate::grid_2d;
use vyre_wgsl_abi::Kernel;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{Reference, TOPOLOGIES, begin, check_against, search, upload};

/// Preparing builds one pipeline per per-wave kernel at the width asked
/// for; searches of every topology at that width, chained or not, then
/// build nothing more (the search start's kernels are built before, by a
/// first start). `pipelines` counts what the backend has built.
pub fn preparing_builds_every_pipeline_a_search_dispatches<B: Backend + LevelGrids>(
    backend: &mut B,
    pipelines: fn(&B) -> usize,
) {
    let graph = Arc::new(grid_2d(25, 25).expect("grid"));
    let reference = Reference::new(&graph, &[0]);
    let layout = upload(backend, &graph, 16);
    // The width the test-side launches use (`crate::launch`).
    let width = 256.min(backend.capabilities().max_workgroup_size_x);
    let request = PrepareRequest {
        per_wave_widths: vec![width],
    };
    begin(backend, &graph, &[0]);
    let before = pipelines(backend);
    backend.prepare(&request).expect("prepared");
    let prepared = pipelines(backend);
    assert_eq!(prepared - before, Kernel::PER_WAVE.len());
    backend.prepare(&request).expect("prepared again");
    assert_eq!(
        pipelines(backend),
        prepared,
        "a second preparation builds nothing"
    );
    for topology in TOPOLOGIES {
        for chain_len in [1, 8] {
            let result = search(backend, &layout, &graph, &[0], chain_len, &|_| topology);
            check_against(
                &reference,
                &result,
                &format!("{topology:?} / chain {chain_len}"),
            );
        }
    }
    assert_eq!(pipelines(backend), prepared, "a search built a pipeline");
}
