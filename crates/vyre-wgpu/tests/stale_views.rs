//! Fault injection for the chain's level closing: kernels built so that
//! every counter add sizes the next level from the total *before* it (the
//! stale view a relaxed memory system may give a workgroup), which shrinks
//! later levels' grids. Counts and depths must stay exact at every level:
//! no level's result may depend on what a workgroup saw of other
//! workgroups' adds while they still run (issue 10, section 1). Lavapipe
//! runs on a CPU whose atomics are never stale, so the staleness is
//! injected rather than waited for.

mod common;

use std::sync::Arc;

use common::shapes::{hub_tree, tier};
use common::{
    Reference, TOPOLOGIES, check_counts, open_with, random_directed, repeats, search, upload,
};
use vyre_graph::generate::grid_2d;
use vyre_wgpu::WgpuOpenRequest;

#[test]
fn stale_views_shrink_later_grids_but_never_change_a_count() {
    let request = WgpuOpenRequest {
        stale_sizing_for_tests: true,
        ..WgpuOpenRequest::default()
    };
    let Some(mut backend) = open_with(&request) else {
        return;
    };
    let shapes = [
        ("grid 40x30", grid_2d(40, 30).expect("grid"), vec![0u32]),
        ("random directed", random_directed(2000, 7000, 3), vec![1]),
        (
            // A chunked level of hubs, mid and light vertices.
            "hubs",
            hub_tree(3, &[tier(8, 3000), tier(300, 40), tier(2000, 2)], false),
            vec![0],
        ),
    ];
    let mut shrunk = 0;
    for (name, graph, sources) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(&mut backend, &graph, 16);
        let reference = Reference::new(&graph, &sources);
        for _ in 0..repeats() {
            for topology in TOPOLOGIES {
                let result = search(&mut backend, &layout, &graph, &sources, 16, &|_| topology);
                let what = format!("{name} / {topology:?}, stale sizing");
                check_counts(&reference, &result, &what);
                for l in &result.levels {
                    assert!(
                        (1..=l.engine_grid).contains(&l.grid),
                        "{what}: level {} ran on {} workgroups, the engine's rule says {}",
                        l.level,
                        l.grid,
                        l.engine_grid
                    );
                    shrunk += usize::from(l.grid < l.engine_grid);
                }
            }
        }
    }
    assert!(shrunk > 0, "the injected staleness shrank no grid");
}
