//! A long chain's later grid and the frontier it covers.
//!
//! Every later level of a chain is dispatched on the same grid, the chain's
//! later cap, and the workgroups its level's rule does not give it return at
//! once. They are cheap, not free: each is still launched, at about 3 ns per
//! level for a 256-wide one on a large GPU (docs/BENCHMARKS.md has the
//! measurements), so a cap of every resident workgroup over a frontier that
//! needs a third of them cost a chained grid level 2 µs. A long chain's
//! levels are narrow and change slowly (that is why the engine chains
//! them), so its later grid is sized from its first level's, with room to
//! grow ([`CHAIN_GRID_GROWTH`], at least [`MIN_CHAIN_GRID`] workgroups), and
//! the chain hands back when its frontier outgrows that grid, as a fused
//! launch does: the band it stays in is what the grid covers, in vertices
//! and, for edge-balanced topologies, in out-edges. The next command is
//! sized for the larger frontier, so grids grow geometrically.
//!
//! A short chain (the search's first command and its tail, two levels)
//! keeps the device's cap: its frontiers change fast, and one level of
//! surplus workgroups costs less than a command cut short.

use vyre_driver::backend::{LaunchShape, WARP_LANES, is_edge_balanced};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use crate::plan::chain::SHORT_CHAIN_LEVELS;

/// How much wider than its first level's grid a long chain's later grid
/// is, as a fraction (numerator over [`CHAIN_GRID_GROWTH_DIVISOR`]).
pub const CHAIN_GRID_GROWTH: u64 = 5;

/// Divisor of [`CHAIN_GRID_GROWTH`]: later grids are 5/4 of the first.
pub const CHAIN_GRID_GROWTH_DIVISOR: u64 = 4;

/// Fewest workgroups a long chain's later grid has: a frontier of a few
/// vertices may grow for many levels before it hands back, and that many
/// surplus workgroups cost a level a fraction of a microsecond.
pub const MIN_CHAIN_GRID: u32 = 64;

/// The later grid of a long chain and the frontier it covers.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct ChainGrid {
    /// Workgroups every later level is dispatched on.
    pub max_workgroups: u32,
    /// Most frontier vertices a later level that runs has.
    pub band_max_frontier_vertices: u32,
    /// Most frontier out-edges a later level that runs has (edge-balanced
    /// topologies; no limit otherwise).
    pub band_max_frontier_edges: u64,
}

