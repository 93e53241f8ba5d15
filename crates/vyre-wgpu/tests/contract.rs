//! Capabilities, memory accounting, the pipeline cache and typed errors for
//! requests this backend cannot run.

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, check, launch, open, open_with, search, upload};
use vyre_driver::backend::{
    Backend, BackendErrorKind, DeviceLayout, FrontierForm, LaunchShape, WaveCommand,
};
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionTopology as T,
};
use vyre_graph::generate::{chain, grid_2d};
use vyre_wgpu::WgpuOpenRequest;

#[test]
fn capabilities_describe_a_device_without_a_grid_barrier() {
    let Some(backend) = open() else { return };
    let caps = backend.capabilities();
    assert_eq!(
        caps.megakernel,
        MegakernelDeviceCapabilities::FUSION_INCAPABLE
    );
    assert_eq!(caps.resident_workgroups, 0);
    assert_eq!(caps.offset_bytes, 4);
    assert!(caps.needs_readback_staging);
    assert_eq!(caps.max_edge_segments, 8);
    assert!(caps.max_workgroup_size_x.is_power_of_two());
    assert!(caps.max_workgroup_size_x >= 64);
    assert!(caps.max_workgroup_size_x <= caps.max_compute_invocations_per_workgroup);
    assert!(caps.max_compute_workgroups_per_dimension >= 65_535);
    assert!(caps.max_binding_bytes >= 128 << 20);
    assert!(caps.launch_overhead_ns > 0.0);
    assert!(caps.memory_budget_bytes > 0);
    assert!(caps.subgroup_size >= 1);
    assert!(caps.max_edges() >= u64::from(u32::MAX) / 2 || caps.max_binding_bytes < 1 << 30);
    println!("{caps:#?}");
}

#[test]
fn open_request_overrides_and_filters() {
    let request = WgpuOpenRequest {
        memory_budget_bytes: Some(123_456_789),
        ..WgpuOpenRequest::default()
    };
    let Some(backend) = open_with(&request) else {
        return;
    };
    assert_eq!(backend.capabilities().memory_budget_bytes, 123_456_789);
    let filtered = vyre_wgpu::WgpuBackend::open(&WgpuOpenRequest {
        adapter_name_contains: Some("no adapter is called this".into()),
        ..WgpuOpenRequest::default()
    });
    let error = filtered.expect_err("no adapter matches the filter");
    assert_eq!(error.kind(), BackendErrorKind::Unavailable);
    assert!(error.message().contains("Fix:"), "{}", error.message());
}

#[test]
fn memory_held_is_exactly_the_layout_and_pipelines_are_reused() {
    let Some(mut backend) = open() else { return };
    assert_eq!(backend.allocated_bytes(), 0);
    let graph = Arc::new(grid_2d(16, 16).expect("grid"));
    let layout = upload(&mut backend, &graph, 8);
    assert_eq!(backend.allocated_bytes(), layout.total_bytes());
    for topology in TOPOLOGIES {
        let result = search(&mut backend, &graph, &[0], 8, &|_| topology);
        check(&graph, &[0], &result, &format!("{topology:?}"));
    }
    let built = backend.pipeline_count();
    for topology in TOPOLOGIES {
        search(&mut backend, &graph, &[255], 8, &|_| topology);
    }
    assert_eq!(
        backend.pipeline_count(),
        built,
        "the second round builds nothing"
    );
    // A new upload replaces the old graph's buffers.
    let small = Arc::new(chain(10).expect("chain"));
    let small_layout = upload(&mut backend, &small, 1);
    assert_eq!(backend.allocated_bytes(), small_layout.total_bytes());
    assert!(small_layout.total_bytes() < layout.total_bytes());
}

fn command(backend: &vyre_wgpu::WgpuBackend, topology: T) -> WaveCommand {
    WaveCommand {
        topology,
        frontier: FrontierForm::Queue,
        level: 0,
        frontier_len: 1,
        max_levels: 1,
        launch: launch(backend.capabilities(), topology, 1, 100),
        band_max_frontier_edges: u64::MAX,
    }
}

