//! What a probe's verdict means for a device's capabilities: both WGSL
//! backends report a barrier by this one rule.

use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;

use super::verdict::BarrierVerdict;
use crate::FUSED_WIDTH;

/// What decides the barrier a device reports.
#[derive(Clone, Copy, Debug)]
pub struct BarrierRequest<'a> {
    /// What the probe measured.
    pub verdict: &'a BarrierVerdict,
    /// Whether the device is software (on the CPU): it runs workgroups on
    /// host threads, so what the probe saw there is promised nowhere.
    pub software: bool,
    /// Tests only: report a barrier for this many fused workgroups
    /// whatever the probe saw.
    pub forced_workgroups: Option<u32>,
}

/// The capabilities' barrier fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceBarrier {
    /// Whether the device has a device-wide barrier.
    pub megakernel: MegakernelDeviceCapabilities,
    /// Why (or why not), for capabilities and `--trace`.
    pub reason: String,
    /// Workgroups a fused launch may use (0 without a barrier).
    pub resident_workgroups: u32,
    /// Their width (0 without a barrier).
    pub resident_workgroup_size: u32,
    /// Lanes seen running at once, which bound per-wave grids too (0 when
    /// not measured: a forced count says nothing of the device).
    pub resident_lanes: u32,
}

impl DeviceBarrier {
    /// The barrier `request` reports.
    #[must_use]
    pub fn of(request: &BarrierRequest<'_>) -> Self {
        let verdict = request.verdict;
        let verified = verdict.verified() && !request.software;
        let measured = if verdict.verified() && request.software {
            format!(
                "{}, but a software device runs workgroups on host threads with no co-residency guarantee: no barrier",
                verdict.reason()
            )
        } else {
            verdict.reason()
        };
        let (reason, resident_workgroups, resident_workgroup_size) = match request.forced_workgroups
        {
            Some(forced) => (
                format!("forced for tests to {forced} workgroup(s) of {FUSED_WIDTH} ({measured})"),
                forced,
                FUSED_WIDTH,
            ),
            None if verified => (measured, verdict.workgroups(), verdict.width()),
            None => (measured, 0, 0),
        };
        Self {
            megakernel: if verified || request.forced_workgroups.is_some() {
                MegakernelDeviceCapabilities::FUSION_CAPABLE
            } else {
                MegakernelDeviceCapabilities::FUSION_INCAPABLE
            },
            reason,
            resident_workgroups,
            resident_workgroup_size,
            resident_lanes: if verified {
                verdict.resident_lanes()
            } else {
                0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{PROBE_MAX_WORKGROUPS, search, synthetic_trial};

    fn verified(n: u32) -> BarrierVerdict {
        search(256, PROBE_MAX_WORKGROUPS, |k| Ok(synthetic_trial(k, n))).unwrap()
    }

    fn barrier(verdict: &BarrierVerdict, software: bool, forced: Option<u32>) -> DeviceBarrier {
        DeviceBarrier::of(&BarrierRequest {
            verdict,
            software,
            forced_workgroups: forced,
        })
    }

    #[test]
    fn a_verified_count_is_the_barrier_of_a_hardware_device() {
        let b = barrier(&verified(1056), false, None);
        assert!(b.megakernel.supports_device_wide_barrier);
        assert_eq!(
            (b.resident_workgroups, b.resident_workgroup_size),
            (1056, 256)
        );
        assert_eq!(b.resident_lanes, 1056 * 256);
        assert!(b.reason.starts_with("probe: 1056 of 1056"), "{}", b.reason);
        let none = barrier(&verified(1), false, None);
        assert!(!none.megakernel.supports_device_wide_barrier);
        assert_eq!((none.resident_workgroups, none.resident_lanes), (0, 0));
        assert!(none.reason.contains("not co-resident"), "{}", none.reason);
    }

    #[test]
    fn a_software_device_gets_no_barrier_whatever_the_probe_saw() {
        let b = barrier(&verified(2), true, None);
        assert!(!b.megakernel.supports_device_wide_barrier);
        assert_eq!(
            (
                b.resident_workgroups,
                b.resident_workgroup_size,
                b.resident_lanes
            ),
            (0, 0, 0)
        );
        assert!(
            b.reason.starts_with("probe: 2 of 2 workgroups")
                && b.reason.ends_with("no co-residency guarantee: no barrier"),
            "{}",
            b.reason
        );
    }

    #[test]
    fn a_forced_barrier_is_reported_as_forced_and_sizes_no_per_wave_grid() {
        let b = barrier(&BarrierVerdict::not_run("not probed"), true, Some(1));
        assert!(b.megakernel.supports_device_wide_barrier);
        assert_eq!(
            (b.resident_workgroups, b.resident_workgroup_size),
            (1, FUSED_WIDTH)
        );
        // Per-wave launches stay unbounded by the forced count.
        assert_eq!(b.resident_lanes, 0);
        assert!(
            b.reason.starts_with("forced for tests to 1 workgroup(s)")
                && b.reason.contains("not probed"),
            "{}",
            b.reason
        );
    }
}
