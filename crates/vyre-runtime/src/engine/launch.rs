//! Sizing one command's launch with the resident grid planner.

use vyre_driver::backend::{BackendError, DeviceCapabilities, LaunchShape, slots_for};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

use crate::megakernel::planner::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

/// The launch for the first level of a command of `topology` over a frontier
/// of `frontier_len` vertices.
///
/// A fused launch is persistent: it asks for every resident workgroup of the
/// width its kernel was compiled for (the planner never grants more than
/// asked), because its frontier may grow inside the launch.
pub(crate) fn size_launch(
    topology: MegakernelExecutionTopology,
    frontier_len: u32,
    vertex_count: u32,
    caps: &DeviceCapabilities,
) -> Result<LaunchShape, BackendError> {
    let slots = slots_for(topology, frontier_len, vertex_count).max(1);
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
    // of every vertex would.
    let most_slots = slots_for(topology, vertex_count, vertex_count).max(1);
    let most_workgroups = most_slots.div_ceil(width).max(plan.worker_groups);
    Ok(LaunchShape {
        workgroup_size_x: width,
        dispatch_grid: plan.geometry.dispatch_grid,
        slots_per_lane: plan.geometry.slots_per_lane(),
        max_workgroups: most_workgroups.min(limits.max_compute_workgroups_per_dimension),
    })
}
