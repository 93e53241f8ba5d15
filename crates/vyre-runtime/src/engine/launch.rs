//! Sizing one command's launch with the resident grid planner.

use vyre_driver::backend::{
    BackendError, DeviceCapabilities, LaunchShape, edge_balanced_slots, slots_for,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use crate::megakernel::planner::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

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
}

/// The launch for the first level of a command of `topology` over
/// `frontier`. Edge-balanced topologies (sparse, hybrid) are sized by the
/// frontier's out-edges, so a frontier of a few hubs still gets a grid wide
/// enough to share their edges; but never past the lanes the device holds at
/// once (when the backend reports them), because workgroups beyond those add
/// per-workgroup cost and no parallelism: on the H200 a frontier of 400 M
/// edges sized by edges alone asked for 390,000 blocks and ran 2.5x slower.
///
/// A fused launch is persistent: it asks for every resident workgroup of the
/// width its kernel was compiled for (the planner never grants more than
/// asked), because its frontier may grow inside the launch.
pub(crate) fn size_launch(
    topology: MegakernelExecutionTopology,
    frontier: FrontierSize,
    caps: &DeviceCapabilities,
) -> Result<LaunchShape, BackendError> {
    let vertex_count = frontier.graph_vertices;
    let device_lanes = match caps
        .resident_workgroups
        .saturating_mul(caps.resident_workgroup_size)
    {
        0 => u32::MAX,
        lanes => lanes,
    };
    let slots_of = |vertices: u32, edges: u64| {
        let by_vertices = slots_for(topology, vertices, vertex_count).max(1);
        match topology {
            MegakernelExecutionTopology::SparseFrontier
            | MegakernelExecutionTopology::HybridFrontier => {
                by_vertices.max(edge_balanced_slots(edges).min(device_lanes))
            }
            _ => by_vertices,
        }
    };
    let slots = slots_of(frontier.vertices, frontier.edges);
    let (limits, request) = if topology == MegakernelExecutionTopology::FusedWave {
        let limits = ResidentGridLimits::new(
            caps.resident_workgroup_size,
            caps.max_compute_workgroups_per_dimension,
            caps.max_compute_invocations_per_workgroup,
        );
        let resident_slots = caps
            .resident_workgroups
            .saturating_mul(caps.resident_workgroup_size);
        (
            limits,
            ResidentGridRequest::new(slots.max(resident_slots), caps.resident_workgroups),
        )
    } else {
        let limits = ResidentGridLimits::new(
            caps.max_workgroup_size_x,
            caps.max_compute_workgroups_per_dimension,
            caps.max_compute_invocations_per_workgroup,
        );
        (limits, ResidentGridRequest::new(slots, 0))
    };
    let plan = ResidentGridPlan::recommend(request, limits)?;
    let width = plan.geometry.workgroup_size_x;
    // Levels sized on the device never need more workgroups than a frontier
    // of every vertex (and edge) would.
    let most_slots = slots_of(vertex_count, frontier.graph_edges);
    let most_workgroups = most_slots.div_ceil(width).max(plan.worker_groups);
    Ok(LaunchShape {
        workgroup_size_x: width,
        dispatch_grid: plan.geometry.dispatch_grid,
        slots_per_lane: plan.geometry.slots_per_lane(),
        max_workgroups: most_workgroups.min(limits.max_compute_workgroups_per_dimension),
    })
}
