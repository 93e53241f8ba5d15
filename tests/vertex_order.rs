//! Graphs renumbered on the device (by degree, by breadth): sources go in and
//! results come back in the caller's numbering, on the CPU backend (always
//! present).

use std::sync::Arc;

use vyre::graph::bfs::reference_bfs;
use vyre::graph::build::{BuildOptions, build_graph};
use vyre::graph::generate::{KroneckerSpec, grid_2d, kronecker};
use vyre::graph::validate::validate_bfs;
use vyre::runtime::Numbering;
use vyre::{
    BackendChoice, BackendKind, BatchRequest, OpenRequest, SearchRequest, Topology, TopologyChoice,
    VertexOrder,
};

fn cpu() -> vyre::Device {
    vyre::open(&OpenRequest {
        backend: BackendChoice::Only(BackendKind::Cpu),
        memory_budget_bytes: None,
        cpu_threads: Some(2),
        ranks: None,
        cuda_fused_cluster: false,
    })
    .expect("the CPU backend always opens")
}

/// A star whose hub is the last vertex, plus a path hanging off leaf 0:
/// relabelling by degree moves the hub to 0 and shuffles every id.
fn hub_last() -> Arc<vyre::graph::Graph> {
    let n = 200u32;
    let hub = n - 1;
    let mut edges: Vec<(u32, u32)> = (0..150).map(|v| (hub, v)).collect();
    edges.extend((150..hub - 1).map(|v| (v, v + 1)));
    edges.push((0, 150));
    Arc::new(build_graph(n, &edges, BuildOptions::UNDIRECTED).unwrap())
}

fn load(
    device: &mut vyre::Device,
    graph: &Arc<vyre::graph::Graph>,
    order: VertexOrder,
) -> Numbering {
    let report = device
        .load_with(vyre::LoadRequest {
            order,
            ..vyre::LoadRequest::new(Arc::clone(graph))
        })
        .unwrap();
    report.order.numbering
}

#[test]
fn searches_answer_in_the_callers_ids_whatever_the_order() {
    let graph = hub_last();
    let mut device = cpu();
    for (order, numbering) in [
        (VertexOrder::ByDegree, Numbering::ByDegree),
        (VertexOrder::ByBreadth, Numbering::ByBreadth),
        (VertexOrder::AsGiven, Numbering::AsGiven),
    ] {
        assert_eq!(load(&mut device, &graph, order), numbering);
        for topology in [
            TopologyChoice::Auto,
            TopologyChoice::Forced(Topology::SparseFrontier),
            TopologyChoice::Forced(Topology::DenseFrontier),
        ] {
            for sources in [vec![199], vec![198], vec![3, 170]] {
                let mut request = SearchRequest::new(&sources);
                request.topology = topology;
                let result = device.search(&request).unwrap();
                let expected = reference_bfs(&graph, &sources);
                assert_eq!(result.depths, expected.depths, "{order:?} {sources:?}");
                validate_bfs(&graph, &sources, &result.depths, &result.parents).unwrap();
            }
        }
    }
}

#[test]
fn batches_report_each_source_and_its_depths_in_the_callers_ids() {
    let graph = hub_last();
    let mut device = cpu();
    assert_eq!(
        load(&mut device, &graph, VertexOrder::ByDegree),
        Numbering::ByDegree
    );
    let sources = [199, 0, 180, 42];
    let mut request = BatchRequest::new(&sources);
    request.keep_depths = true;
    let result = device.bfs_batch(&request).unwrap();
    let depths = result.depths.unwrap();
    for (lane, &source) in sources.iter().enumerate() {
        assert_eq!(result.lanes[lane].source, source);
        let expected = reference_bfs(&graph, &[source]).depths;
        let reached = expected.iter().filter(|&&d| d != u32::MAX).count() as u64;
        assert_eq!(result.lanes[lane].reached, reached, "source {source}");
        for (v, &d) in expected.iter().enumerate() {
            assert_eq!(
                depths[v * sources.len() + lane],
                d,
                "vertex {v} from {source}"
            );
        }
    }
}

#[test]
fn a_source_out_of_range_is_refused_with_its_own_id() {
    let graph = hub_last();
    let mut device = cpu();
    assert_eq!(
        load(&mut device, &graph, VertexOrder::ByBreadth),
        Numbering::ByBreadth
    );
    let err = device.bfs(500).unwrap_err().to_string();
    assert!(err.contains("source 500") && err.contains("Fix:"), "{err}");
}

#[test]
fn the_engine_renumbers_large_skewed_graphs_by_degree_and_large_sparse_ones_by_breadth() {
    let mut device = cpu();
    let kron = Arc::new(
        kronecker(KroneckerSpec {
            scale: 16,
            ..KroneckerSpec::default()
        })
        .unwrap(),
    );
    assert_eq!(
        load(&mut device, &kron, VertexOrder::Auto),
        Numbering::ByDegree
    );
    let result = device.bfs(5).unwrap();
    assert_eq!(result.depths, reference_bfs(&kron, &[5]).depths);
    let grid = Arc::new(grid_2d(300, 300).unwrap());
    assert_eq!(
        load(&mut device, &grid, VertexOrder::Auto),
        Numbering::ByBreadth
    );
    // An inner source and the far corner: results in the caller's ids.
    for source in [150 * 300 + 150, 300 * 300 - 1] {
        let result = device.bfs(source).unwrap();
        assert_eq!(result.depths, reference_bfs(&grid, &[source]).depths);
        validate_bfs(&grid, &[source], &result.depths, &result.parents).unwrap();
    }
    let small = Arc::new(grid_2d(100, 100).unwrap());
    assert_eq!(
        load(&mut device, &small, VertexOrder::Auto),
        Numbering::AsGiven
    );
}

#[test]
fn an_automatic_renumbering_without_host_room_loads_the_graph_as_given() {
    let grid = Arc::new(grid_2d(300, 300).unwrap());
    let mut device = cpu();
    let tight = |order| vyre::LoadRequest {
        order,
        host_memory_limit: Some(1 << 20),
        ..vyre::LoadRequest::new(Arc::clone(&grid))
    };
    // The engine's choice falls back, and says why.
    let report = device.load_with(tight(VertexOrder::Auto)).unwrap();
    assert_eq!(report.order.numbering, Numbering::AsGiven);
    assert!(
        report.order.reason.contains("by-breadth would need"),
        "{}",
        report.order.reason
    );
    let result = device.bfs(45_150).unwrap();
    assert_eq!(result.depths, reference_bfs(&grid, &[45_150]).depths);
    // An order the caller asked for is refused with its fix.
    let err = device
        .load_with(tight(VertexOrder::ByBreadth))
        .unwrap_err()
        .to_string();
    assert!(err.contains("by breadth") && err.contains("Fix:"), "{err}");
}
