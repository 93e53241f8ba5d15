//! Word indices of the control block, the level records and the per-set
//! level words, mirrored from `shaders/wgsl/base.wgsl`, `chain.wgsl` and
//! `fused.wgsl`, and the words a host writes before each command.

use vyre_driver::backend::WaveCommand;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

/// Vertices in the frontier the command starts from.
pub const C_CUR_COUNT: usize = 0;
/// Out-edges of that frontier.
pub const C_CUR_EDGES: usize = 1;
/// Depth of that frontier.
pub const C_LEVEL: usize = 2;
/// How a level's vertex slots are counted (`lanes_by_vertices`).
pub const C_SLOT_KIND: usize = 5;
/// The command's `LevelSizing::edges_per_lane`.
pub const C_EDGES_PER_LANE: usize = 6;
/// The command's `LevelSizing::max_workgroups`.
pub const C_MAX_WORKGROUPS: usize = 7;
/// Most out-edges of the frontier of a later level that runs.
pub const C_BAND_MAX: usize = 8;
/// Which levels record Sparse's chunk scan (bit 0 the first, bit 1 later).
pub const C_SCAN_RECORDED: usize = 9;
/// Fused: most levels the launch runs.
pub const C_MAX_LEVELS: usize = 10;
/// Fused: [`MODE_LEVELS`] or [`MODE_PROBE`].
pub const C_MODE: usize = 11;
/// Fused: 1 when the graph has a vertex of more than
/// [`crate::LIGHT_DEGREE`] out-edges (the launch's first frontier is cut
/// into pieces before its first level).
pub const C_HEAVY: usize = 12;
/// Fused: polls one wait at a grid barrier makes at most.
pub const C_SPIN_LIMIT: usize = 13;
/// Per-wave: one past the last vertex with an in-edge (bottom-up levels
/// skip the rest, which no level can discover).
pub const C_IN_EDGE_END: usize = 14;
/// Most vertices in the frontier of a later level that runs.
pub const C_BAND_MAX_VERTICES: usize = 15;
/// Words 0..16 are rewritten before every command (the stop flag and the
/// conversion cursor start at 0).
pub const COMMAND_WORDS: usize = 16;
/// Index of the first graph-constant word.
pub const C_VERTEX_COUNT: usize = 16;
/// Words 16..20 are written at upload.
pub const GRAPH_WORDS: usize = 4;
/// Fused: arrivals at grid barriers so far (the k-th barrier is passed at
/// k times the workgroup count).
pub const C_ARRIVALS: usize = 20;
/// Fused: pieces of a level's frontier, three slots from here.
pub const C_PIECES: usize = 21;
/// Fused: set when a workgroup stopped waiting at a grid barrier (the host
/// aborted, or the spin limit ran out): the launch's results are void.
pub const C_FAILED: usize = 24;
/// Probe: workgroups that saw every workgroup arrive.
pub const C_PROBE_COMPLETE: usize = 25;
/// Probe: fewest arrivals a workgroup saw when it stopped waiting (the host
/// starts it at `u32::MAX`).
pub const C_PROBE_FEWEST: usize = 26;
/// Probe: workgroups that read their neighbour's marker after the barrier.
pub const C_PROBE_SAW_WRITE: usize = 27;
/// Fused: set when a waiting workgroup saw the host's abort word.
pub const C_ABORTED: usize = 28;
/// Fused, workgroup-local levels (`fused_local.wgsl`): the spill cursor of
/// each queue, two words from here.
pub const C_SPILLS: usize = 29;
/// Words a host writes before every command: the command words, the graph
/// words, and the fused and probe words zeroed (or set).
pub const HOST_WORDS: usize = 32;
/// The fused kernel's run and probe words: `[C_ARRIVALS, HOST_WORDS)`.
pub const FUSED_STATUS: std::ops::Range<usize> = C_ARRIVALS..HOST_WORDS;

