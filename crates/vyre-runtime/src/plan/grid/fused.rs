//! A fused launch's width and the frontier it covers.
//!
//! A fused launch's levels end at a barrier over every workgroup it holds,
//! and that barrier's latency grows with the workgroups that wait
//! (docs/BENCHMARKS.md has the measurements). A small
//! frontier gains nothing from the extra workgroups, so a fused launch is
//! sized to its frontier with room to grow ([`FUSED_GROWTH`]), one
//! workgroup for the smallest. When the frontier outgrows the grid the
//! launch hands back (its band's upper edge is what the grid covers) and
//! the next command is sized for the larger frontier, so the widths grow
//! geometrically and a search pays a few extra launches at most. A launch
//! of every resident workgroup covers any frontier the policy's band allows.

use vyre_driver::backend::{DeviceCapabilities, LaunchShape};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use super::launch::FrontierSize;

/// Out-edges of the frontier per lane of a fused grid: each block then
/// expands its share of a level in one or two rounds of its edge loop.
pub const FUSED_EDGES_PER_LANE: u64 = 2;

/// How much a fused launch's frontier may grow before it hands back for a
/// wider grid.
pub const FUSED_GROWTH: u64 = 4;

/// How much a cluster launch's frontier may grow before it hands back: its
/// shape is fixed, so it is taken while the frontier fills at most half of
/// it (nearer its band's edge it would hand back after a few levels).
pub const CLUSTER_GROWTH: u64 = 2;

/// Lanes `frontier` fills: a lane per vertex or per
/// [`FUSED_EDGES_PER_LANE`] out-edges, whichever is more; at least one.
fn frontier_lanes(frontier: FrontierSize) -> u64 {
    let by_edges = frontier.edges.div_ceil(FUSED_EDGES_PER_LANE);
    u64::from(frontier.vertices).max(by_edges).max(1)
}

/// Lanes a fused launch over `frontier` asks for: what it fills times
/// [`FUSED_GROWTH`].
pub(crate) fn fused_lanes(frontier: FrontierSize) -> u64 {
    frontier_lanes(frontier).saturating_mul(FUSED_GROWTH)
}

/// The cluster launch for a fused command over `frontier`, where the device
/// has one that runs the graph and the frontier asks for more lanes than
/// one workgroup (whose own barrier is cheaper still) and fills at most
/// 1 / [`CLUSTER_GROWTH`] of the cluster: its levels meet at the cluster's
/// barrier, a fraction of the cost of one through device memory
/// (docs/BENCHMARKS.md). Its band is what its lanes cover
/// ([`grid_band_max_frontier_edges`]), and a frontier that outgrows it is
/// handed to a wider grid.
pub(crate) fn fused_cluster(
    frontier: FrontierSize,
    caps: &DeviceCapabilities,
) -> Option<LaunchShape> {
    let cluster = caps.fused_cluster;
    let wider_than_one = fused_lanes(frontier) > u64::from(caps.resident_workgroup_size);
    let fits = frontier_lanes(frontier).saturating_mul(CLUSTER_GROWTH) <= cluster.lanes();
    (cluster.runs(frontier.graph_max_out_degree) && wider_than_one && fits)
        .then(|| cluster.launch())
}

