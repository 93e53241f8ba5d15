//! What every partitioned backend reports the same way: a level's record
//! from its all-reduced counts, and the refusal of batch passes.

use crate::backend::{BackendError, CheckedCommand, LevelRecord};

/// Level `k` of `command` from the counts the ranks all-reduced (`[found,
/// their out-edges, edges examined]`), with `frontier_in` vertices in its
/// frontier; and whether the command runs no level after it (the frontier
/// emptied or left the command's band).
#[must_use]
pub fn reduced_level(
    command: &CheckedCommand,
    k: u32,
    frontier_in: u32,
    counts: [u64; 3],
    device_ns: u64,
) -> (LevelRecord, bool) {
    let frontier_out = u32::try_from(counts[0]).unwrap_or(u32::MAX);
    let record = LevelRecord {
        level: command.position.level + k,
        frontier_in,
        frontier_out,
        frontier_out_edges: counts[1],
        edges_examined: counts[2],
        device_ns: Some(device_ns),
    };
    let last = command.ends_after(frontier_out, counts[1]);
    (record, last)
}

/// The error of a batch pass asked of a partitioned device.
#[must_use]
pub fn batches_refused() -> BackendError {
    BackendError::new(
        "batch passes do not run on a partitioned device. Fix: run batches on one device (one rank).",
    )
}
