//! Per-level cost with and without chaining, printed for the record (run
//! with `--ignored --nocapture`; timing is not asserted).

mod common;

use std::sync::Arc;
use std::time::Instant;

use common::{check, open, search, upload};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::generate::chain;

#[test]
#[ignore = "measurement; run explicitly"]
fn per_level_time_with_and_without_chaining() {
    let Some(mut backend) = open() else { return };
    println!(
        "device: {}",
        vyre_driver::backend::Backend::capabilities(&backend).device_name
    );
    let n = 2001;
    let graph = Arc::new(chain(n).expect("chain"));
    upload(&mut backend, &graph, 256);
    for topology in [T::WarpSparseFrontier, T::SparseFrontier, T::DenseFrontier] {
        for chain_len in [1, 16, 256] {
            // Warm-up (pipelines), then the timed search from one end.
            search(&mut backend, &graph, &[0], chain_len, &|_| topology);
            let start = Instant::now();
            let result = search(&mut backend, &graph, &[0], chain_len, &|_| topology);
            let elapsed = start.elapsed();
            check(&graph, &[0], &result, "chain");
            println!(
                "{topology:?} chain {chain_len:>3}: {} levels in {} commands, {:.1} us per level",
                result.levels.len(),
                result.commands,
                elapsed.as_secs_f64() * 1e6 / result.levels.len() as f64
            );
        }
    }
}
