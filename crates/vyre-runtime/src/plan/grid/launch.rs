//! The engine's launch shape for each command: the first level's grid, the
//! rule later levels of a chain are sized by, and a fused launch's width.

use vyre_driver::backend::{
    BackendError, DeviceCapabilities, EDGES_PER_LANE, LaunchShape, LevelSizing, MAX_GRID_SLOTS,
    edge_balanced_slots, is_edge_balanced, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use super::fused::{fused_cluster, fused_lanes};
use super::types::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

/// The frontier a launch is sized for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrontierSize {
    /// Vertices in the frontier.
    pub vertices: u32,
    /// Their out-edges.
    pub edges: u64,
    /// Vertices in the graph.
    pub graph_vertices: u32,
    /// Stored edges in the graph.
    pub graph_edges: u64,
    /// The graph's largest out-degree.
    pub graph_max_out_degree: u32,
}

/// The launch of a command of `topology` over `frontier`.
///
/// - First level: [`ResidentGridPlan::recommend`] over the level's slots.
///   Edge-balanced topologies (sparse, hybrid) get lanes for the frontier's
///   out-edges too (one per edge while they fit on the device, else
///   [`EDGES_PER_LANE`] each: [`edges_per_lane`]), so a frontier of a few
///   hubs still spreads its edges. No topology gets more than the lanes the
///   device holds at once (`resident_lanes`, when reported): workgroups
///   beyond those add per-workgroup cost (each one's share of the level's
///   counters) and no parallelism, and every kernel strides over the slots
///   its grid does not cover.
/// - Later levels of a chain: [`LevelSizing`] with the same edges per lane,
///   at most what a frontier of every vertex and edge could use, and no more
///   than the device holds at once.
/// - A fused launch is persistent: it asks for the workgroups of the width
///   its kernel was compiled for that its frontier needs with room to grow
///   ([`super::fused`]), at most every resident one (the planner never
///   grants more than asked).
pub(crate) fn size_launch(
    topology: MegakernelExecutionTopology,
    frontier: FrontierSize,
    caps: &DeviceCapabilities,
) -> Result<LaunchShape, BackendError> {
    let vertex_count = frontier.graph_vertices;
    let device_lanes = match caps.resident_lanes {
        0 => u32::MAX,
        lanes => lanes,
    };
    let balanced = is_edge_balanced(topology);
    let edges_per_lane = edges_per_lane(frontier.edges, caps);
    let slots_of = |vertices: u32, edges: u64| {
        let by_vertices = slots_for(topology, vertices, vertex_count).max(1);
        if balanced {
            by_vertices.max(edge_balanced_slots(edges, edges_per_lane).min(device_lanes))
        } else {
            by_vertices
        }
    };
    let slots = slots_of(frontier.vertices, frontier.edges).min(MAX_GRID_SLOTS);
    let fused = topology == MegakernelExecutionTopology::FusedWave;
    if fused && let Some(cluster) = fused_cluster(frontier, caps) {
        return Ok(cluster);
    }
    let (limits, request) = if fused {
        let limits = ResidentGridLimits::new(
            caps.resident_workgroup_size,
            caps.max_compute_workgroups_per_dimension,
            caps.max_compute_invocations_per_workgroup,
        );
        let resident_slots = caps
            .resident_workgroups
            .saturating_mul(caps.resident_workgroup_size);
        // Lanes for the frontier's growth, and slots for every vertex of
        // its first level: a frontier wider than the resident lanes gets
        // them all, each striding over several slots.
        let lanes = fused_lanes(frontier).min(u64::from(resident_slots)) as u32;
        (
            limits,
            ResidentGridRequest::new(slots.max(lanes), caps.resident_workgroups),
        )
    } else {
        let limits = ResidentGridLimits::new(
            caps.max_workgroup_size_x,
            caps.max_compute_workgroups_per_dimension,
            caps.max_compute_invocations_per_workgroup,
        );
        (limits, ResidentGridRequest::new(slots, 0))
    };
    let mut plan = ResidentGridPlan::recommend(request, limits)?;
    let width = plan.geometry.workgroup_size_x;
    let device_full = match caps.resident_lanes {
        0 => u32::MAX,
        lanes => (lanes / width).max(1),
    };
    if !fused && plan.worker_groups > device_full {
        // The same slots on the workgroups the device holds at once: each
        // lane strides over more of them.
        plan = ResidentGridPlan::recommend(
            ResidentGridRequest::new(request.queue_len, device_full),
            limits,
        )?;
    }
    let largest_level = slots_of(vertex_count, frontier.graph_edges).div_ceil(width);
    let max_workgroups = largest_level
        .min(device_full)
        .clamp(1, limits.max_compute_workgroups_per_dimension);
    Ok(LaunchShape {
        cluster: false,
        workgroup_size_x: width,
        dispatch_grid: plan.geometry.dispatch_grid,
        slots_per_lane: plan.geometry.slots_per_lane(),
        later: LevelSizing {
            edges_per_lane: if balanced { edges_per_lane } else { 0 },
            max_workgroups,
        },
    })
}

