//! One unit of work handed to a backend ([`WaveCommand`]) and what it
//! measured while doing it ([`WaveReport`]).

use super::SearchPosition;
use crate::megakernel_execution::MegakernelExecutionTopology;

/// Lanes that cooperate on one frontier vertex in `WarpSparseFrontier`
/// (a hardware subgroup where the device's is this wide, a virtual one
/// elsewhere).
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
/// `HybridFrontier`) is sized to expand when the frontier's out-edges do
/// not fit on the device's resident lanes (smaller frontiers get a lane per
/// edge): the one such constant in vyre. The engine sizes first levels with
/// the command's choice and puts it in the command
/// ([`LevelSizing::edges_per_lane`]) for the kernels that size later levels
/// on the device.
pub const EDGES_PER_LANE: u32 = 4;

/// Most slots one launch is sized for: a multiple of every power-of-two
/// width up to 256, so that a saturated slot count (a frontier of more than
/// 2^27 vertices under `WarpSparseFrontier`) keeps the planner's preferred
/// width. Kernels stride over whatever a grid does not cover.
pub const MAX_GRID_SLOTS: u32 = u32::MAX - 255;

/// Whether `topology`'s kernels share the frontier's edges evenly over their
/// lanes, and so are sized by edges as well as by vertices.
#[must_use]
pub fn is_edge_balanced(topology: MegakernelExecutionTopology) -> bool {
    matches!(
        topology,
        MegakernelExecutionTopology::SparseFrontier | MegakernelExecutionTopology::HybridFrontier
    )
}

/// Lanes an edge-balanced launch needs for a frontier with `frontier_edges`
/// out-edges at `edges_per_lane` each (saturating at `u32::MAX`; at least
/// 1).
#[must_use]
pub fn edge_balanced_slots(frontier_edges: u64, edges_per_lane: u32) -> u32 {
    let lanes = frontier_edges.div_ceil(u64::from(edges_per_lane.max(1)));
    u32::try_from(lanes.max(1)).unwrap_or(u32::MAX)
}

/// Work items ("slots") one wave of `topology` has by its vertices, the
/// unit the grid is sized in:
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

/// The engine's rule for a level whose frontier only the device knows (a
/// later level of a chain). A backend dispatches such a level on
/// [`LevelSizing::max_workgroups`] and its kernels apply
/// [`LevelSizing::workgroups`] from these two parameters, which they receive
/// in the command: the workgroups past the rule's grid return at once, the
/// others stride over the frontier. No backend invents a grid.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LevelSizing {
    /// Edges one lane expands ([`EDGES_PER_LANE`] for edge-balanced
    /// topologies, 0 when the topology is sized by vertices alone).
    pub edges_per_lane: u32,
    /// Most workgroups such a level uses (at least 1): what the largest
    /// frontier could use, never more than the device holds at once.
    pub max_workgroups: u32,
}

impl LevelSizing {
    /// Workgroups of width `width` for a level of `topology` whose frontier
    /// has `vertices` vertices with `edges` out-edges, on a graph of
    /// `graph_vertices`: enough lanes for every slot ([`slots_for`]) and,
    /// when edge-balanced, for `edges / edges_per_lane`; between 1 and
    /// `max_workgroups`.
    #[must_use]
    pub fn workgroups(
        &self,
        topology: MegakernelExecutionTopology,
        width: u32,
        vertices: u32,
        edges: u64,
        graph_vertices: u32,
    ) -> u32 {
        let by_vertices = u64::from(slots_for(topology, vertices, graph_vertices));
        let by_edges = match self.edges_per_lane {
            0 => 0,
            per_lane => edges.div_ceil(u64::from(per_lane)),
        };
        let groups = by_vertices.max(by_edges).div_ceil(u64::from(width.max(1)));
        u32::try_from(groups)
            .unwrap_or(u32::MAX)
            .clamp(1, self.max_workgroups.max(1))
    }
}

