//! The policy's inputs and outputs.

/// Device capabilities that constrain which wave topologies are launchable.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MegakernelDeviceCapabilities {
    /// Whether every resident block can synchronize inside one launch.
    pub supports_device_wide_barrier: bool,
}

impl MegakernelDeviceCapabilities {
    /// Device that can host a fused wave.
    pub const FUSION_CAPABLE: Self = Self {
        supports_device_wide_barrier: true,
    };
    /// Device that must keep every wave in its own launch.
    pub const FUSION_INCAPABLE: Self = Self {
        supports_device_wide_barrier: false,
    };

    /// Fusion pressure this device can act on.
    ///
    /// Without a device-wide barrier the fused plan is unlaunchable, so the
    /// pressure toward it is zero however high the caller measured it.
    #[must_use]
    pub fn admissible_fusion_pressure(self, fusion_pressure: f64) -> f64 {
        if self.supports_device_wide_barrier {
            fusion_pressure
        } else {
            0.0
        }
    }
}

/// Per-candidate telemetry used to bias megakernel fusion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MegakernelExecutionSample {
    /// Observed candidate dispatch cost in nanoseconds.
    pub dispatch_cost_ns: f64,
    /// Observed active-frontier density in `[0, 1]`.
    pub frontier_density: f64,
    /// Observed final readback byte volume.
    pub readback_bytes: u64,
}

/// Device-side megakernel execution topology selected for a dataflow wave.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum MegakernelExecutionTopology {
    /// Ultra-low-density frontier expansion where one warp owns sparse active
    /// nodes and avoids block-wide work distribution overhead.
    WarpSparseFrontier,
    /// Low-density frontier expansion with queue-like work distribution.
    SparseFrontier,
    /// Very high-density propagation where a block owns coalesced bitset lanes
    /// and amortizes shared-memory scans across many active facts.
    BlockDenseFrontier,
    /// Dense bitset-style propagation with coalesced scans.
    DenseFrontier,
    /// Mixed sparse/dense execution when density is in the transition band.
    HybridFrontier,
    /// Fused adjacent waves when launch/readback pressure dominates and memory
    /// budget leaves room for the fused plan.
    FusedWave,
}

impl MegakernelExecutionTopology {
    /// Every topology, in declaration order.
    pub const ALL: [Self; 6] = [
        Self::WarpSparseFrontier,
        Self::SparseFrontier,
        Self::BlockDenseFrontier,
        Self::DenseFrontier,
        Self::HybridFrontier,
        Self::FusedWave,
    ];
}

/// Static graph shape used by topology selection.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MegakernelGraphShape {
    /// Logical graph node count.
    pub node_count: u64,
    /// Logical graph edge count.
    pub edge_count: u64,
}

/// Device memory envelope for a candidate megakernel plan.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MegakernelMemoryBudget {
    /// Estimated resident plus transient bytes required by the candidate plan.
    pub required_bytes: u64,
    /// Caller-approved device-memory budget for the plan.
    pub budget_bytes: u64,
}

/// Detailed megakernel memory plan.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MegakernelMemoryPlan {
    /// Graph-layout bytes retained on device.
    pub graph_bytes: u64,
    /// Frontier-state bytes retained on device.
    pub frontier_bytes: u64,
    /// Temporary scratch bytes required by the selected topology.
    pub scratch_bytes: u64,
    /// Final compact output/readback bytes.
    pub output_bytes: u64,
    /// Total peak bytes required by the plan.
    pub required_bytes: u64,
    /// Caller-approved byte budget.
    pub budget_bytes: u64,
    /// Required/budget pressure in basis points.
    pub memory_pressure_bps: u32,
}

/// Complete megakernel execution plan selected from runtime telemetry.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MegakernelExecutionPlan {
    /// Final topology after memory-budget validation.
    pub topology: MegakernelExecutionTopology,
    /// Memory plan for the final topology.
    pub memory: MegakernelMemoryPlan,
    /// Whether the planner downgraded a denser/fused topology to sparse to fit
    /// the explicit memory budget.
    pub downgraded_to_sparse: bool,
}