/// The workgroup widths of the per-wave commands `size_launch` gives on a
/// graph of `graph_vertices` and `graph_edges` (and so of their frontier
/// conversions), each once: every per-wave topology, from the smallest
/// frontier to the whole graph. The width comes from the device's limits,
/// not the frontier, so on every device seen this is one width.
pub(crate) fn per_wave_widths(
    graph_vertices: u32,
    graph_edges: u64,
    caps: &DeviceCapabilities,
) -> Result<Vec<u32>, BackendError> {
    use MegakernelExecutionTopology as T;
    let mut widths = Vec::new();
    for topology in [
        T::WarpSparseFrontier,
        T::SparseFrontier,
        T::HybridFrontier,
        T::DenseFrontier,
        T::BlockDenseFrontier,
    ] {
        for (vertices, edges) in [(1, 1), (graph_vertices.max(1), graph_edges.max(1))] {
            let frontier = FrontierSize {
                vertices,
                edges,
                graph_vertices,
                graph_edges,
                // Per-wave widths do not depend on the degrees.
                graph_max_out_degree: u32::MAX,
            };
            let width = size_launch(topology, frontier, caps)?.workgroup_size_x;
            if !widths.contains(&width) {
                widths.push(width);
            }
        }
    }
    Ok(widths)
}

/// Edges one lane of an edge-balanced command expands: one while the
/// frontier's out-edges fit on the lanes the device holds at once, since
/// such a level is latency-bound (each further edge a lane walks waits for
/// the one before it), otherwise [`EDGES_PER_LANE`]. A device that does not
/// report its resident lanes gets [`EDGES_PER_LANE`].
fn edges_per_lane(frontier_edges: u64, caps: &DeviceCapabilities) -> u32 {
    if caps.resident_lanes != 0 && frontier_edges <= u64::from(caps.resident_lanes) {
        1
    } else {
        EDGES_PER_LANE
    }
}

#[cfg(test)]
pub(super) mod tests {
    use vyre_driver::backend::{SearchPosition, WaveCommand};
    use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;

    use super::*;

    /// A device without a barrier or a resident count.
    pub(in crate::plan::grid) fn caps() -> DeviceCapabilities {
        DeviceCapabilities {
            fused_cluster: vyre_driver::backend::FusedCluster::NONE,
            device_name: "test".into(),
            megakernel: MegakernelDeviceCapabilities::FUSION_INCAPABLE,
            barrier_reason: "none".into(),
            batch_fused_wave: false,
            max_workgroup_size_x: 1024,
            max_compute_workgroups_per_dimension: 65_535,
            max_compute_invocations_per_workgroup: 1024,
            subgroup_size: 32,
            workgroup_width_multiple: 32,
            resident_lanes: 0,
            resident_workgroups: 0,
            resident_workgroup_size: 0,
            memory_budget_bytes: u64::MAX,
            max_binding_bytes: u64::MAX,
            max_edge_segments: 1,
            offset_bytes: 8,
            needs_readback_staging: false,
            launch_overhead_ns: 0.0,
            device_timestamps: false,
        }
    }

    #[test]
    fn a_saturated_slot_count_keeps_whole_subgroups_and_passes_the_check() {
        // 200 M frontier vertices x 32 lanes saturate u32.
        let vertices = 200_000_000;
        let frontier = FrontierSize {
            graph_max_out_degree: 3,
            vertices,
            edges: 3_200_000_000,
            graph_vertices: u32::MAX - 1,
            graph_edges: 1 << 36,
        };
        let topology = MegakernelExecutionTopology::WarpSparseFrontier;
        let launch = size_launch(topology, frontier, &caps()).unwrap();
        assert_eq!(launch.workgroup_size_x, 256);
        let layout = vyre_driver::backend::DeviceLayout {
            max_out_degree: 3,
            vertex_count: u32::MAX - 1,
            edge_count: 1 << 36,
            offset_bytes: 8,
            out_edges: vyre_driver::backend::EdgeSegments {
                edges_per_segment: 1 << 36,
                segment_count: 1,
                edge_count: 1 << 36,
            },
            in_edges: None,
            max_levels_per_command: 1,
            readback_staging: false,
        };
        let command = WaveCommand {
            topology,
            position: SearchPosition {
                level: 1,
                frontier_len: vertices,
                frontier_edges: frontier.edges,
                form: vyre_driver::backend::FrontierForm::Queue,
                buffer: 0,
            },
            max_levels: 1,
            launch,
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u32::MAX,
        };
        command.check(&caps(), &layout).unwrap();
    }