/// The launch the engine sized for a command.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct LaunchShape {
    /// Threads per workgroup (a power of two within the device limits).
    pub workgroup_size_x: u32,
    /// Workgroups in x, y, z of the first level (of every level of a fused
    /// launch). A frontier conversion before the first level runs on
    /// [`LaunchShape::workgroups_for_items`], or on this grid where a
    /// backend records it with the level, its kernels striding over the
    /// items the grid does not cover. The engine sizes one-dimensional
    /// grids, `[n, 1, 1]`.
    pub dispatch_grid: [u32; 3],
    /// Slots each lane processes (the kernel strides by the total lane count).
    pub slots_per_lane: u32,
    /// How every later level of a chain is sized, at the same width.
    pub later: LevelSizing,
    /// Whether a fused launch runs as one thread-block cluster (the
    /// device's [`crate::backend::FusedCluster`], this shape's grid and
    /// width).
    pub cluster: bool,
}

impl LaunchShape {
    /// Workgroups of the level after one that found `vertices` vertices
    /// with `edges` out-edges: a fused launch keeps its whole grid, a chain
    /// sizes the level by [`LaunchShape::later`].
    #[must_use]
    pub fn next_level_workgroups(
        &self,
        topology: MegakernelExecutionTopology,
        vertices: u32,
        edges: u64,
        graph_vertices: u32,
    ) -> u32 {
        if topology == MegakernelExecutionTopology::FusedWave {
            return u32::try_from(self.workgroups()).unwrap_or(u32::MAX);
        }
        self.later.workgroups(
            topology,
            self.workgroup_size_x,
            vertices,
            edges,
            graph_vertices,
        )
    }

    /// Total workgroups of the first level.
    #[must_use]
    pub fn workgroups(&self) -> u64 {
        self.dispatch_grid.iter().map(|&d| u64::from(d)).product()
    }

    /// Workgroups of a set-up kernel (a frontier conversion) that gives one
    /// lane to each of `items`: at the launch's width, between 1 and
    /// [`LevelSizing::max_workgroups`]. A conversion's items are not the
    /// level's (a bitmap's words, whatever the frontier), so the level's
    /// grid would leave a small frontier's conversion striding over the
    /// whole graph with a few workgroups.
    #[must_use]
    pub fn workgroups_for_items(&self, items: u64) -> u32 {
        let groups = items.div_ceil(u64::from(self.workgroup_size_x.max(1)));
        u32::try_from(groups)
            .unwrap_or(u32::MAX)
            .clamp(1, self.later.max_workgroups.max(1))
    }
}

/// One command: run one level, or several levels in a chain (per-level
/// dispatches in one submission) or in one fused persistent launch.
///
/// A backend receives it only as a [`super::CheckedCommand`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaveCommand {
    /// Topology to run every level of this command with.
    pub topology: MegakernelExecutionTopology,
    /// Where the search stands: depth, frontier size, and which buffer of
    /// which form holds the frontier. When the form differs from
    /// [`frontier_form_of`]`(topology)` the backend converts it first.
    pub position: SearchPosition,
    /// Levels this command may run before it returns (1 = one wave). More
    /// than one is a chain, or for `FusedWave` a persistent launch.
    pub max_levels: u32,
    /// Every grid of the command: its first level's and the rule for the
    /// later levels of a chain; a fused launch keeps its grid.
    pub launch: LaunchShape,
    /// A multi-level command always runs its first level; it stops before
    /// running a later level whose frontier has more out-edges than this (the
    /// frontier left the band the command was planned for), or when the
    /// frontier is empty.
    pub band_max_frontier_edges: u64,
    /// Likewise for the frontier's vertices: a later level whose frontier
    /// has more does not run (the frontier outgrew the grid the chain's
    /// later levels are dispatched on).
    pub band_max_frontier_vertices: u32,
}

/// The frontiers a multi-level command runs later levels on: not empty,
/// with at most `max_edges` out-edges and `max_vertices` vertices.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct FrontierBand {
    /// Most out-edges.
    pub max_edges: u64,
    /// Most vertices.
    pub max_vertices: u32,
}

impl FrontierBand {
    /// A band of at most `max_edges` out-edges and any number of vertices.
    #[must_use]
    pub const fn of_edges(max_edges: u64) -> Self {
        Self {
            max_edges,
            max_vertices: u32::MAX,
        }
    }

