//! Edge arrays split across several bindings: the binding limit is lowered
//! so that small graphs need up to 8 segments per direction.

use std::sync::Arc;

use vyre_driver::backend::{Backend, BackendErrorKind, DeviceLayout};
use vyre_graph::generate::grid_2d;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{TOPOLOGIES, check, random_directed, search, upload};

/// The binding limit a backend is opened with for these tests: 256 bytes,
/// 64 edges per segment.
pub const SPLIT_BINDING_BYTES: u64 = 256;

/// Split edge segments give the same searches (on a backend opened with
/// [`SPLIT_BINDING_BYTES`]).
pub fn split_edge_segments_give_the_same_searches<B: Backend + LevelGrids>(backend: &mut B) {
    assert_eq!(
        backend.capabilities().max_binding_bytes,
        SPLIT_BINDING_BYTES
    );
    let shapes = [
        (
            "grid 10x10",
            grid_2d(10, 10).expect("grid"),
            vec![0u32],
            6,
            None,
        ),
        (
            "random directed",
            random_directed(120, 420, 9),
            vec![4],
            7,
            Some(7),
        ),
    ];
    for (name, graph, sources, out_segments, in_segments) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 16);
        assert_eq!(layout.out_edges.segment_count, out_segments, "{name}");
        assert_eq!(
            layout.in_edges.map(|s| s.segment_count),
            in_segments,
            "{name}"
        );
        assert_eq!(backend.allocated_bytes(), layout.total_bytes(), "{name}");
        for topology in TOPOLOGIES {
            for chain in [1, 4] {
                let result = search(backend, &layout, &graph, &sources, chain, &|_| topology);
                check(
                    &graph,
                    &sources,
                    &result,
                    &format!("{name} split / {topology:?} / chain {chain}"),
                );
            }
        }
    }
}

/// A graph beyond eight segments is refused before allocation (on a backend
/// opened with [`SPLIT_BINDING_BYTES`]).
pub fn a_graph_beyond_eight_segments_is_refused_before_allocation(backend: &dyn Backend) {
    // 2 * (11 * 12 * 2) = 528 directed edges > 8 segments of 64.
    let graph = grid_2d(12, 12).expect("grid");
    let error = DeviceLayout::for_graph(&graph, backend.capabilities(), 1)
        .expect_err("528 edges exceed 8 segments of 64");
    assert_eq!(error.kind(), BackendErrorKind::OutOfMemory);
    assert!(error.message().contains("Fix:"));
    assert_eq!(backend.allocated_bytes(), 0);
}