    #[test]
    fn a_fused_launch_covers_its_first_frontier_however_wide() {
        let device = DeviceCapabilities {
            megakernel: MegakernelDeviceCapabilities::FUSION_CAPABLE,
            resident_lanes: 1_056 * 256,
            resident_workgroups: 1_056,
            resident_workgroup_size: 256,
            ..caps()
        };
        let layout = vyre_driver::backend::DeviceLayout {
            max_out_degree: 3,
            vertex_count: 1 << 22,
            edge_count: 1 << 26,
            offset_bytes: 8,
            out_edges: vyre_driver::backend::EdgeSegments {
                edges_per_segment: 1 << 26,
                segment_count: 1,
                edge_count: 1 << 26,
            },
            in_edges: None,
            max_levels_per_command: 1024,
            readback_staging: false,
        };
        // From one vertex to more vertices than the device's resident lanes
        // (718,476 > 270,336: a Kronecker level the policy once fused).
        for (vertices, edges) in [
            (1, 2),
            (5_000, 20_000),
            (718_476, 1 << 22),
            (1 << 22, 1 << 26),
        ] {
            let frontier = FrontierSize {
                graph_max_out_degree: 3,
                vertices,
                edges,
                graph_vertices: 1 << 22,
                graph_edges: 1 << 26,
            };
            let topology = MegakernelExecutionTopology::FusedWave;
            let launch = size_launch(topology, frontier, &device).unwrap();
            assert!(launch.workgroups() <= 1_056, "{launch:?}");
            let command = WaveCommand {
                topology,
                position: SearchPosition {
                    level: 2,
                    frontier_len: vertices,
                    frontier_edges: edges,
                    form: vyre_driver::backend::FrontierForm::Queue,
                    buffer: 0,
                },
                max_levels: 1024,
                launch,
                band_max_frontier_edges: u64::MAX,
                band_max_frontier_vertices: u32::MAX,
            };
            command
                .check(&device, &layout)
                .unwrap_or_else(|e| panic!("{vertices} vertices: {e}"));
        }
    }

    #[test]
    fn no_first_level_gets_more_workgroups_than_the_device_holds() {
        let device = DeviceCapabilities {
            resident_lanes: 660 * 256,
            ..caps()
        };
        let graph_vertices = 1 << 24;
        for topology in MegakernelExecutionTopology::ALL {
            if topology == MegakernelExecutionTopology::FusedWave {
                continue;
            }
            let frontier = FrontierSize {
                graph_max_out_degree: 3,
                vertices: 1 << 22,
                edges: 1 << 27,
                graph_vertices,
                graph_edges: 1 << 29,
            };
            let launch = size_launch(topology, frontier, &device).unwrap();
            let lanes = launch.workgroups() * u64::from(launch.workgroup_size_x);
            assert!(lanes <= 660 * 256, "{topology:?}: {launch:?}");
            // The lanes stride over every slot of the level.
            let slots = u64::from(slots_for(topology, frontier.vertices, graph_vertices));
            assert!(
                lanes * u64::from(launch.slots_per_lane) >= slots,
                "{topology:?}: {launch:?}"
            );
        }
        // Without a reported count, a dense level gets a lane per vertex.
        let frontier = FrontierSize {
            graph_max_out_degree: 3,
            vertices: 10,
            edges: 100,
            graph_vertices: 1 << 20,
            graph_edges: 1 << 24,
        };
        let dense = size_launch(
            MegakernelExecutionTopology::DenseFrontier,
            frontier,
            &caps(),
        );
        assert_eq!(dense.unwrap().workgroups(), (1 << 20) / 256);
    }

    #[test]
    fn a_frontier_that_fits_on_the_device_gets_a_lane_per_edge() {
        let lanes = 660 * 256;
        let device = DeviceCapabilities {
            resident_lanes: lanes,
            ..caps()
        };
        let sparse = MegakernelExecutionTopology::SparseFrontier;
        let frontier = |edges: u64| FrontierSize {
            graph_max_out_degree: 3,
            vertices: 11,
            edges,
            graph_vertices: 1 << 22,
            graph_edges: 1 << 26,
        };
        for (edges, per_lane) in [
            (16_000, 1),
            (u64::from(lanes), 1),
            (u64::from(lanes) + 1, EDGES_PER_LANE),
        ] {
            let launch = size_launch(sparse, frontier(edges), &device).unwrap();
            assert_eq!(launch.later.edges_per_lane, per_lane, "{edges} edges");
            let covered = launch.workgroups() * u64::from(launch.workgroup_size_x);
            assert!(
                covered * u64::from(per_lane) >= edges,
                "{edges} edges: {launch:?}"
            );
        }
        // Topologies sized by vertices alone have no such rule; a device
        // that does not report its resident lanes keeps EDGES_PER_LANE.
        let dense = MegakernelExecutionTopology::DenseFrontier;
        let launch = size_launch(dense, frontier(100), &device).unwrap();
        assert_eq!(launch.later.edges_per_lane, 0);
        let launch = size_launch(sparse, frontier(100), &caps()).unwrap();
        assert_eq!(launch.later.edges_per_lane, EDGES_PER_LANE);
    }
}
