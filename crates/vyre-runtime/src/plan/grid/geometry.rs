//! [`ResidentLaunchGeometry`]: the shape of one launch.

/// Padded launch geometry for one megakernel dispatch.
///
/// Kernels index slots by global lane and stride by the total lane count
/// (`workgroup_size_x` x the product of `dispatch_grid`), so a grid with fewer
/// lanes than slots still visits every slot: each lane processes up to
/// [`ResidentLaunchGeometry::slots_per_lane`] of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResidentLaunchGeometry {
    /// Threads per workgroup in x: a power of two within the adapter limits.
    pub workgroup_size_x: u32,
    /// Queued slots padded up to a multiple of `workgroup_size_x`.
    pub slot_count: u32,
    /// Workgroups in x, y and z.
    pub dispatch_grid: [u32; 3],
}

impl ResidentLaunchGeometry {
    /// Lanes of the whole launch, saturating at `u64::MAX`. A zero width or
    /// grid dimension counts as one, so a malformed geometry still has a
    /// lane and never divides by zero.
    #[must_use]
    pub fn total_lanes(&self) -> u64 {
        self.dispatch_grid
            .iter()
            .fold(u64::from(self.workgroup_size_x.max(1)), |lanes, &dim| {
                lanes.saturating_mul(u64::from(dim.max(1)))
            })
    }

    /// How many slots each lane processes: `ceil(slot_count / total_lanes)`,
    /// at least one. `total_lanes() * slots_per_lane() >= slot_count` always
    /// holds.
    #[must_use]
    pub fn slots_per_lane(&self) -> u32 {
        let per_lane = u64::from(self.slot_count)
            .div_ceil(self.total_lanes())
            .max(1);
        // per_lane <= slot_count, which is a u32.
        u32::try_from(per_lane).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::ResidentLaunchGeometry;

    fn geometry(width: u32, slots: u32, grid: [u32; 3]) -> ResidentLaunchGeometry {
        ResidentLaunchGeometry {
            workgroup_size_x: width,
            slot_count: slots,
            dispatch_grid: grid,
        }
    }

    #[test]
    fn slots_per_lane_rounds_up() {
        // 1 024 lanes cover 1 024 slots once.
        assert_eq!(geometry(256, 1_024, [4, 1, 1]).slots_per_lane(), 1);
        // 1 025 slots need a second pass on some lanes.
        assert_eq!(geometry(256, 1_025, [4, 1, 1]).slots_per_lane(), 2);
        // 65 535 x 256 = 16 776 960 lanes; u32::MAX slots -> 256.000015 -> 257.
        assert_eq!(
            geometry(256, u32::MAX, [65_535, 1, 1]).slots_per_lane(),
            257
        );
        // Fewer slots than lanes still processes one each.
        assert_eq!(geometry(256, 0, [4, 1, 1]).slots_per_lane(), 1);
    }

    #[test]
    fn huge_grids_saturate_instead_of_overflowing() {
        let g = geometry(u32::MAX, u32::MAX, [u32::MAX; 3]);
        assert_eq!(g.total_lanes(), u64::MAX);
        assert_eq!(g.slots_per_lane(), 1);
    }

    #[test]
    fn zero_fields_count_as_one() {
        let g = geometry(0, 10, [0, 0, 0]);
        assert_eq!(g.total_lanes(), 1);
        assert_eq!(g.slots_per_lane(), 10);
    }
}
