//! Engine behaviour through the facade, on the CPU backend (always present).

use std::sync::Arc;

use vyre::graph::bfs::reference_bfs;
use vyre::graph::generate::{KroneckerSpec, chain, grid_2d, kronecker};
use vyre::{
    BackendChoice, BackendKind, ChainMode, EngineError, OpenRequest, SearchRequest, Topology,
    TopologyChoice, VyreError,
};

fn cpu(budget: Option<u64>) -> vyre::Device {
    vyre::open(&OpenRequest {
        backend: BackendChoice::Only(BackendKind::Cpu),
        memory_budget_bytes: budget,
        cpu_threads: Some(2),
        ranks: None,
        cuda_fused_cluster: false,
    })
    .expect("the CPU backend always opens")
}

fn kron(scale: u32) -> Arc<vyre::graph::Graph> {
    Arc::new(
        kronecker(KroneckerSpec {
            scale,
            seed: 3,
            ..KroneckerSpec::default()
        })
        .unwrap(),
    )
}

#[test]
fn over_budget_is_refused_before_anything_is_allocated() {
    let mut device = cpu(Some(10_000));
    let err = device
        .load(Arc::new(grid_2d(100, 100).unwrap()))
        .unwrap_err();
    assert!(
        matches!(
            err,
            VyreError::DoesNotFit {
                backend: BackendKind::Cpu,
                error: EngineError::Memory(_)
            }
        ),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("Fix:"), "{message}");
    // The facade names the other backends of this build, and only those.
    for kind in vyre::available_backends() {
        let named = message.contains(&format!("{kind},")) || message.contains(&format!("{kind})"));
        assert_eq!(named, kind != BackendKind::Cpu, "{kind}: {message}");
    }
    assert_eq!(device.engine().allocated_bytes(), 0);
    assert!(device.engine().memory_plan().is_none());
}

#[test]
fn allocation_never_exceeds_the_plan() {
    let mut device = cpu(None);
    let graph = kron(12);
    device.load(Arc::clone(&graph)).unwrap();
    let plan = *device.engine().memory_plan().unwrap();
    assert_eq!(
        plan.required_bytes,
        device.engine().layout().unwrap().total_bytes()
    );
    for source in [0, 7, 100] {
        device.bfs(source).unwrap();
        assert!(device.engine().allocated_bytes() <= plan.required_bytes);
    }
}

#[test]
fn fused_wave_is_refused_without_a_device_wide_barrier() {
    let mut device = cpu(None);
    device.load(Arc::new(grid_2d(8, 8).unwrap())).unwrap();
    let err = device.bfs_forced(&[0], Topology::FusedWave).unwrap_err();
    assert!(
        matches!(
            err,
            VyreError::Engine(EngineError::TopologyUnavailable { .. })
        ),
        "{err:?}"
    );
    assert!(
        err.to_string().ends_with("let the policy choose (auto)."),
        "{err}"
    );
}

#[test]
fn bad_sources_and_missing_graphs_are_typed_errors() {
    let mut device = cpu(None);
    assert!(matches!(
        device.bfs(0),
        Err(VyreError::Engine(EngineError::NoGraph))
    ));
    device.load(Arc::new(grid_2d(4, 4).unwrap())).unwrap();
    assert!(matches!(
        device.bfs_multi(&[]),
        Err(VyreError::Engine(EngineError::NoSources))
    ));
    let err = device.bfs(16).unwrap_err();
    assert!(matches!(
        err,
        VyreError::Engine(EngineError::SourceOutOfRange {
            source: 16,
            vertex_count: 16
        })
    ));
    assert!(
        err.to_string().contains("Fix: pick a source below 16"),
        "{err}"
    );
}

#[test]
fn auto_trace_is_consistent_and_explained_by_the_policy() {
    let mut device = cpu(None);
    let graph = kron(14);
    device.load(Arc::clone(&graph)).unwrap();
    let source = (0..graph.vertex_count())
        .max_by_key(|&v| graph.out_edges().degree(v))
        .unwrap();
    let result = device.bfs(source).unwrap();
    let expected = reference_bfs(&graph, &[source]);
    assert_eq!(result.depths, expected.depths);

    let mut reached = 1u64;
    for (i, level) in result.levels.iter().enumerate() {
        assert_eq!(level.level, i as u32);
        let prefix = format!("megakernel-topology-v1|topology={:?}|", level.topology);
        assert!(
            level.explanation.starts_with(&prefix),
            "{}",
            level.explanation
        );
        if let Some(next) = result.levels.get(i + 1) {
            assert_eq!(next.frontier_in, level.frontier_out);
        }
        reached += u64::from(level.frontier_out);
    }
    let expected_reached = expected.depths.iter().filter(|&&d| d != u32::MAX).count() as u64;
    assert_eq!(reached, expected_reached);
    // A power-law graph from its hub has a frontier dense enough that the
    // policy switches to a bottom-up (bitmap) topology, and back.
    let bottom_up =
        |t: Topology| matches!(t, Topology::DenseFrontier | Topology::BlockDenseFrontier);
    assert!(
        result.levels.iter().any(|l| bottom_up(l.topology)),
        "{:?}",
        result.levels.iter().map(|l| l.topology).collect::<Vec<_>>()
    );
    assert!(!bottom_up(result.levels[0].topology));
}

#[test]
fn chained_levels_give_the_same_depths() {
    let mut device = cpu(None);
    // A path: the frontier never leaves the sparse band, so chains run full.
    let graph = Arc::new(chain(300).unwrap());
    device.load(Arc::clone(&graph)).unwrap();
    let expected = reference_bfs(&graph, &[0]);
    for chaining in [ChainMode::Off, ChainMode::Levels(8), ChainMode::Auto] {
        let request = SearchRequest {
            sources: &[0],
            topology: TopologyChoice::Forced(Topology::SparseFrontier),
            chaining,
        };
        let result = device.search(&request).unwrap();
        assert_eq!(result.depths, expected.depths, "{chaining:?}");
        assert_eq!(result.levels.len(), 300, "{chaining:?}");
        let longest = result
            .levels
            .iter()
            .map(|l| l.command_levels)
            .max()
            .unwrap();
        match chaining {
            ChainMode::Off => assert_eq!(longest, 1),
            ChainMode::Levels(n) => assert_eq!(longest, n),
            ChainMode::Auto => assert!(longest <= vyre::runtime::plan::chain::MAX_CHAIN_LEVELS),
        }
    }
}

#[test]
fn one_upload_serves_many_independent_searches() {
    let mut device = cpu(None);
    let graph = kron(11);
    device.load(Arc::clone(&graph)).unwrap();
    for sources in [vec![1], vec![2, 3, 4], vec![1]] {
        let result = device.bfs_multi(&sources).unwrap();
        assert_eq!(
            result.depths,
            reference_bfs(&graph, &sources).depths,
            "{sources:?}"
        );
        for &s in &sources {
            assert_eq!(result.parents[s as usize], s);
        }
    }
}
