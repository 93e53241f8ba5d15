//! Megakernel grid request, limits, plan cache, and recommendation surface.

use std::cell::RefCell;

use vyre_driver::backend::BackendError;

use super::cache::BoundedLru;
use super::geometry::ResidentLaunchGeometry;
use super::sizing::ResidentSizingPolicy;

/// Entries each plan cache holds before evicting the least recently used.
pub(super) const GRID_PLAN_CACHE_CAP: usize = 128;

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
        let key = (request, limits);
        if let Some(plan) = PLANNER_CACHE.with(|cache| cache.borrow_mut().get_grid_plan(&key)) {
            return Ok(plan);
        }
        let plan = ResidentSizingPolicy::standard().calculate_optimal_grid(request, limits)?;
        PLANNER_CACHE.with(|cache| cache.borrow_mut().insert_grid_plan(key, plan));
        Ok(plan)
    }
}

/// Hit and miss counts of this thread's plan caches since the thread began.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlannerCacheStats {
    /// [`ResidentGridPlan::recommend`] calls answered from the cache.
    pub grid_hits: u64,
    /// [`ResidentGridPlan::recommend`] calls that had to size the grid.
    pub grid_misses: u64,
    /// Geometry lookups answered from the cache.
    pub geometry_hits: u64,
    /// Geometry lookups that had to compute the geometry.
    pub geometry_misses: u64,
    /// Grid plans held now (at most 128).
    pub grid_entries: usize,
    /// Geometries held now (at most 128).
    pub geometry_entries: usize,
}