/// The later grid of a command of `topology` running `max_levels` levels
/// from `launch` (whose later cap is what the device holds at once), or
/// `None` where the chain keeps that cap: a fused launch, a one- or
/// two-level command, a bitmap topology (whose grid is the graph's), or a
/// first grid already within a growth step of the cap.
pub(crate) fn chain_grid(
    topology: MegakernelExecutionTopology,
    launch: &LaunchShape,
    max_levels: u32,
) -> Option<ChainGrid> {
    use MegakernelExecutionTopology as T;
    let lanes_per_vertex = match topology {
        T::WarpSparseFrontier => u64::from(WARP_LANES),
        T::SparseFrontier | T::HybridFrontier => 1,
        T::FusedWave | T::DenseFrontier | T::BlockDenseFrontier => return None,
    };
    if max_levels <= SHORT_CHAIN_LEVELS {
        return None;
    }
    let grown = launch.workgroups().saturating_mul(CHAIN_GRID_GROWTH) / CHAIN_GRID_GROWTH_DIVISOR;
    let cap = u64::from(launch.later.max_workgroups);
    let groups = grown.max(u64::from(MIN_CHAIN_GRID));
    if groups >= cap {
        return None;
    }
    let lanes = groups * u64::from(launch.workgroup_size_x);
    let per_lane = launch.later.edges_per_lane;
    Some(ChainGrid {
        max_workgroups: u32::try_from(groups).unwrap_or(u32::MAX),
        band_max_frontier_vertices: u32::try_from(lanes / lanes_per_vertex).unwrap_or(u32::MAX),
        band_max_frontier_edges: if is_edge_balanced(topology) && per_lane > 0 {
            lanes.saturating_mul(u64::from(per_lane))
        } else {
            u64::MAX
        },
    })
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{ChainBand, LevelSizing};

    use super::*;
    use MegakernelExecutionTopology as T;

    /// A first level of `workgroups` of 256 whose later levels may use
    /// `cap` (the device's) at `edges_per_lane`.
    fn launch(workgroups: u32, edges_per_lane: u32, cap: u32) -> LaunchShape {
        let later = LevelSizing {
            edges_per_lane,
            max_workgroups: cap,
        };
        LaunchShape {
            cluster: false,
            workgroup_size_x: 256,
            dispatch_grid: [workgroups, 1, 1],
            slots_per_lane: 1,
            later,
        }
    }

    #[test]
    fn a_long_chain_gets_its_first_grid_with_room_to_grow() {
        // 335 warp-sparse workgroups (2,680 vertices) on a device of 1,056.
        let grid = chain_grid(T::WarpSparseFrontier, &launch(335, 0, 1_056), 256).unwrap();
        assert_eq!(grid.max_workgroups, 335 * 5 / 4);
        assert_eq!(grid.band_max_frontier_vertices, 418 * 256 / 32);
        assert_eq!(grid.band_max_frontier_edges, u64::MAX);
        // Edge-balanced at one edge a lane: the grid's lanes bound both.
        let grid = chain_grid(T::SparseFrontier, &launch(100, 1, 1_056), 64).unwrap();
        assert_eq!(grid.max_workgroups, 125);
        assert_eq!(grid.band_max_frontier_vertices, 125 * 256);
        assert_eq!(grid.band_max_frontier_edges, 125 * 256);
    }

    #[test]
    fn a_small_first_grid_gets_the_floor() {
        let grid = chain_grid(T::WarpSparseFrontier, &launch(1, 0, 1_056), 8).unwrap();
        assert_eq!(grid.max_workgroups, MIN_CHAIN_GRID);
        assert_eq!(grid.band_max_frontier_vertices, MIN_CHAIN_GRID * 256 / 32);
    }

    #[test]
    fn short_chains_fused_launches_bitmaps_and_wide_grids_keep_the_cap() {
        let narrow = launch(10, 0, 1_056);
        assert_eq!(
            chain_grid(T::WarpSparseFrontier, &narrow, SHORT_CHAIN_LEVELS),
            None
        );
        assert_eq!(chain_grid(T::WarpSparseFrontier, &narrow, 1), None);
        assert_eq!(chain_grid(T::FusedWave, &narrow, 1_024), None);
        assert_eq!(chain_grid(T::DenseFrontier, &narrow, 256), None);
        assert_eq!(chain_grid(T::BlockDenseFrontier, &narrow, 256), None);
        // Within a growth step of the device's cap, or on a device whose
        // cap is below the floor.
        assert_eq!(
            chain_grid(T::SparseFrontier, &launch(900, 1, 1_056), 256),
            None
        );
        assert_eq!(chain_grid(T::SparseFrontier, &launch(1, 1, 32), 256), None);
    }

    #[test]
    fn the_band_caps_the_later_levels_at_the_chain_grid() {
        // Whatever the edge band, the later cap the driver works out from
        // the chain grid's band is the chain grid.
        for (topology, first, per_lane) in [
            (T::WarpSparseFrontier, 335, 0),
            (T::WarpSparseFrontier, 3, 0),
            (T::SparseFrontier, 47, 1),
            (T::HybridFrontier, 200, 1),
            (T::SparseFrontier, 20, 4),
        ] {
            let shape = launch(first, per_lane, 1_056);
            let grid = chain_grid(topology, &shape, 256).unwrap();
            let band = ChainBand {
                first_frontier_edges: 10,
                band_max_frontier_edges: grid.band_max_frontier_edges.min(1 << 30),
                band_max_frontier_vertices: grid.band_max_frontier_vertices,
                graph_vertices: 1 << 24,
                graph_edges: 1 << 30,
            };
            let later = shape.later_within_band(topology, &band).later;
            assert_eq!(
                later.max_workgroups, grid.max_workgroups,
                "{topology:?} {first}"
            );
        }
    }
}
