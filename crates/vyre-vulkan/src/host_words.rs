//! What the host and a recorded command exchange through the staging buffer, so
//! that a recording serves every command of its shape: before the submission
//! the host writes the control words, the first level's grid, every later
//! level's and the frontier conversion's at the start of staging, and the recording's prologue
//! copies them to the device; its epilogue copies the level records (and a
//! fused launch's status words) back to the start of staging. The last word is
//! the abort word a fused launch polls.

use vyre_driver::backend::BackendError;
use vyre_wgsl_abi::control::HOST_WORDS;
use vyre_wgsl_abi::readback_bytes;

use crate::memory::DeviceBuffer;

/// Bytes of the control words the host writes (from staging offset 0 to
/// control offset 0).
pub(crate) const CONTROL_BYTES: u64 = 4 * HOST_WORDS as u64;
/// Staging offset of the first level's grid (x, y, z, pad).
pub(crate) const GRID_AT: u64 = CONTROL_BYTES;
/// Bytes of a grid.
pub(crate) const GRID_BYTES: u64 = 16;
/// Staging offset of every later level's grid (x, 1, 1, pad).
pub(crate) const LATER_GRID_AT: u64 = GRID_AT + GRID_BYTES;
/// Staging offset of the frontier conversion's grid (x, 1, 1, pad).
pub(crate) const CONVERSION_GRID_AT: u64 = LATER_GRID_AT + GRID_BYTES;
/// Bytes of a fused launch's status words, read back after the records.
pub(crate) use vyre_wgsl_abi::fused::STATUS_BYTES;

/// Staging offset of a fused launch's status words after `levels` records.
pub(crate) fn status_at(levels: u32) -> u64 {
    readback_bytes(levels)
}

/// Staging bytes commands of up to `max_levels` levels need.
pub(crate) fn staging_needed(max_levels: u32) -> u64 {
    (CONVERSION_GRID_AT + GRID_BYTES).max(status_at(max_levels) + STATUS_BYTES) + 4
}

fn unmapped() -> BackendError {
    BackendError::device(
        "the staging buffer is not host-visible. Fix: this device has no host-visible memory vyre can map; use another device or backend."
            .to_string(),
    )
}

fn put(bytes: &mut [u8], at: usize, words: &[u32]) {
    for (slot, word) in bytes[at..].chunks_exact_mut(4).zip(words) {
        slot.copy_from_slice(&word.to_le_bytes());
    }
}

/// The grids of a command's dispatches.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CommandGrids {
    /// The first level's (the command's launch grid).
    pub first: [u32; 3],
    /// Every later level's (`CommandPlan::later_grid`).
    pub later: [u32; 3],
    /// Workgroups of the frontier conversion (read only when it converts).
    pub conversion: u32,
}

/// Write a command's control words, its grids and the abort word (cleared)
/// into `staging`.
pub(crate) fn write_command(
    staging: &mut DeviceBuffer,
    control: &[u32; HOST_WORDS],
    grids: &CommandGrids,
) -> Result<(), BackendError> {
    let last = abort_at(staging);
    let bytes = staging.mapped_mut().ok_or_else(unmapped)?;
    put(bytes, 0, control);
    let [x, y, z] = grids.first;
    put(bytes, GRID_AT as usize, &[x, y, z, 0]);
    let [x, y, z] = grids.later;
    put(bytes, LATER_GRID_AT as usize, &[x, y, z, 0]);
    put(
        bytes,
        CONVERSION_GRID_AT as usize,
        &[grids.conversion.max(1), 1, 1, 0],
    );
    put(bytes, last, &[0]);
    Ok(())
}

/// Byte offset of the abort word: the buffer's last word (the binding the
/// fused kernel reads covers the whole buffer; the mapping may be longer).
fn abort_at(staging: &DeviceBuffer) -> usize {
    usize::try_from(staging.size - 4).unwrap_or(0)
}

/// Set the abort word a running fused launch polls.
pub(crate) fn abort(staging: &mut DeviceBuffer) -> Result<(), BackendError> {
    let last = abort_at(staging);
    let bytes = staging.mapped_mut().ok_or_else(unmapped)?;
    put(bytes, last, &[1]);
    Ok(())
}

/// `count` words of staging from byte `at`.
pub(crate) fn read(
    staging: &DeviceBuffer,
    at: u64,
    count: usize,
) -> Result<Vec<u32>, BackendError> {
    let bytes = staging.mapped().ok_or_else(unmapped)?;
    let at = usize::try_from(at).unwrap_or(usize::MAX);
    Ok(bytes
        .get(at..)
        .unwrap_or_default()
        .chunks_exact(4)
        .take(count)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_do_not_overlap_the_abort_word() {
        // The engine's 1024 levels: 16,400 bytes of records, then status.
        assert_eq!(staging_needed(1024), 16_400 + STATUS_BYTES + 4);
        assert_eq!(staging_needed(1), GRID_AT + 3 * GRID_BYTES + 4);
        assert_eq!(STATUS_BYTES, 48);
    }
}
