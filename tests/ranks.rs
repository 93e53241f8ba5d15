//! One graph partitioned over several ranks: simulated CPU ranks (threads
//! exchanging through the driver's collective contract) against the
//! reference BFS on the conformance corpus, every topology forced (so each
//! exchange) and the policy's choice; and the typed errors of asking for
//! ranks where there are none.

use std::sync::Arc;

use vyre::conformance::{CorpusSize, Verdict, check_case, corpus, modes};
use vyre::driver::backend::BackendErrorKind;
use vyre::driver::collective::ExchangeKind;
use vyre::graph::generate::{KroneckerSpec, kronecker};
use vyre::graph::validate::validate_bfs;
use vyre::runtime::BatchRequest;
use vyre::{BackendChoice, BackendKind, OpenRequest, SearchRequest, Topology, VyreError};

fn ranks(kind: BackendKind, ranks: u32) -> Result<vyre::Device, VyreError> {
    vyre::open(&OpenRequest {
        ranks: Some(ranks),
        ..OpenRequest::new(BackendChoice::Only(kind))
    })
}

#[test]
fn simulated_ranks_match_the_reference_on_every_case_and_mode() {
    let cases = corpus(CorpusSize::Small).unwrap();
    for p in [1, 2, 3, 4, 7] {
        let mut device = ranks(BackendKind::Cpu, p).unwrap();
        assert!(
            !device
                .engine()
                .capabilities()
                .megakernel
                .supports_device_wide_barrier
        );
        for case in &cases {
            device.load(Arc::clone(&case.graph)).unwrap();
            for mode in modes() {
                for outcome in check_case(&mut device, case, mode) {
                    let fused = outcome.mode == vyre::topology_name(Topology::FusedWave);
                    match &outcome.verdict {
                        Verdict::Pass => assert!(!fused, "P={p}: a fused wave ran across ranks"),
                        Verdict::Unsupported(_) if fused => {}
                        other => panic!(
                            "P={p} {} {} {:?}: {other:?}",
                            case.name, outcome.mode, outcome.sources
                        ),
                    }
                }
            }
        }
    }
}

#[test]
fn the_policy_picks_each_exchange_as_the_frontier_density_moves() {
    let graph = Arc::new(
        kronecker(KroneckerSpec {
            scale: 14,
            seed: 5,
            ..KroneckerSpec::default()
        })
        .unwrap(),
    );
    let source = (0..graph.vertex_count())
        .find(|&v| graph.out_edges().degree(v) > 0)
        .unwrap();
    let mut device = ranks(BackendKind::Cpu, 4).unwrap();
    device.load(Arc::clone(&graph)).unwrap();
    let result = device.search(&SearchRequest::new(&[source])).unwrap();
    validate_bfs(&graph, &[source], &result.depths, &result.parents).unwrap();
    let exchanges: Vec<ExchangeKind> = result.levels.iter().map(|l| l.exchange.unwrap()).collect();
    assert!(exchanges.contains(&ExchangeKind::Lists), "{exchanges:?}");
    assert!(exchanges.contains(&ExchangeKind::Bitmap), "{exchanges:?}");
    for level in &result.levels {
        assert_eq!(level.exchange, Some(ExchangeKind::of(level.topology)));
    }
}

#[test]
fn ranks_where_there_are_none_are_typed_errors_with_a_fix() {
    for kind in [BackendKind::Wgpu, BackendKind::Vulkan, BackendKind::Cuda] {
        if !kind.compiled() {
            continue;
        }
        let Err(VyreError::Backend(error)) = ranks(kind, 2) else {
            // A machine with two GPUs and NCCL gets further (see the
            // CUDA backend's report).
            assert_eq!(kind, BackendKind::Cuda);
            continue;
        };
        assert_eq!(
            error.kind(),
            BackendErrorKind::Unavailable,
            "{kind}: {error}"
        );
        assert!(error.message().contains("Fix: "), "{kind}: {error}");
    }
    let Err(VyreError::Backend(error)) = ranks(BackendKind::Cpu, 0) else {
        panic!("0 ranks must be refused");
    };
    assert!(error.message().contains("Fix: "), "{error}");
}

#[test]
fn batches_on_a_partitioned_device_are_refused_with_a_fix() {
    let mut device = ranks(BackendKind::Cpu, 2).unwrap();
    device
        .load(Arc::new(vyre::graph::generate::chain(100).unwrap()))
        .unwrap();
    let error = device.bfs_batch(&BatchRequest::new(&[0, 5])).unwrap_err();
    assert!(
        error.to_string().contains("Fix: run batches on one device"),
        "{error}"
    );
}