    /// Whether a level that found `frontier_out` vertices with
    /// `frontier_out_edges` out-edges is its command's last: the next
    /// frontier is empty or outside the band. Every backend stops a
    /// multi-level command by this rule, and the host reads where a command
    /// stopped by it.
    #[must_use]
    pub fn ends_after(&self, frontier_out: u32, frontier_out_edges: u64) -> bool {
        frontier_out == 0 || frontier_out_edges > self.max_edges || frontier_out > self.max_vertices
    }
}

impl WaveCommand {
    /// The band this command's later levels run in.
    #[must_use]
    pub fn band(&self) -> FrontierBand {
        FrontierBand {
            max_edges: self.band_max_frontier_edges,
            max_vertices: self.band_max_frontier_vertices,
        }
    }

    /// [`FrontierBand::ends_after`] for this command's band.
    #[must_use]
    pub fn ends_after(&self, frontier_out: u32, frontier_out_edges: u64) -> bool {
        self.band().ends_after(frontier_out, frontier_out_edges)
    }

    /// Workgroups of the frontier conversion this command starts with, or
    /// `None` when its frontier is already in its topology's form. The
    /// conversion gets a lane per item it walks
    /// ([`LaunchShape::workgroups_for_items`]): a queue's vertices into a
    /// bitmap, a bitmap's words into a queue, and every vertex of a batch
    /// pass (`batch`) of a graph of `vertex_count` vertices.
    #[must_use]
    pub fn conversion_workgroups(&self, vertex_count: u32, batch: bool) -> Option<u32> {
        let form = frontier_form_of(self.topology);
        if self.position.form == form {
            return None;
        }
        let n = u64::from(vertex_count);
        let items = match (batch, form) {
            (true, _) => n,
            (false, FrontierForm::Bitmap) => u64::from(self.position.frontier_len),
            (false, FrontierForm::Queue) => n.div_ceil(32),
        };
        Some(self.launch.workgroups_for_items(items))
    }
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
    /// Host wall time from submission to the report being readable, ns.
    pub wall_ns: u64,
    /// Device time of the whole command (kernels only), ns.
    pub device_ns: Option<u64>,
    /// Bytes read back from the device for this report.
    pub readback_bytes: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use MegakernelExecutionTopology as T;

    /// A launch of `groups` workgroups of 256 whose later levels get at most
    /// `cap`.
    fn launch(groups: u32, edges_per_lane: u32, cap: u32) -> LaunchShape {
        LaunchShape {
            cluster: false,
            workgroup_size_x: 256,
            dispatch_grid: [groups, 1, 1],
            slots_per_lane: 1,
            later: LevelSizing {
                edges_per_lane,
                max_workgroups: cap,
            },
        }
    }

    #[test]
    fn a_fused_launch_keeps_its_grid_and_a_chain_resizes_each_level() {
        let launch = launch(1056, 0, 1056);
        assert_eq!(
            launch.next_level_workgroups(T::FusedWave, 1, 2, 1 << 20),
            1056
        );
        assert_eq!(
            launch.next_level_workgroups(T::WarpSparseFrontier, 1, 2, 1 << 20),
            1
        );
    }

    #[test]
    fn a_level_ends_its_command_past_either_edge_of_the_band_or_on_an_empty_frontier() {
        let band = FrontierBand {
            max_edges: 100,
            max_vertices: 10,
        };
        assert!(!band.ends_after(10, 100));
        assert!(band.ends_after(11, 100));
        assert!(band.ends_after(10, 101));
        assert!(band.ends_after(0, 0));
        let edges = FrontierBand::of_edges(100);
        assert!(!edges.ends_after(u32::MAX, 100));
        assert!(edges.ends_after(1, 101));
    }

    #[test]
    fn set_up_kernels_get_a_lane_per_item_within_the_cap() {
        let launch = launch(2, EDGES_PER_LANE, 660);
        // A bitmap of 2^24 vertices has 524,288 words: 2048 groups, capped.
        assert_eq!(launch.workgroups_for_items(1 << 19), 660);
        assert_eq!(launch.workgroups_for_items(1000), 4);
        assert_eq!(launch.workgroups_for_items(0), 1);
    }

