//! One unit of work handed to a backend ([`WaveCommand`]) and what it
//! measured while doing it ([`WaveReport`]).

use crate::megakernel_execution::MegakernelExecutionTopology;

/// Lanes that cooperate on one frontier vertex in `WarpSparseFrontier`
/// (a hardware warp on CUDA, a virtual one elsewhere).
pub const WARP_LANES: u32 = 32;

/// How the current frontier is held on the device.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum FrontierForm {
    /// A list of vertex ids (top-down topologies read and write it).
    Queue,
    /// One bit per vertex (bottom-up topologies read and write it).
    Bitmap,
}

/// The frontier form a topology reads, and writes for the next level.
#[must_use]
pub fn frontier_form_of(topology: MegakernelExecutionTopology) -> FrontierForm {
    match topology {
        MegakernelExecutionTopology::DenseFrontier
        | MegakernelExecutionTopology::BlockDenseFrontier => FrontierForm::Bitmap,
        MegakernelExecutionTopology::WarpSparseFrontier
        | MegakernelExecutionTopology::SparseFrontier
        | MegakernelExecutionTopology::HybridFrontier
        | MegakernelExecutionTopology::FusedWave => FrontierForm::Queue,
    }
}

/// Edges one lane of an edge-balanced launch (`SparseFrontier`,
/// `HybridFrontier`) is sized to expand.
pub const EDGES_PER_LANE: u64 = 4;

/// Lanes an edge-balanced launch needs for a frontier with `frontier_edges`
/// out-edges (saturating at `u32::MAX`; at least 1).
#[must_use]
pub fn edge_balanced_slots(frontier_edges: u64) -> u32 {
    u32::try_from(frontier_edges.div_ceil(EDGES_PER_LANE).max(1)).unwrap_or(u32::MAX)
}

/// Work items ("slots") one wave of `topology` has, the unit the grid is
/// sized in:
/// - `WarpSparseFrontier`: [`WARP_LANES`] per frontier vertex;
/// - `SparseFrontier`, `HybridFrontier`, `FusedWave`: one per frontier vertex;
/// - `DenseFrontier`: one per vertex of the graph;
/// - `BlockDenseFrontier`: one per 32-vertex bitmap word.
///
/// Saturates at `u32::MAX`; kernels stride over whatever the grid does not
/// cover.
#[must_use]
pub fn slots_for(
    topology: MegakernelExecutionTopology,
    frontier_len: u32,
    vertex_count: u32,
) -> u32 {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => frontier_len.saturating_mul(WARP_LANES),
        MegakernelExecutionTopology::SparseFrontier
        | MegakernelExecutionTopology::HybridFrontier
        | MegakernelExecutionTopology::FusedWave => frontier_len,
        MegakernelExecutionTopology::DenseFrontier => vertex_count,
        MegakernelExecutionTopology::BlockDenseFrontier => vertex_count.div_ceil(32),
    }
}

/// The launch the engine sized for a wave.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LaunchShape {
    /// Threads per workgroup (a power of two within the device limits).
    pub workgroup_size_x: u32,
    /// Workgroups in x, y, z.
    pub dispatch_grid: [u32; 3],
    /// Slots each lane processes (the kernel strides by the total lane count).
    pub slots_per_lane: u32,
    /// Most workgroups a level sized on the device (a chained level) may use.
    pub max_workgroups: u32,
}

impl LaunchShape {
    /// Total workgroups of the launch.
    #[must_use]
    pub fn workgroups(&self) -> u64 {
        self.dispatch_grid.iter().map(|&d| u64::from(d)).product()
    }
}

/// One command: run one level, or several levels in a chain (per-level
/// dispatches in one submission) or in one fused persistent launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaveCommand {
    /// Topology to run every level of this command with.
    pub topology: MegakernelExecutionTopology,
    /// Form the current frontier is held in. When it differs from
    /// [`frontier_form_of`]`(topology)` the backend converts it first.
    pub frontier: FrontierForm,
    /// Depth of the vertices in the current frontier.
    pub level: u32,
    /// Vertices in the current frontier.
    pub frontier_len: u32,
    /// Levels this command may run before it returns (1 = one wave). More
    /// than one is a chain, or for `FusedWave` a persistent launch.
    pub max_levels: u32,
    /// Launch of the first level. Later levels of a chain are sized on the
    /// device with the same width, `ceil(slots / width)` workgroups capped at
    /// [`LaunchShape::max_workgroups`]; a fused launch keeps its grid.
    pub launch: LaunchShape,
    /// A multi-level command always runs its first level; it stops before
    /// running a later level whose frontier has more out-edges than this (the
    /// frontier left the band the command was planned for), or when the
    /// frontier is empty.
    pub band_max_frontier_edges: u64,
}

/// What one level measured.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct LevelRecord {
    /// Depth of the frontier this level expanded.
    pub level: u32,
    /// Vertices in that frontier.
    pub frontier_in: u32,
    /// Vertices discovered (the next frontier).
    pub frontier_out: u32,
    /// Out-edges of the next frontier (the sum of their out-degrees).
    pub frontier_out_edges: u64,
    /// Edges the kernel looked at (top-down: out-edges of the frontier;
    /// bottom-up: in-edges scanned up to the early exit).
    pub edges_examined: u64,
    /// Device time of this level, when the device can time it alone.
    pub device_ns: Option<u64>,
}

/// What a backend measured while running one [`WaveCommand`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaveReport {
    /// One record per level run, in order.
    pub levels: Vec<LevelRecord>,
    /// Form the new frontier is held in.
    pub frontier: Option<FrontierForm>,
    /// Host wall time from submission to the report being readable, ns.
    pub wall_ns: u64,
    /// Device time of the whole command (kernels only), ns.
    pub device_ns: Option<u64>,
    /// Bytes read back from the device for this report.
    pub readback_bytes: u64,
}
