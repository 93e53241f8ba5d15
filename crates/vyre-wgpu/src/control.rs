//! Word indices of the control block and of the level history, mirrored from
//! `shaders/wgsl/common.wgsl` and `shaders/wgsl/bookkeeping.wgsl`.

use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

/// Vertices in the current frontier.
pub(crate) const C_CUR_COUNT: usize = 0;
/// Depth of the current frontier.
pub(crate) const C_LEVEL: usize = 4;
/// Levels recorded in the running command.
pub(crate) const C_LEVELS: usize = 15;
/// Words 0..=15 are rewritten at the start of every command.
pub(crate) const COMMAND_WORDS: usize = 16;
/// Index of the first graph-constant word.
pub(crate) const C_VERTEX_COUNT: usize = 16;
/// Words 16..=19 are written at upload.
pub(crate) const GRAPH_WORDS: usize = 4;
/// Out-edges of the current frontier, kept across commands: zeroed by the
/// host at the start of a search, summed over the sources by `seed_sources`,
/// updated at the end of every level.
pub(crate) const C_CUR_EDGES: usize = 20;
/// Workgroups of the running level-ending dispatch that have finished, kept
/// at 0 between dispatches by the kernels; zeroed (with `C_CUR_EDGES`) at the
/// start of a search.
pub(crate) const C_ARRIVED: usize = 21;
/// First word of the level records in the history buffer: they follow the
/// command's two u64 timestamps.
pub(crate) const RECORD_BASE_WORDS: u32 = 4;
/// Most entries one workgroup scans in workgroup memory (the WGSL override
/// `SCAN_CAP`): a Sparse frontier of more vertices is scanned in chunks.
pub(crate) const SCAN_CAP: u32 = 2048;

/// Fewest edges each invocation of a Sparse expansion takes (the WGSL
/// override `EDGES_PER_LANE`). A Sparse frontier of at most
/// `min(width * SPARSE_EDGES_PER_LANE, SCAN_CAP)` vertices is always scanned
/// by every workgroup itself, with no chunk-scan dispatch.
pub(crate) const SPARSE_EDGES_PER_LANE: u32 = 2;

/// Degree loads above which a Sparse frontier that one workgroup could scan
/// is scanned in chunks instead (the WGSL override `REPEATED_SCAN_LOADS`):
/// every workgroup of the expansion scans the whole frontier otherwise.
pub(crate) const REPEATED_SCAN_LOADS: u64 = 1 << 18;

/// Rounds of a Hybrid chunk's width its mid-degree vertices are walked for
/// (the WGSL override `MID_ROUNDS`); beyond them they become pieces.
pub(crate) const HYBRID_MID_ROUNDS: u32 = 8;

/// Most out-edges of a Hybrid frontier vertex expanded by its own invocation
/// (the WGSL override `LIGHT_DEGREE`). A graph with a vertex above it may
/// produce pieces (heavy vertices, or mid-degree ones a crowded chunk hands
/// on), so its Hybrid levels record the piece dispatch.
pub(crate) const HYBRID_LIGHT_DEGREE: u32 = 32;

/// Bytes of one of the two indirect dispatch-argument buffers (the level
/// about to run is dispatched from one while the other is written with the
/// next level's), both carved from the end of the layout's work array (its
/// slack of 1024 words holds them).
pub(crate) const ARGS_BYTES: u64 = 64;
/// Byte offset of the level kernel's arguments.
pub(crate) const ARGS_LEVEL: u64 = 0;
/// Byte offset of Sparse's chunk-scan arguments.
pub(crate) const ARGS_SCAN: u64 = 16;
/// Byte offset of Hybrid's piece-dispatch arguments.
pub(crate) const ARGS_PIECES: u64 = 32;

/// Slot kinds understood by `open_level` (see `slots_for`). A Hybrid
/// command whose later levels record no piece dispatch gets its own kind,
/// so that those levels end in the light pass.
fn slot_kind(topology: MegakernelExecutionTopology, later_pieces: bool) -> u32 {
    match topology {
        MegakernelExecutionTopology::WarpSparseFrontier => 0,
        MegakernelExecutionTopology::FusedWave => 1,
        MegakernelExecutionTopology::DenseFrontier => 2,
        MegakernelExecutionTopology::BlockDenseFrontier => 3,
        // Sized by the frontier's edges, not its vertices.
        MegakernelExecutionTopology::SparseFrontier => 4,
        // One slot per frontier vertex, plus the heavy-vertex pieces.
        MegakernelExecutionTopology::HybridFrontier if later_pieces => 5,
        MegakernelExecutionTopology::HybridFrontier => 6,
    }
}

/// Parameters of one command, written to control words 0..16 before it runs.
pub(crate) struct CommandHeader {
    /// Vertices in the frontier the command starts from.
    pub frontier_len: u32,
    /// Depth of that frontier.
    pub level: u32,
    /// Topology every level of the command runs.
    pub topology: MegakernelExecutionTopology,
    /// Cap of device-sized dispatches.
    pub max_workgroups: u32,
    /// Band limit on a level's frontier out-edges (u32 on this backend).
    pub band_max_frontier_edges: u32,
    /// Workgroup width of the level kernel.
    pub width: u32,
    /// Levels recorded into the command.
    pub levels: u32,
    /// Whether the command's later levels record Hybrid's piece dispatch.
    pub later_pieces: bool,
}

impl CommandHeader {
    /// The 16 command words, in control-block order.
    pub(crate) fn words(&self) -> [u32; COMMAND_WORDS] {
        let mut w = [0u32; COMMAND_WORDS];
        w[C_CUR_COUNT] = self.frontier_len;
        w[C_LEVEL] = self.level;
        // next/edges/examined/stopped/pieces/conv/chain index/sparse
        // chunk/piece groups start at 0.
        w[9] = slot_kind(self.topology, self.later_pieces);
        w[10] = self.max_workgroups;
        w[11] = self.band_max_frontier_edges;
        w[12] = self.width;
        w[C_LEVELS] = self.levels;
        w
    }
}

/// Graph constants, written to control words 16..20 at upload.
pub(crate) fn graph_words(
    vertex_count: u32,
    out_per_segment: u32,
    in_per_segment: u32,
    record_base: u32,
) -> [u32; GRAPH_WORDS] {
    [
        vertex_count,
        out_per_segment.max(1),
        in_per_segment.max(1),
        record_base,
    ]
}