/// Frontier out-edges above which a command of `topology` launched as
/// `launch` hands back because its grid is too narrow: what a fused grid
/// short of every resident workgroup covers, and no limit otherwise.
#[must_use]
pub(crate) fn grid_band_max_frontier_edges(
    topology: MegakernelExecutionTopology,
    launch: &LaunchShape,
    caps: &DeviceCapabilities,
) -> u64 {
    if topology != MegakernelExecutionTopology::FusedWave
        || launch.workgroups() >= u64::from(caps.resident_workgroups)
    {
        return u64::MAX;
    }
    launch
        .workgroups()
        .saturating_mul(u64::from(launch.workgroup_size_x))
        .saturating_mul(FUSED_EDGES_PER_LANE)
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::LevelSizing;

    use super::*;
    use crate::plan::grid::launch::tests::caps;

    fn frontier(vertices: u32, edges: u64) -> FrontierSize {
        FrontierSize {
            graph_max_out_degree: 3,
            vertices,
            edges,
            graph_vertices: 1 << 20,
            graph_edges: 1 << 22,
        }
    }

    fn launch(workgroups: u32) -> LaunchShape {
        LaunchShape {
            cluster: false,
            workgroup_size_x: 256,
            dispatch_grid: [workgroups, 1, 1],
            slots_per_lane: 1,
            later: LevelSizing {
                edges_per_lane: 0,
                max_workgroups: workgroups,
            },
        }
    }

    #[test]
    fn lanes_cover_the_frontier_with_room_to_grow() {
        // One vertex of a chain: the minimum, times the growth.
        assert_eq!(fused_lanes(frontier(1, 1)), FUSED_GROWTH);
        assert_eq!(fused_lanes(frontier(0, 0)), FUSED_GROWTH);
        // Edges dominate: 1 000 edges -> 500 lanes of 2, times 4.
        assert_eq!(fused_lanes(frontier(100, 1_000)), 2_000);
        // Vertices without edges still get a lane each.
        assert_eq!(fused_lanes(frontier(3_000, 10)), 12_000);
        assert_eq!(
            fused_lanes(frontier(u32::MAX, u64::MAX)),
            u64::MAX,
            "saturates instead of overflowing"
        );
    }

    fn cluster_caps(light_degree: u32) -> DeviceCapabilities {
        DeviceCapabilities {
            resident_workgroups: 528,
            resident_workgroup_size: 256,
            fused_cluster: vyre_driver::backend::FusedCluster {
                workgroups: 16,
                workgroup_size: 1024,
                light_degree,
            },
            ..caps()
        }
    }

    #[test]
    fn a_cluster_takes_frontiers_wider_than_a_workgroup_that_fill_half_of_it() {
        let caps = cluster_caps(32);
        // 64 lanes times 4 fit one workgroup of 256: no cluster.
        assert_eq!(fused_cluster(frontier(64, 100), &caps), None);
        // 65 lanes times 4 do not.
        let launch = fused_cluster(frontier(65, 100), &caps).expect("a cluster launch");
        assert!(launch.cluster);
        assert_eq!(launch.dispatch_grid, [16, 1, 1]);
        assert_eq!(launch.workgroup_size_x, 1024);
        assert_eq!(launch.later.max_workgroups, 16);
        // Half of 16 x 1024 lanes: 8 192 vertices, or 16 384 out-edges.
        assert!(fused_cluster(frontier(8_192, 16_384), &caps).is_some());
        assert_eq!(fused_cluster(frontier(8_193, 100), &caps), None);
        assert_eq!(fused_cluster(frontier(100, 16_385), &caps), None);
    }

    #[test]
    fn no_cluster_for_heavy_vertices_or_without_one() {
        let mut heavy = frontier(1_000, 4_000);
        heavy.graph_max_out_degree = 32;
        assert_eq!(fused_cluster(heavy, &cluster_caps(32)), None);
        heavy.graph_max_out_degree = 31;
        assert!(fused_cluster(heavy, &cluster_caps(32)).is_some());
        assert_eq!(fused_cluster(heavy, &cluster_caps(0)), None);
        let none = DeviceCapabilities {
            fused_cluster: vyre_driver::backend::FusedCluster::NONE,
            ..cluster_caps(32)
        };
        assert_eq!(fused_cluster(heavy, &none), None);
    }

    #[test]
    fn a_cluster_launch_bands_at_what_its_lanes_cover() {
        let caps = cluster_caps(32);
        let launch = fused_cluster(frontier(1_000, 4_000), &caps).unwrap();
        let fused = MegakernelExecutionTopology::FusedWave;
        assert_eq!(
            grid_band_max_frontier_edges(fused, &launch, &caps),
            16 * 1024 * FUSED_EDGES_PER_LANE
        );
    }

    #[test]
    fn a_narrow_fused_grid_bands_at_what_it_covers_and_a_full_one_does_not() {
        let caps = DeviceCapabilities {
            resident_workgroups: 660,
            ..caps()
        };
        let fused = MegakernelExecutionTopology::FusedWave;
        assert_eq!(grid_band_max_frontier_edges(fused, &launch(1), &caps), 512);
        assert_eq!(
            grid_band_max_frontier_edges(fused, &launch(10), &caps),
            5_120
        );
        assert_eq!(
            grid_band_max_frontier_edges(fused, &launch(660), &caps),
            u64::MAX
        );
        let sparse = MegakernelExecutionTopology::SparseFrontier;
        assert_eq!(
            grid_band_max_frontier_edges(sparse, &launch(1), &caps),
            u64::MAX
        );
    }
}