#[test]
fn bad_requests_get_typed_errors() {
    let Some(mut backend) = open() else { return };
    let graph = Arc::new(grid_2d(10, 10).expect("grid"));
    let invalid = |result: Result<_, vyre_driver::backend::BackendError>, what: &str| {
        let error = result.err().unwrap_or_else(|| panic!("{what} is refused"));
        assert_eq!(error.kind(), BackendErrorKind::InvalidRequest, "{what}");
        assert!(
            error.message().contains("Fix:"),
            "{what}: {}",
            error.message()
        );
    };
    invalid(backend.begin_search(&[0]), "a search before upload");
    invalid(
        backend
            .run_wave(&command(&backend, T::SparseFrontier))
            .map(|_| ()),
        "a wave before upload",
    );
    let other = chain(7).expect("chain");
    let wrong_layout = DeviceLayout::for_graph(&other, backend.capabilities(), 1).expect("layout");
    invalid(
        backend.upload(&graph, &wrong_layout),
        "a layout of another graph",
    );
    assert_eq!(backend.allocated_bytes(), 0);

    upload(&mut backend, &graph, 2);
    invalid(
        backend
            .run_wave(&command(&backend, T::SparseFrontier))
            .map(|_| ()),
        "a wave before begin_search",
    );
    invalid(backend.begin_search(&[]), "no sources");
    invalid(backend.begin_search(&[100]), "a source out of range");
    invalid(backend.begin_search(&[3, 3]), "a repeated source");
    backend.begin_search(&[0]).expect("search starts");

    invalid(
        backend
            .run_wave(&command(&backend, T::FusedWave))
            .map(|_| ()),
        "FusedWave",
    );
    let base = command(&backend, T::SparseFrontier);
    let with_launch = |launch: LaunchShape| WaveCommand { launch, ..base };
    invalid(
        backend
            .run_wave(&with_launch(LaunchShape {
                dispatch_grid: [0, 1, 1],
                ..base.launch
            }))
            .map(|_| ()),
        "a zero grid",
    );
    invalid(
        backend
            .run_wave(&with_launch(LaunchShape {
                workgroup_size_x: 48,
                ..base.launch
            }))
            .map(|_| ()),
        "a width that is not a power of two",
    );
    invalid(
        backend
            .run_wave(&with_launch(LaunchShape {
                workgroup_size_x: 1 << 20,
                ..base.launch
            }))
            .map(|_| ()),
        "a width above the limit",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                max_levels: 0,
                ..base
            })
            .map(|_| ()),
        "zero levels",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                max_levels: 3,
                ..base
            })
            .map(|_| ()),
        "more levels than the history holds",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                max_levels: 2,
                launch: LaunchShape {
                    max_workgroups: 0,
                    ..base.launch
                },
                ..base
            })
            .map(|_| ()),
        "a chain with max_workgroups 0",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                frontier_len: 101,
                ..base
            })
            .map(|_| ()),
        "a frontier longer than the graph",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                frontier: FrontierForm::Bitmap,
                ..base
            })
            .map(|_| ()),
        "the wrong frontier form",
    );
    invalid(
        backend
            .run_wave(&WaveCommand {
                level: u32::MAX - 1,
                ..base
            })
            .map(|_| ()),
        "a level at the unreached marker",
    );
    let mut short = vec![0; 99];
    invalid(backend.read_depths(&mut short), "a short depth slice");
    invalid(backend.read_parents(&mut short), "a short parent slice");

    // None of that disturbed the search.
    let report = backend.run_wave(&base).expect("a valid wave runs");
    assert_eq!(report.levels.len(), 1);
    assert_eq!(report.levels[0].frontier_out, 2);
}

#[test]
fn a_fresh_upload_starts_every_vertex_unreached() {
    let Some(mut backend) = open() else { return };
    let graph = Arc::new(grid_2d(7, 9).expect("grid"));
    upload(&mut backend, &graph, 1);
    let mut depths = vec![0; 63];
    let mut parents = vec![0; 63];
    backend.read_depths(&mut depths).expect("read");
    backend.read_parents(&mut parents).expect("read");
    assert!(depths.iter().all(|&d| d == u32::MAX));
    assert!(parents.iter().all(|&p| p == u32::MAX));
}
