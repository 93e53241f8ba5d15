//! The seed's module path to the grid planner, which lives in
//! [`crate::plan::grid`].

/// Launch planning for persistent megakernel waves: how wide a workgroup is,
/// how many workgroups run, and how many queued slots each lane processes.
pub mod planner {
    pub use crate::plan::grid::{
        PlannerCacheStats, ResidentGridLimits, ResidentGridPlan, ResidentGridRequest,
        ResidentLaunchGeometry, ResidentSizingPolicy, planner_cache_stats,
    };
}
