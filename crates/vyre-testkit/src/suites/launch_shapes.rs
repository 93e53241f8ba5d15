//! Every topology at every workgroup width the engine may pick, with grids
//! that cover every slot, grids of one workgroup (the kernels stride), and
//! grids spread over y and z.

use std::sync::Arc;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{
    Search, TOPOLOGIES, check, later_sizing, random_directed, random_undirected, search_with,
    shape, upload,
};
use vyre_driver::backend::{Backend, DeviceLayout, slots_for};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;

#[derive(Clone, Copy, Debug)]
enum Grid {
    /// One lane per slot.
    Cover,
    /// A single workgroup.
    One,
    /// Three workgroups as [1, 1, 3] (linearised over z).
    Tall,
}

/// How every command of one search is launched.
#[derive(Clone, Copy, Debug)]
struct Launch {
    topology: T,
    width: u32,
    grid: Grid,
    chain: u32,
}

fn shaped_search<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    launch: Launch,
) -> Search {
    let Launch {
        topology,
        width,
        grid,
        chain,
    } = launch;
    let n = graph.vertex_count();
    search_with(
        backend,
        layout,
        graph,
        sources,
        chain,
        &|_| topology,
        &|_, topology, at| {
            let slots = slots_for(topology, at.frontier_len, n).max(1);
            let (dispatch_grid, max_workgroups) = match grid {
                Grid::Cover => ([slots.div_ceil(width).min(65_535), 1, 1], 65_535),
                Grid::One => ([1, 1, 1], 1),
                Grid::Tall => ([1, 1, 3], 3),
            };
            let later = later_sizing(topology, max_workgroups);
            shape(width, dispatch_grid, later, topology, at, n)
        },
    )
}

/// Every width and grid shape gives the reference depths.
pub fn every_width_and_grid_shape_gives_the_reference_depths<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    let max_width = backend.capabilities().max_workgroup_size_x;
    let shapes = [
        (
            "random undirected",
            random_undirected(1200, 3000, 31),
            vec![0u32, 600],
        ),
        ("random directed", random_directed(900, 3600, 37), vec![1]),
    ];
    for (name, graph, sources) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 4);
        for width in [1, 8, 32, 64, max_width] {
            for grid in [Grid::Cover, Grid::One, Grid::Tall] {
                for topology in TOPOLOGIES {
                    let chain = if matches!(grid, Grid::Tall) { 4 } else { 1 };
                    let launch = Launch {
                        topology,
                        width,
                        grid,
                        chain,
                    };
                    let result = shaped_search(backend, &layout, &graph, &sources, launch);
                    check(
                        &graph,
                        &sources,
                        &result,
                        &format!("{name} / {topology:?} / width {width} / {grid:?}"),
                    );
                }
            }
        }
    }
}
