//! Batch passes of FusedWave commands: a batch runs them as recorded chains
//! of Hybrid levels on the fused launch's grid (on a device whose probe
//! verified a barrier; on lavapipe forced to one resident workgroup), every
//! lane checked against the reference BFS.

mod common;

use std::sync::Arc;

use common::batch::{BatchReference, batch_search, check_batch, lane_sets};
use common::shapes::{hub_tree, tier};
use common::{Waves, fused_device, fused_launch, random_directed, upload};
use vyre_driver::backend::Backend;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::generate::{chain, grid_2d, star};

#[test]
fn fused_commands_of_a_batch_match_the_reference_lane_by_lane() {
    let Some(mut gpu) = fused_device("fused_commands_of_a_batch_match_the_reference_lane_by_lane")
    else {
        return;
    };
    let graphs = [
        ("grid 20x15", grid_2d(20, 15).expect("grid")),
        ("chain 300", chain(300).expect("chain")),
        ("star 3000", star(3000).expect("star")),
        (
            "hubs, mid and light",
            hub_tree(3, &[tier(3, 2500), tier(40, 40), tier(200, 3)], false),
        ),
        ("random directed", random_directed(1500, 6000, 7)),
    ];
    for (name, graph) in graphs {
        let graph = Arc::new(graph);
        let layout = upload(&mut *gpu, &graph, 1024);
        let n = graph.vertex_count();
        let shape = |caps: &_, topology, at: &_| fused_launch(caps, topology, at, n);
        // Whole passes in one command, and in commands of a few levels.
        for levels in [1024, 3] {
            let waves = Waves {
                layout: &layout,
                chain: levels,
                schedule: &|_| T::FusedWave,
                shape: &shape,
            };
            for (sources, keep) in lane_sets(n).into_iter().zip([true, false, true]) {
                let reference = BatchReference::new(&graph, &sources);
                let run = batch_search(&mut *gpu, &graph, &sources, keep, &waves);
                let what = format!("{name} / fused x{levels} / {} lanes", sources.len());
                check_batch(&reference, &run, &what);
            }
        }
    }
    assert!(gpu.allocated_bytes() > 0);
    gpu.assert_valid();
}
