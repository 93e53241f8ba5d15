//! [`ResidentGridPlan::recommend`]: the cached way to size a grid.

use vyre_driver::backend::BackendError;

use super::plan_cache;
use super::sizing::ResidentSizingPolicy;
use super::types::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

impl ResidentGridPlan {
    /// Resolve worker groups, workgroup width, slot padding, and dispatch grid
    /// with [`ResidentSizingPolicy::standard`], through this thread's plan
    /// cache.
    ///
    /// # Errors
    ///
    /// Returns [`BackendError`] when adapter limits are malformed (a zero
    /// limit). Errors are not cached.
    pub fn recommend(
        request: ResidentGridRequest,
        limits: ResidentGridLimits,
    ) -> Result<Self, BackendError> {
        plan_cache::grid_plan(request, limits, || {
            ResidentSizingPolicy::standard().calculate_optimal_grid(request, limits)
        })
    }
}