/// This thread's plan-cache counters (the caches are per thread; see the
/// module documentation).
#[must_use]
pub fn planner_cache_stats() -> PlannerCacheStats {
    PLANNER_CACHE.with(|cache| cache.borrow().stats())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GeometryCacheKey {
    slot_count: u32,
    worker_count: u32,
    max_workgroup_size_x: u32,
}

type GridKey = (ResidentGridRequest, ResidentGridLimits);

/// The two plan caches one thread keeps.
struct MegakernelPlannerCache {
    grid_plans: BoundedLru<GridKey, ResidentGridPlan>,
    geometries: BoundedLru<GeometryCacheKey, ResidentLaunchGeometry>,
}

impl Default for MegakernelPlannerCache {
    fn default() -> Self {
        Self {
            grid_plans: BoundedLru::with_capacity(GRID_PLAN_CACHE_CAP),
            geometries: BoundedLru::with_capacity(GRID_PLAN_CACHE_CAP),
        }
    }
}

impl MegakernelPlannerCache {
    fn get_grid_plan(&mut self, key: &GridKey) -> Option<ResidentGridPlan> {
        self.grid_plans.get(key)
    }

    fn insert_grid_plan(&mut self, key: GridKey, value: ResidentGridPlan) {
        self.grid_plans.insert(key, value);
    }

    fn get_geometry(&mut self, key: &GeometryCacheKey) -> Option<ResidentLaunchGeometry> {
        self.geometries.get(key)
    }

    fn insert_geometry(&mut self, key: GeometryCacheKey, value: ResidentLaunchGeometry) {
        self.geometries.insert(key, value);
    }

    fn stats(&self) -> PlannerCacheStats {
        let (grid_hits, grid_misses) = self.grid_plans.hits_and_misses();
        let (geometry_hits, geometry_misses) = self.geometries.hits_and_misses();
        PlannerCacheStats {
            grid_hits,
            grid_misses,
            geometry_hits,
            geometry_misses,
            grid_entries: self.grid_plans.len(),
            geometry_entries: self.geometries.len(),
        }
    }
}

thread_local! {
    static PLANNER_CACHE: RefCell<MegakernelPlannerCache> =
        RefCell::new(MegakernelPlannerCache::default());
}

/// [`ResidentSizingPolicy::geometry_from_slots`] of the standard policy,
/// through this thread's geometry cache.
pub(super) fn cached_geometry(
    slot_count: u32,
    worker_count: u32,
    max_workgroup_size_x: u32,
) -> ResidentLaunchGeometry {
    let key = GeometryCacheKey {
        slot_count,
        worker_count,
        max_workgroup_size_x,
    };
    if let Some(geometry) = PLANNER_CACHE.with(|cache| cache.borrow_mut().get_geometry(&key)) {
        return geometry;
    }
    let geometry = ResidentSizingPolicy::standard().geometry_from_slots(
        slot_count,
        worker_count,
        max_workgroup_size_x,
    );
    PLANNER_CACHE.with(|cache| cache.borrow_mut().insert_geometry(key, geometry));
    geometry
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ResidentGridLimits {
        ResidentGridLimits::new(256, 65_535, 256)
    }

    fn request(queue_len: u32) -> ResidentGridRequest {
        ResidentGridRequest::new(queue_len, 0)
    }

    fn geometry(slot_count: u32) -> ResidentLaunchGeometry {
        ResidentLaunchGeometry {
            workgroup_size_x: 1,
            slot_count,
            dispatch_grid: [1, 1, 1],
        }
    }

    #[test]
    fn planner_grid_cache_refreshes_hot_plan_on_hit() {
        let mut cache = MegakernelPlannerCache::default();
        let limits = limits();
        let hot_key = (request(1), limits);
        let hot_plan = ResidentGridPlan {
            geometry: geometry(1),
            worker_groups: 1,
        };
        cache.insert_grid_plan(hot_key, hot_plan);
        for queue_len in 2..=GRID_PLAN_CACHE_CAP as u32 {
            cache.insert_grid_plan(
                (request(queue_len), limits),
                ResidentGridPlan {
                    geometry: geometry(queue_len),
                    worker_groups: 1,
                },
            );
        }
        assert_eq!(cache.get_grid_plan(&hot_key), Some(hot_plan));
        cache.insert_grid_plan(
            (request((GRID_PLAN_CACHE_CAP + 1) as u32), limits),
            ResidentGridPlan {
                geometry: geometry((GRID_PLAN_CACHE_CAP + 1) as u32),
                worker_groups: 1,
            },
        );
        assert_eq!(cache.get_grid_plan(&hot_key), Some(hot_plan));
    }

    #[test]
    fn planner_geometry_cache_refreshes_hot_geometry_on_hit() {
        let mut cache = MegakernelPlannerCache::default();
        let hot_key = GeometryCacheKey {
            slot_count: 1,
            worker_count: 1,
            max_workgroup_size_x: 256,
        };
        let hot_geometry = geometry(1);
        cache.insert_geometry(hot_key, hot_geometry);
        for slot_count in 2..=GRID_PLAN_CACHE_CAP as u32 {
            cache.insert_geometry(
                GeometryCacheKey {
                    slot_count,
                    worker_count: 1,
                    max_workgroup_size_x: 256,
                },
                geometry(slot_count),
            );
        }
        assert_eq!(cache.get_geometry(&hot_key), Some(hot_geometry));
        cache.insert_geometry(
            GeometryCacheKey {
                slot_count: (GRID_PLAN_CACHE_CAP + 1) as u32,
                worker_count: 1,
                max_workgroup_size_x: 256,
            },
            geometry((GRID_PLAN_CACHE_CAP + 1) as u32),
        );
        assert_eq!(cache.get_geometry(&hot_key), Some(hot_geometry));
    }

    #[test]
    fn without_a_hit_the_oldest_plan_is_evicted() {
        let mut cache = MegakernelPlannerCache::default();
        for queue_len in 1..=(GRID_PLAN_CACHE_CAP + 1) as u32 {
            cache.insert_grid_plan(
                (request(queue_len), limits()),
                ResidentGridPlan {
                    geometry: geometry(queue_len),
                    worker_groups: 1,
                },
            );
        }
        assert_eq!(cache.get_grid_plan(&(request(1), limits())), None);
        assert!(cache.get_grid_plan(&(request(2), limits())).is_some());
        assert_eq!(cache.stats().grid_entries, GRID_PLAN_CACHE_CAP);
    }

    #[test]
    fn zero_limits_are_refused_and_not_cached() {
        let before = planner_cache_stats();
        for bad in [
            ResidentGridLimits::new(0, 65_535, 256),
            ResidentGridLimits::new(256, 0, 256),
            ResidentGridLimits::new(256, 65_535, 0),
        ] {
            let err = ResidentGridPlan::recommend(request(10), bad).unwrap_err();
            assert!(
                err.message()
                    .ends_with("Fix: pass live adapter limits instead of a zero limit.")
            );
            // The second call misses again: the error was not cached.
            assert!(ResidentGridPlan::recommend(request(10), bad).is_err());
        }
        let after = planner_cache_stats();
        assert_eq!(after.grid_misses - before.grid_misses, 6);
        assert_eq!(after.grid_hits, before.grid_hits);
        assert_eq!(after.grid_entries, before.grid_entries);
    }

    #[test]
    fn validate_names_the_zero_limit() {
        let err = ResidentGridLimits::new(256, 0, 256).validate().unwrap_err();
        assert_eq!(
            err.message(),
            "megakernel max_compute_workgroups_per_dimension must be non-zero. Fix: pass live adapter limits instead of a zero limit."
        );
    }
}