// The word ranges do not overlap, and the host's words fit the control
// block the kernels bind (64 words).
const _: () = {
    assert!(C_VERTEX_COUNT == COMMAND_WORDS);
    assert!(C_ARRIVALS == C_VERTEX_COUNT + GRAPH_WORDS);
    assert!(C_MAX_LEVELS > C_SCAN_RECORDED && C_SPIN_LIMIT < C_IN_EDGE_END);
    assert!(C_IN_EDGE_END < C_BAND_MAX_VERTICES && C_BAND_MAX_VERTICES < COMMAND_WORDS);
    assert!(C_PIECES + 3 <= C_FAILED && C_PROBE_SAW_WRITE < C_ABORTED && C_ABORTED < C_SPILLS);
    assert!(C_SPILLS + 2 <= HOST_WORDS);
    assert!(HOST_WORDS as u64 * 4 <= vyre_driver::backend::CONTROL_BYTES);
};

/// [`C_MODE`]: run levels.
pub const MODE_LEVELS: u32 = 0;
/// [`C_MODE`]: the co-residency probe.
pub const MODE_PROBE: u32 = 1;

/// Polls a probe workgroup waits for the others at most. lavapipe silently
/// ends every loop after 65,535 iterations per invocation; staying below it
/// keeps the bound this kernel's own. On a GPU one poll is at least an L2
/// round trip, so this waits milliseconds: far longer than launching the
/// grid takes.
pub const PROBE_SPIN_LIMIT: u32 = 60_000;

/// Polls a fused launch waits at one grid barrier at most (a second or more
/// on a GPU, far beyond any level the band admits). The host's deadline and
/// abort word end a stuck launch sooner.
pub const FUSED_SPIN_LIMIT: u32 = 1 << 24;

/// First word of the level records in the history buffer: they follow the
/// command's two u64 timestamps.
pub const RECORD_BASE_WORDS: u32 = 4;
/// Words of one level record: found, their out-edges, edges examined, the
/// workgroups the level ran with.
pub const RECORD_WORDS: u32 = 4;

/// Bytes of one of the two level-word buffers (the index of the level that
/// runs on the set, and its Hybrid piece count), also carved from the work
/// array's slack.
pub const LEVEL_WORDS_BYTES: u64 = 16;

/// Slot kinds understood by `lanes_by_vertices` (mirroring `slots_for`).
#[must_use]
pub fn slot_kind(topology: T) -> u32 {
    match topology {
        T::WarpSparseFrontier => 0,
        T::SparseFrontier | T::HybridFrontier | T::FusedWave => 1,
        T::DenseFrontier => 2,
        T::BlockDenseFrontier => 3,
    }
}

/// The 16 command words, in control-block order, for `command` with
/// Sparse's chunk scan recorded on its first level (`scan_first`) and on
/// later ones (`scan_later`).
#[must_use]
pub fn command_words(
    command: &WaveCommand,
    scan_first: bool,
    scan_later: bool,
) -> [u32; COMMAND_WORDS] {
    let position = &command.position;
    let later = &command.launch.later;
    let mut w = [0u32; COMMAND_WORDS];
    w[C_CUR_COUNT] = position.frontier_len;
    w[C_CUR_EDGES] = saturate(position.frontier_edges);
    w[C_LEVEL] = position.level;
    w[C_SLOT_KIND] = slot_kind(command.topology);
    w[C_EDGES_PER_LANE] = later.edges_per_lane;
    w[C_MAX_WORKGROUPS] = later.max_workgroups;
    w[C_BAND_MAX] = band(command);
    w[C_BAND_MAX_VERTICES] = command.band_max_frontier_vertices;
    w[C_SCAN_RECORDED] = u32::from(scan_first) | (u32::from(scan_later) << 1);
    w
}

/// The command's band of out-edges in the device's 32-bit words.
#[must_use]
pub fn band(command: &WaveCommand) -> u32 {
    saturate(command.band_max_frontier_edges)
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// Graph constants, written to control words 16..20 at upload.
#[must_use]
pub fn graph_words(
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
