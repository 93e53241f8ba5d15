//! [`ResidentSizingPolicy`]: the rules that turn a queue length and adapter
//! limits into a workgroup width, a padded slot count and a worker count.

use vyre_driver::backend::BackendError;

use super::geometry::ResidentLaunchGeometry;
use super::plan_cache;
use super::types::{ResidentGridLimits, ResidentGridPlan, ResidentGridRequest};

/// Sizing rules for resident megakernel grids.
///
/// - Width: the preferred width (256), clamped to the width and invocation
///   limits and rounded down to a power of two. When padding the queue to a
///   multiple of that width would not fit `u32` (queues within a width of
///   `u32::MAX`), the width is halved until it does; width 1 always fits.
/// - Slots: `max(queue_len, 1)` rounded up to a multiple of the width.
/// - Workers: one workgroup per `width` slots, capped at the per-dimension
///   limit and at a non-zero request (a persistent launch asks for exactly
///   the workgroups that can be resident, and never gets more).
/// - Grid: `[workers, 1, 1]`; lanes stride over whatever slots the grid does
///   not cover ([`ResidentLaunchGeometry::slots_per_lane`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResidentSizingPolicy {
    preferred_workgroup_size_x: u32,
}

impl ResidentSizingPolicy {
    /// Workgroup width the standard policy prefers: wide enough to hide
    /// memory latency, narrow enough that many workgroups are resident per
    /// compute unit on every supported device.
    pub const PREFERRED_WORKGROUP_SIZE_X: u32 = 256;

    /// The policy every plan cache uses.
    #[must_use]
    pub const fn standard() -> Self {
        Self {
            preferred_workgroup_size_x: Self::PREFERRED_WORKGROUP_SIZE_X,
        }
    }

    /// Resolve worker groups, workgroup width, slot padding and dispatch
    /// grid for `request` within `limits` (uncached; the geometry comes from
    /// the per-thread geometry cache).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when a limit is zero.
    pub fn calculate_optimal_grid(
        &self,
        request: ResidentGridRequest,
        limits: ResidentGridLimits,
    ) -> Result<ResidentGridPlan, BackendError> {
        limits.validate()?;
        let width_limit = limits
            .max_workgroup_size_x
            .min(limits.max_compute_invocations_per_workgroup);
        let (width, slot_count) = self.padded_slots(request.queue_len, width_limit);
        let mut worker_groups =
            (slot_count / width).min(limits.max_compute_workgroups_per_dimension);
        if request.requested_worker_groups != 0 {
            worker_groups = worker_groups.min(request.requested_worker_groups);
        }
        // Only the standard policy exists, so the cache's key needs no policy.
        let geometry = plan_cache::geometry(request.queue_len, worker_groups, width_limit, || {
            self.geometry_from_slots(request.queue_len, worker_groups, width_limit)
        });
        Ok(ResidentGridPlan {
            geometry,
            worker_groups,
        })
    }

    /// Launch geometry for `slot_count` queued slots run by `worker_count`
    /// workgroups no wider than `max_workgroup_size_x`.
    ///
    /// The slot count is padded and the width chosen as in the type's rules
    /// (a zero width limit counts as one). A zero `worker_count` means one
    /// workgroup per `width` padded slots. The worker count is used as given:
    /// capping it to the device's per-dimension limit is the caller's job
    /// ([`ResidentSizingPolicy::calculate_optimal_grid`] does it).
    #[must_use]
    pub fn geometry_from_slots(
        &self,
        slot_count: u32,
        worker_count: u32,
        max_workgroup_size_x: u32,
    ) -> ResidentLaunchGeometry {
        let (width, padded) = self.padded_slots(slot_count, max_workgroup_size_x);
        let workers = if worker_count == 0 {
            padded / width
        } else {
            worker_count
        };
        ResidentLaunchGeometry {
            workgroup_size_x: width,
            slot_count: padded,
            dispatch_grid: [workers, 1, 1],
        }
    }

    /// `(width, padded slots)`: the width is a power of two within
    /// `width_limit` (at least 1) and the padded count a multiple of it that
    /// is at least `max(queue_len, 1)`.
    fn padded_slots(&self, queue_len: u32, width_limit: u32) -> (u32, u32) {
        let queue = queue_len.max(1);
        let mut width = floor_power_of_two(self.preferred_workgroup_size_x.min(width_limit));
        loop {
            if let Some(padded) = queue.checked_next_multiple_of(width) {
                return (width, padded);
            }
            // Width 1 always fits, so this halving ends.
            width /= 2;
        }
    }
}

impl Default for ResidentSizingPolicy {
    fn default() -> Self {
        Self::standard()
    }
}

/// The largest power of two `<= value`, and 1 for 0.
fn floor_power_of_two(value: u32) -> u32 {
    match value {
        0 => 1,
        v => 1 << (u32::BITS - 1 - v.leading_zeros()),
    }
}

#[cfg(test)]
mod tests {
    use super::{ResidentSizingPolicy, floor_power_of_two};

    #[test]
    fn floor_power_of_two_values() {
        assert_eq!(floor_power_of_two(0), 1);
        assert_eq!(floor_power_of_two(1), 1);
        assert_eq!(floor_power_of_two(255), 128);
        assert_eq!(floor_power_of_two(256), 256);
        assert_eq!(floor_power_of_two(1_000), 512);
        assert_eq!(floor_power_of_two(u32::MAX), 1 << 31);
    }

    #[test]
    fn padding_shrinks_the_width_only_when_it_must() {
        let policy = ResidentSizingPolicy::standard();
        assert_eq!(policy.padded_slots(0, 1_024), (256, 256));
        assert_eq!(policy.padded_slots(257, 1_024), (256, 512));
        assert_eq!(policy.padded_slots(1_000, 100), (64, 1_024));
        // 2^32 - 256 is the last multiple of 256 in u32.
        assert_eq!(
            policy.padded_slots(u32::MAX - 255, 256),
            (256, u32::MAX - 255)
        );
        // One more needs width 128: 2^32 - 128.
        assert_eq!(
            policy.padded_slots(u32::MAX - 254, 256),
            (128, u32::MAX - 127)
        );
        assert_eq!(policy.padded_slots(u32::MAX, 256), (1, u32::MAX));
    }
}
