//! Device memory follows the layout exactly; capabilities come from the
//! device; edge cases of upload and read-back. Needs a CUDA device; skips
//! visibly without one.

mod common;

use std::sync::Arc;

use common::{corpus, open_gpu, upload};
use vyre_cuda::{CudaBackend, PtxOrigin};
use vyre_driver::backend::{Backend, DeviceLayout};
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::generate::{chain, grid_2d};
use vyre_graph::{Csr, Graph, UNREACHED};

#[test]
fn buffers_are_exactly_the_layout() {
    let Some(mut gpu) = open_gpu("layout") else {
        return;
    };
    for case in corpus() {
        let layout = upload(&mut gpu.backend, &case.graph);
        assert_eq!(
            gpu.backend.allocated_bytes(),
            layout.total_bytes() - layout.staging_bytes(),
            "{}",
            case.name
        );
        assert_eq!(layout.staging_bytes(), 0, "CUDA reads back without staging");
    }
}

#[test]
fn a_new_upload_replaces_the_old_one() {
    let Some(mut gpu) = open_gpu("replace") else {
        return;
    };
    let big = Arc::new(grid_2d(common::size(500, 60), common::size(500, 60)).expect("grid"));
    let small = Arc::new(chain(10).expect("chain"));
    upload(&mut gpu.backend, &big);
    let layout = upload(&mut gpu.backend, &small);
    assert_eq!(gpu.backend.allocated_bytes(), layout.total_bytes());
    // A layout of another graph is refused and nothing stays allocated.
    let other = DeviceLayout::for_graph(&big, gpu.backend.capabilities(), 4).expect("layout");
    let err = gpu
        .backend
        .upload(&small, &other)
        .expect_err("mismatched layout");
    assert!(err.message().contains("Fix:"), "{err}");
    assert_eq!(gpu.backend.allocated_bytes(), 0);
}

#[test]
fn depths_start_unreached_after_upload() {
    let Some(mut gpu) = open_gpu("fresh_depths") else {
        return;
    };
    let graph = Arc::new(grid_2d(30, 30).expect("grid"));
    upload(&mut gpu.backend, &graph);
    let mut depths = vec![0; 900];
    let mut parents = vec![0; 900];
    gpu.backend.read_depths(&mut depths).expect("depths");
    gpu.backend.read_parents(&mut parents).expect("parents");
    assert!(depths.iter().chain(&parents).all(|&d| d == UNREACHED));
    let mut short = vec![0; 899];
    assert!(gpu.backend.read_depths(&mut short).is_err());
}

#[test]
fn a_graph_without_vertices_uploads_and_reads_back_nothing() {
    let Some(mut gpu) = open_gpu("zero_vertices") else {
        return;
    };
    let empty = Csr::from_parts(vec![0], Vec::new()).expect("empty csr");
    let graph = Arc::new(Graph::symmetric(empty));
    upload(&mut gpu.backend, &graph);
    gpu.backend.read_depths(&mut []).expect("depths");
    let directed = Arc::new(build_graph(3, &[(0, 1)], BuildOptions::DIRECTED).expect("graph"));
    let layout = upload(&mut gpu.backend, &directed);
    assert!(layout.in_edges.is_some());
}

#[test]
fn capabilities_are_measured_from_the_device() {
    let Some(gpu) = open_gpu("capabilities") else {
        return;
    };
    let caps = gpu.backend.capabilities();
    println!("{caps:#?}");
    println!(
        "arch {} (PTX from {:?})",
        gpu.backend.arch(),
        gpu.backend.ptx_origin()
    );
    assert!(caps.device_name.contains(gpu.backend.arch()));
    assert_eq!(caps.offset_bytes, 8);
    assert_eq!(caps.max_edge_segments, 1);
    assert!(!caps.needs_readback_staging);
    assert!(caps.device_timestamps);
    assert_eq!(caps.subgroup_size, 32);
    assert!(caps.resident_lanes >= caps.resident_workgroups * caps.resident_workgroup_size);
    assert!(caps.resident_lanes > 0);
    assert!(caps.launch_overhead_ns > 100.0 && caps.launch_overhead_ns < 1e7);
    assert!(caps.memory_budget_bytes > 0);
    assert!(caps.max_workgroup_size_x >= 256);
    if caps.megakernel.supports_device_wide_barrier {
        assert_eq!(caps.resident_workgroup_size, 256);
        assert!(caps.resident_workgroups > 0);
        let blocks = format!("{} blocks of 256 threads", caps.resident_workgroups);
        assert!(
            caps.barrier_reason.starts_with("cooperative launch: ")
                && caps.barrier_reason.contains(&blocks),
            "{}",
            caps.barrier_reason
        );
    } else {
        assert_eq!(
            (caps.resident_workgroups, caps.resident_workgroup_size),
            (0, 0)
        );
        assert!(!caps.barrier_reason.is_empty());
    }
    // A second backend in this process compiles nothing.
    let again = CudaBackend::open(&common::open_request()).expect("second open");
    assert_eq!(again.ptx_origin(), PtxOrigin::Memory);
}
