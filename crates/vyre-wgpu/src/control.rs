//! Word indices of the control block, the level records and the per-set
//! level words, mirrored from `shaders/wgsl/common.wgsl` and
//! `shaders/wgsl/chain.wgsl`.

use vyre_driver::backend::WaveCommand;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

/// Vertices in the frontier the command starts from.
pub(crate) const C_CUR_COUNT: usize = 0;
/// Out-edges of that frontier.
const C_CUR_EDGES: usize = 1;
/// Depth of that frontier.
const C_LEVEL: usize = 2;
/// How a level's vertex slots are counted (`lanes_by_vertices`).
const C_SLOT_KIND: usize = 5;
/// The command's `LevelSizing::edges_per_lane`.
const C_EDGES_PER_LANE: usize = 6;
/// The command's `LevelSizing::max_workgroups`.
const C_MAX_WORKGROUPS: usize = 7;
/// Most out-edges of the frontier of a later level that runs.
const C_BAND_MAX: usize = 8;
/// Which levels record Sparse's chunk scan (bit 0 the first, bit 1 later).
const C_SCAN_RECORDED: usize = 9;
/// Words 0..16 are rewritten before every command (the stop flag and the
/// conversion cursor start at 0).
pub(crate) const COMMAND_WORDS: usize = 16;
/// Index of the first graph-constant word.
pub(crate) const C_VERTEX_COUNT: usize = 16;
/// Words 16..20 are written at upload.
pub(crate) const GRAPH_WORDS: usize = 4;
/// First word of the level records in the history buffer: they follow the
/// command's two u64 timestamps.
pub(crate) const RECORD_BASE_WORDS: u32 = 4;
/// Words of one level record: found, their out-edges, edges examined, the
/// workgroups the level ran with.
pub(crate) const RECORD_WORDS: u32 = 4;
/// Most entries one workgroup scans in workgroup memory (the WGSL override
/// `SCAN_CAP`): a Sparse frontier of more vertices is scanned in chunks.
pub(crate) const SCAN_CAP: u32 = 2048;

/// Degree loads above which (and above the level's edges) a Sparse frontier
/// that one workgroup could scan is scanned in chunks instead, where the
/// scan is recorded (the WGSL override `REPEATED_SCAN_LOADS`): every
/// workgroup of the expansion scans the whole frontier otherwise.
pub(crate) const REPEATED_SCAN_LOADS: u64 = 1 << 18;

/// Rounds of a Hybrid chunk's width its mid-degree vertices are walked for
/// (the WGSL override `MID_ROUNDS`); beyond them they become pieces.
pub(crate) const HYBRID_MID_ROUNDS: u32 = 8;

/// Most out-edges of a Hybrid frontier vertex expanded by its own invocation
/// (the WGSL override `LIGHT_DEGREE`). A graph with a vertex above it may
/// produce pieces (heavy vertices, or mid-degree ones a crowded chunk hands
/// on), so its Hybrid levels record the piece dispatch.
pub(crate) const HYBRID_LIGHT_DEGREE: u32 = 32;

/// Bytes of one of the two indirect dispatch-argument buffers: two entries
/// of (x, y, z, pad). Both are carved from the end of the layout's work
/// array (its slack of 1024 words holds them).
pub(crate) const ARGS_BYTES: u64 = 32;
/// Every entry of a fresh arguments buffer: one workgroup, so that a level
/// that may not run still starts and finds the chain stopped.
pub(crate) const ARGS_RESET: [u32; 8] = [1, 1, 1, 0, 1, 1, 1, 0];

/// Bytes of one of the two level-word buffers (the index of the level that
/// runs on the set, and its Hybrid piece count), also carved from the work
/// array's slack.
pub(crate) const LEVEL_WORDS_BYTES: u64 = 16;

/// Byte offset of level `level`'s entry in its arguments buffer (WGSL
/// `args_entry`).
pub(crate) fn args_offset(level: u32) -> u64 {
    16 * u64::from((level / 2) % 2)
}

/// Slot kinds understood by `lanes_by_vertices` (mirroring `slots_for`).
pub(crate) fn slot_kind(topology: T) -> u32 {
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
pub(crate) fn command_words(
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
    w[C_SCAN_RECORDED] = u32::from(scan_first) | (u32::from(scan_later) << 1);
    w
}

/// The command's band in the device's 32-bit words.
pub(crate) fn band(command: &WaveCommand) -> u32 {
    saturate(command.band_max_frontier_edges)
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
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

#[cfg(test)]
mod tests {
    use super::args_offset;

    #[test]
    fn a_level_never_grows_the_entry_it_is_dispatched_from_or_an_entry_in_use() {
        // Level k is dispatched from entry e(k) of buffer k % 2 (relative to
        // the first set), grows e(k + 1) and resets e(k + 3) of the other
        // buffer: e(k + 3) must differ from e(k + 1) (grown at the same
        // time) and equal e(k - 1) (whose level is done).
        for k in 1..64u32 {
            assert_ne!(args_offset(k + 3), args_offset(k + 1), "level {k}");
            assert_eq!(args_offset(k + 3), args_offset(k - 1), "level {k}");
        }
        assert!((0..64).all(|k| args_offset(k) + 12 <= super::ARGS_BYTES));
    }
}
