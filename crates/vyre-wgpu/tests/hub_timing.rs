//! Device time of the levels whose frontier mixes hubs with light vertices,
//! printed for the record (run with `--ignored --nocapture`; timing is not
//! asserted). On lavapipe these figures show a trend only: they are CPU
//! times of a software rasteriser, never GPU performance.

mod common;

use std::sync::Arc;

use common::shapes::{broom, hub_tree, tier};
use common::{check, open, search, upload};
use vyre_driver::backend::Backend;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

const RUNS: usize = 5;

#[test]
#[ignore = "measurement; run explicitly"]
fn hub_level_device_time() {
    let Some(mut backend) = open() else { return };
    println!("device: {}", backend.capabilities().device_name);
    if !backend.capabilities().device_timestamps {
        println!("skipped: the device has no timestamps");
        return;
    }
    let shapes = [
        ("broom: 8 hubs x 20000", broom(), 10u32),
        (
            "8 hubs + 300 x 200 + 1000 x 3",
            hub_tree(4, &[tier(8, 20_000), tier(300, 200), tier(1000, 3)], false),
            4,
        ),
        (
            "8 hubs + 300 x 200 + 3000 x 3",
            hub_tree(4, &[tier(8, 20_000), tier(300, 200), tier(3000, 3)], false),
            4,
        ),
    ];
    for (name, graph, hub_level) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(&mut backend, &graph, 32);
        for topology in [T::SparseFrontier, T::HybridFrontier, T::WarpSparseFrontier] {
            // Only one-level commands time their level alone.
            for chain_len in [1] {
                search(&mut backend, &layout, &graph, &[0], chain_len, &|_| {
                    topology
                });
                let mut hub = Vec::new();
                let mut after = Vec::new();
                let mut path = Vec::new();
                for _ in 0..RUNS {
                    let result = search(&mut backend, &layout, &graph, &[0], chain_len, &|_| {
                        topology
                    });
                    check(&graph, &[0], &result, name);
                    let at = |level: u32| result.levels[level as usize].device_ns.unwrap_or(0);
                    hub.push(at(hub_level));
                    after.push(at(hub_level + 1));
                    // Levels along the path: one light vertex each.
                    path.push(at(hub_level / 2));
                }
                let median = |v: &mut Vec<u64>| {
                    v.sort_unstable();
                    v[v.len() / 2] as f64 / 1e3
                };
                println!(
                    "{name} / {topology:?} / chain {chain_len}: hub level {:.0} us, next level {:.0} us, a one-vertex level {:.0} us",
                    median(&mut hub),
                    median(&mut after),
                    median(&mut path)
                );
            }
        }
    }
}