    #[test]
    fn a_conversion_gets_a_lane_per_item_it_walks_not_the_levels_grid() {
        let command = |topology, form, frontier_len| WaveCommand {
            topology,
            position: SearchPosition {
                level: 3,
                frontier_len,
                frontier_edges: 10,
                form,
                buffer: 1,
            },
            max_levels: 1,
            // A sparse level of a few edges: two workgroups.
            launch: launch(2, EDGES_PER_LANE, 4096),
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u32::MAX,
        };
        let n = 1 << 24;
        // Already in the topology's form: nothing to convert.
        let sparse = command(T::SparseFrontier, FrontierForm::Queue, 5000);
        assert_eq!(sparse.conversion_workgroups(n, false), None);
        let dense = command(T::DenseFrontier, FrontierForm::Bitmap, 5000);
        assert_eq!(dense.conversion_workgroups(n, false), None);
        // A bitmap into a queue walks its 524,288 words, whatever the frontier.
        let from_bitmap = command(T::SparseFrontier, FrontierForm::Bitmap, 5000);
        assert_eq!(from_bitmap.conversion_workgroups(n, false), Some(2048));
        // A queue into a bitmap walks the frontier's vertices.
        let to_bitmap = command(T::BlockDenseFrontier, FrontierForm::Queue, 5000);
        assert_eq!(to_bitmap.conversion_workgroups(n, false), Some(20));
        // A batch pass walks every vertex, within the cap.
        assert_eq!(from_bitmap.conversion_workgroups(n, true), Some(4096));
        let fused = command(T::FusedWave, FrontierForm::Bitmap, 1);
        assert_eq!(fused.conversion_workgroups(1000, false), Some(1));
    }

    #[test]
    fn later_levels_get_lanes_for_their_slots_and_their_edges_within_the_cap() {
        let balanced = LevelSizing {
            edges_per_lane: EDGES_PER_LANE,
            max_workgroups: 100,
        };
        // 10 vertices, 160,000 edges: 40,000 lanes of 4 edges = 157 groups
        // of 256, capped at 100.
        assert_eq!(
            balanced.workgroups(T::SparseFrontier, 256, 10, 160_000, 1 << 20),
            100
        );
        // 3000 edges: 750 lanes, 3 groups.
        assert_eq!(
            balanced.workgroups(T::HybridFrontier, 256, 10, 3000, 1 << 20),
            3
        );
        // More vertices than edge lanes: one slot each.
        assert_eq!(
            balanced.workgroups(T::SparseFrontier, 256, 1000, 8, 1 << 20),
            4
        );
        let by_vertices = LevelSizing {
            edges_per_lane: 0,
            max_workgroups: 1 << 20,
        };
        // 32 lanes per warp-sparse vertex, edges ignored.
        assert_eq!(
            by_vertices.workgroups(T::WarpSparseFrontier, 256, 80, u64::MAX, 1 << 20),
            10
        );
        // Dense: every vertex of the graph, whatever the frontier.
        assert_eq!(by_vertices.workgroups(T::DenseFrontier, 256, 1, 0, 1000), 4);
        // Never 0, even for an empty level or a zero cap.
        assert_eq!(by_vertices.workgroups(T::SparseFrontier, 256, 0, 0, 10), 1);
        let zero_cap = LevelSizing {
            edges_per_lane: 4,
            max_workgroups: 0,
        };
        assert_eq!(zero_cap.workgroups(T::SparseFrontier, 256, 9, 9, 10), 1);
    }

    #[test]
    fn edge_balanced_slots_saturate() {
        assert_eq!(edge_balanced_slots(0, EDGES_PER_LANE), 1);
        assert_eq!(edge_balanced_slots(9, EDGES_PER_LANE), 3);
        assert_eq!(edge_balanced_slots(9, 1), 9);
        assert_eq!(edge_balanced_slots(u64::MAX, EDGES_PER_LANE), u32::MAX);
        assert!(is_edge_balanced(T::HybridFrontier) && !is_edge_balanced(T::DenseFrontier));
    }
}
