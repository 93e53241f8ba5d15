//! Edge arrays split across several bindings: the binding limit is lowered
//! so that small graphs need up to 8 segments per direction.

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, check, open_with, random_directed, search, upload};
use vyre_driver::backend::{Backend, BackendErrorKind, DeviceLayout};
use vyre_graph::generate::grid_2d;
use vyre_wgpu::WgpuOpenRequest;

/// 256-byte bindings: 64 edges per segment.
fn split_request() -> WgpuOpenRequest {
    WgpuOpenRequest {
        max_binding_bytes_override: Some(256),
        ..WgpuOpenRequest::default()
    }
}

#[test]
fn split_edge_segments_give_the_same_searches() {
    let Some(mut backend) = open_with(&split_request()) else {
        return;
    };
    assert_eq!(backend.capabilities().max_binding_bytes, 256);
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
        let layout = upload(&mut backend, &graph, 4);
        assert_eq!(layout.out_edges.segment_count, out_segments, "{name}");
        assert_eq!(
            layout.in_edges.map(|s| s.segment_count),
            in_segments,
            "{name}"
        );
        assert_eq!(backend.allocated_bytes(), layout.total_bytes(), "{name}");
        for topology in TOPOLOGIES {
            for chain in [1, 4] {
                let result = search(&mut backend, &layout, &graph, &sources, chain, &|_| {
                    topology
                });
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

#[test]
fn a_graph_beyond_eight_segments_is_refused_before_allocation() {
    let Some(backend) = open_with(&split_request()) else {
        return;
    };
    // 2 * (11 * 12 * 2) = 528 directed edges > 8 segments of 64.
    let graph = grid_2d(12, 12).expect("grid");
    let error = DeviceLayout::for_graph(&graph, backend.capabilities(), 1)
        .expect_err("528 edges exceed 8 segments of 64");
    assert_eq!(error.kind(), BackendErrorKind::OutOfMemory);
    assert!(error.message().contains("Fix:"));
    assert_eq!(backend.allocated_bytes(), 0);
}
