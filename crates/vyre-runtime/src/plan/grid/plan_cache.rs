//! The two per-thread plan caches (grid plans and geometries), each bounded
//! to [`GRID_PLAN_CACHE_CAP`] entries with least-recently-used eviction.
//! Lookups take the computation to run on a miss, so this module needs no
//! sizing rule of its own.

use std::cell::RefCell;

use super::geometry::ResidentLaunchGeometry;
use super::lru::BoundedLru;
use super::types::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

/// Entries each plan cache holds before evicting the least recently used.
pub(super) const GRID_PLAN_CACHE_CAP: usize = 128;

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

/// The cached grid plan for `(request, limits)`, or `plan()`'s answer, which
/// is cached when it is `Ok` (errors never are).
pub(super) fn grid_plan<E>(
    request: ResidentGridRequest,
    limits: ResidentGridLimits,
    plan: impl FnOnce() -> Result<ResidentGridPlan, E>,
) -> Result<ResidentGridPlan, E> {
    let key = (request, limits);
    if let Some(hit) = PLANNER_CACHE.with(|cache| cache.borrow_mut().get_grid_plan(&key)) {
        return Ok(hit);
    }
    let fresh = plan()?;
    PLANNER_CACHE.with(|cache| cache.borrow_mut().insert_grid_plan(key, fresh));
    Ok(fresh)
}

/// The cached geometry for `slot_count` slots on `worker_count` workgroups
/// of at most `max_workgroup_size_x`, or `compute()`'s answer, cached.
pub(super) fn geometry(
    slot_count: u32,
    worker_count: u32,
    max_workgroup_size_x: u32,
    compute: impl FnOnce() -> ResidentLaunchGeometry,
) -> ResidentLaunchGeometry {
    let key = GeometryCacheKey {
        slot_count,
        worker_count,
        max_workgroup_size_x,
    };
    if let Some(hit) = PLANNER_CACHE.with(|cache| cache.borrow_mut().get_geometry(&key)) {
        return hit;
    }
    let fresh = compute();
    PLANNER_CACHE.with(|cache| cache.borrow_mut().insert_geometry(key, fresh));
    fresh
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
        use crate::plan::grid::ResidentGridPlan;
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
