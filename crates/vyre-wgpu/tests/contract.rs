//! Capabilities, memory accounting, the pipeline cache and typed errors for
//! calls out of order. Commands are checked by the driver
//! (`WaveCommand::check`, with its own tests); this backend trusts them.

mod common;

use std::sync::Arc;

use common::{TOPOLOGIES, begin, check, command, open, open_with, search, upload};
use vyre_driver::backend::{Backend, BackendErrorKind, DeviceLayout, SearchSources};
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionTopology as T,
};
use vyre_graph::generate::{chain, grid_2d};
use vyre_wgpu::WgpuOpenRequest;

#[test]
fn capabilities_describe_the_device_and_its_measured_barrier() {
    let Some(backend) = open() else { return };
    let caps = backend.capabilities();
    // A barrier only with the count the probe verified, and the lanes it
    // saw at once; none otherwise, with the probe's reason either way.
    assert!(
        caps.barrier_reason.starts_with("probe"),
        "{}",
        caps.barrier_reason
    );
    if caps.can_fuse() {
        assert!(caps.resident_workgroups >= 2);
        assert_eq!(
            caps.resident_lanes,
            caps.resident_workgroups * caps.resident_workgroup_size
        );
    } else {
        assert_eq!(
            caps.megakernel,
            MegakernelDeviceCapabilities::FUSION_INCAPABLE
        );
        assert_eq!((caps.resident_workgroups, caps.resident_lanes), (0, 0));
    }
    assert!(!caps.batch_fused_wave && !caps.for_batch().can_fuse());
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
        let result = search(&mut backend, &layout, &graph, &[0], 8, &|_| topology);
        check(&graph, &[0], &result, &format!("{topology:?}"));
    }
    let built = backend.pipeline_count();
    for topology in TOPOLOGIES {
        search(&mut backend, &layout, &graph, &[255], 8, &|_| topology);
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

#[test]
fn calls_out_of_order_get_typed_errors() {
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
    let sources = SearchSources::new(&[0], &graph).expect("valid sources");
    invalid(backend.begin_search(&sources), "a search before upload");
    let layout = DeviceLayout::for_graph(&graph, backend.capabilities(), 2).expect("layout");
    let start = vyre_driver::backend::SearchPosition::start(&sources);
    let wave = command(&backend, &layout, T::SparseFrontier, start, 1, u64::MAX);
    invalid(backend.run_wave(&wave).map(|_| ()), "a wave before upload");
    let other = chain(7).expect("chain");
    let wrong_layout = DeviceLayout::for_graph(&other, backend.capabilities(), 1).expect("layout");
    invalid(
        backend.upload(&graph, &wrong_layout),
        "a layout of another graph",
    );
    assert_eq!(backend.allocated_bytes(), 0);

    upload(&mut backend, &graph, 2);
    begin(&mut backend, &graph, &[0]);
    let mut short = vec![0; 99];
    invalid(backend.read_depths(&mut short), "a short depth slice");
    invalid(backend.read_parents(&mut short), "a short parent slice");

    // None of that disturbed the search.
    let report = backend.run_wave(&wave).expect("a valid wave runs");
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

#[test]
fn preparing_builds_every_pipeline_a_search_dispatches() {
    if let Some(mut backend) = open() {
        vyre_testkit::suites::prepare::preparing_builds_every_pipeline_a_search_dispatches(
            &mut backend,
            |b| b.pipeline_count(),
        );
    }
}
