//! What a device can do, as its backend measured it at start-up.

use std::time::Duration;

use super::{LaunchShape, LevelSizing};
use crate::megakernel_execution::MegakernelDeviceCapabilities;

/// Longest any backend waits on its device for one command, upload or
/// readback before it gives up with an error: a stuck kernel becomes a typed
/// error, never a process that does not return.
pub const DEVICE_WAIT_LIMIT: Duration = Duration::from_secs(300);

/// Everything the engine needs to know about a device to plan waves on it.
///
/// Backends fill this from the device itself (adapter limits, occupancy
/// queries, free memory, a launch-overhead calibration); nothing here is a
/// guess. It names the device, never the backend: which backends exist is the
/// facade's business.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceCapabilities {
    /// Human-readable device name (adapter name, GPU model, CPU threads).
    pub device_name: String,
    /// Whether every resident workgroup can synchronize inside one launch,
    /// which a `FusedWave` needs.
    pub megakernel: MegakernelDeviceCapabilities,
    /// In words, how the device-wide barrier was established, or why the
    /// device has none (shown by `--trace` and in refusals of `FusedWave`).
    pub barrier_reason: String,
    /// Whether the backend runs `FusedWave` commands in batch passes (a
    /// persistent batch kernel of its own). Where it does not, the engine
    /// plans batch passes as if the device had no device-wide barrier and
    /// refuses a forced batch `FusedWave`; single searches are unaffected.
    /// Meaningful only where [`Self::can_fuse`] holds.
    pub batch_fused_wave: bool,
    /// Largest workgroup width in x.
    pub max_workgroup_size_x: u32,
    /// Largest number of workgroups in one dispatch dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// Largest number of invocations in one workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Lanes per subgroup (warp); 1 on the CPU.
    pub subgroup_size: u32,
    /// Every launch width must be a multiple of this: the backend's kernels
    /// run whole groups of this many lanes (32 where they use warp
    /// intrinsics; 1 where any power of two works).
    pub workgroup_width_multiple: u32,
    /// Invocations the whole device keeps running at once (for example
    /// streaming multiprocessors x resident threads per multiprocessor); 0
    /// when the device does not say. The engine never sizes a per-wave
    /// launch wider than this: more workgroups add per-workgroup cost and
    /// no parallelism.
    pub resident_lanes: u32,
    /// How many workgroups of the persistent (fused) kernel, at the width it
    /// is compiled for, can be resident at once. 0 when the device has no
    /// device-wide barrier.
    pub resident_workgroups: u32,
    /// Workgroup width the persistent kernel is compiled for (0 when absent).
    pub resident_workgroup_size: u32,
    /// Bytes of device memory the engine may plan for.
    pub memory_budget_bytes: u64,
    /// Largest single buffer binding; edge arrays larger than this are split.
    pub max_binding_bytes: u64,
    /// Most edge segments one kernel can bind.
    pub max_edge_segments: u32,
    /// Width of a row offset on the device: 4 (u32) or 8 (u64) bytes.
    pub offset_bytes: u32,
    /// Whether reading results back needs a host-visible staging buffer of
    /// its own (some APIs copy device memory straight to host memory, others
    /// only through a mappable buffer).
    pub needs_readback_staging: bool,
    /// Measured cost of one empty launch plus synchronisation, in ns.
    pub launch_overhead_ns: f64,
    /// Whether per-dispatch device timestamps are available.
    pub device_timestamps: bool,
    /// The fused launch the device runs as one cluster of workgroups
    /// ([`FusedCluster::NONE`] where it has none).
    pub fused_cluster: FusedCluster,
}

/// A fused launch of one thread-block cluster: workgroups the device
/// schedules together, whose levels meet at the cluster's own barrier
/// instead of one through device memory (docs/BENCHMARKS.md measures both).
/// Its kernel keeps each workgroup's frontier on chip and expands a vertex
/// in one lane, so it runs only graphs whose every vertex has fewer than
/// `light_degree` out-edges.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct FusedCluster {
    /// Workgroups in the cluster: the whole launch. 0 where there is none.
    pub workgroups: u32,
    /// Width of each.
    pub workgroup_size: u32,
    /// Every vertex of a graph the cluster runs has fewer out-edges.
    pub light_degree: u32,
}

impl FusedCluster {
    /// No cluster launch.
    pub const NONE: Self = Self {
        workgroups: 0,
        workgroup_size: 0,
        light_degree: 0,
    };

    /// Lanes of the launch; 0 where there is none.
    #[must_use]
    pub fn lanes(&self) -> u64 {
        u64::from(self.workgroups) * u64::from(self.workgroup_size)
    }

    /// The launch of this cluster: its workgroups, one slot a lane, every
    /// level on the whole cluster.
    #[must_use]
    pub fn launch(&self) -> LaunchShape {
        LaunchShape {
            workgroup_size_x: self.workgroup_size,
            dispatch_grid: [self.workgroups, 1, 1],
            slots_per_lane: 1,
            later: LevelSizing {
                edges_per_lane: 0,
                max_workgroups: self.workgroups,
            },
            cluster: true,
        }
    }

    /// Whether it runs a graph whose largest out-degree is
    /// `max_out_degree`.
    #[must_use]
    pub fn runs(&self, max_out_degree: u32) -> bool {
        self.lanes() > 0 && max_out_degree < self.light_degree
    }
}

impl DeviceCapabilities {
    /// Largest edge count the device can address: offsets of `offset_bytes`
    /// width, `max_edge_segments` bindings of `max_binding_bytes`.
    #[must_use]
    pub fn max_edges(&self) -> u64 {
        let by_index = if self.offset_bytes >= 8 {
            u64::MAX / 4
        } else {
            u64::from(u32::MAX)
        };
        let by_binding =
            (self.max_binding_bytes / 4).saturating_mul(u64::from(self.max_edge_segments));
        by_index.min(by_binding)
    }

    /// Whether the device can run a `FusedWave`: a device-wide barrier and
    /// at least one resident workgroup of a known width.
    #[must_use]
    pub fn can_fuse(&self) -> bool {
        self.megakernel.supports_device_wide_barrier
            && self.resident_workgroups > 0
            && self.resident_workgroup_size > 0
    }

    /// Whether a batch pass may run a `FusedWave`: the device can fuse and
    /// its backend has a batch persistent kernel.
    #[must_use]
    pub fn can_fuse_batch(&self) -> bool {
        self.can_fuse() && self.batch_fused_wave
    }

    /// These capabilities as a batch pass plans with them: no cluster
    /// launch, and where the backend runs no batch `FusedWave`, the
    /// device-wide barrier is off and `barrier_reason` says why, so the
    /// policy never picks one.
    #[must_use]
    pub fn for_batch(&self) -> Self {
        let mut caps = self.clone();
        // The cluster launch runs single searches only.
        caps.fused_cluster = FusedCluster::NONE;
        if self.can_fuse() && !self.batch_fused_wave {
            caps.megakernel.supports_device_wide_barrier = false;
            caps.barrier_reason = format!(
                "{}, but its backend runs no FusedWave in batch passes",
                self.barrier_reason
            );
        }
        caps
    }
}
