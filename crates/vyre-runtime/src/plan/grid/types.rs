//! The grid planner's inputs (device limits, the work to cover) and its
//! answer.

use vyre_driver::backend::BackendError;

use super::geometry::ResidentLaunchGeometry;

/// Adapter limits that bound a megakernel worker-grid recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResidentGridLimits {
    /// Adapter maximum workgroup size in the x dimension.
    pub max_workgroup_size_x: u32,
    /// Adapter maximum compute workgroups per dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// Adapter maximum invocations per compute workgroup.
    pub max_compute_invocations_per_workgroup: u32,
}

impl ResidentGridLimits {
    /// Construct megakernel grid limits from backend adapter limits.
    #[must_use]
    pub const fn new(
        max_workgroup_size_x: u32,
        max_compute_workgroups_per_dimension: u32,
        max_compute_invocations_per_workgroup: u32,
    ) -> Self {
        Self {
            max_workgroup_size_x,
            max_compute_workgroups_per_dimension,
            max_compute_invocations_per_workgroup,
        }
    }

    /// Check that every limit is usable.
    ///
    /// # Errors
    ///
    /// [`BackendError`] naming the first limit that is zero.
    pub fn validate(self) -> Result<(), BackendError> {
        let checks = [
            (self.max_workgroup_size_x, "max_workgroup_size_x"),
            (
                self.max_compute_workgroups_per_dimension,
                "max_compute_workgroups_per_dimension",
            ),
            (
                self.max_compute_invocations_per_workgroup,
                "max_compute_invocations_per_workgroup",
            ),
        ];
        for (value, name) in checks {
            if value == 0 {
                return Err(BackendError::new(format!(
                    "megakernel {name} must be non-zero. Fix: pass live adapter limits instead of a zero limit."
                )));
            }
        }
        Ok(())
    }
}

/// Logical work shape requested for a megakernel worker-grid recommendation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResidentGridRequest {
    /// Logical ring slots or work items queued for this launch.
    pub queue_len: u32,
    /// Caller-requested worker workgroup ceiling. Zero means derive from occupancy.
    pub requested_worker_groups: u32,
}

impl ResidentGridRequest {
    /// Construct a worker-grid request.
    #[must_use]
    pub const fn new(queue_len: u32, requested_worker_groups: u32) -> Self {
        Self {
            queue_len,
            requested_worker_groups,
        }
    }
}

/// Resolved worker-grid plan shared by direct and policy-driven megakernel paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResidentGridPlan {
    /// Padded launch geometry for the ring protocol.
    pub geometry: ResidentLaunchGeometry,
    /// Worker workgroups selected for the dispatch.
    pub worker_groups: u32,
}
