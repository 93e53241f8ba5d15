//! Recording one command: its frontier conversion, the opening of its first
//! level where a dispatch of that level is sized on the device, and every
//! level, in one compute pass per segment (wgpu orders the dispatches of a
//! pass with barriers), then the copy of its timestamps and level records to
//! the staging buffer.
//!
//! A long chain is recorded and submitted in segments of growing length
//! ([`segments`]), so the device runs the first levels while the host still
//! records the rest: recording costs about 2 µs per level on the H200, a
//! fifth of a grid level, and would otherwise leave the device idle.
//!
//! A level ends in its own kernel (the last workgroup of its last dispatch
//! closes it and opens the next, `chain.wgsl`), so a chained level records
//! only a bind-group switch and its dispatches: the bind group of frontier
//! set `d` writes the next level's dispatch arguments into buffer `1 - d`,
//! and the next level (set `1 - d`) is dispatched from there.

use std::ops::Range;

use crate::control::ARGS_LEVEL;
use crate::kernels::Kernel;
use crate::level_steps::Grid;
use crate::resident::Resident;

/// One dispatch of a level, with its pipeline.
pub(crate) struct Dispatch {
    pub kernel: Kernel,
    pub pipeline: wgpu::ComputePipeline,
    pub grid: Grid,
}

/// A dispatch of fixed size before the levels.
pub(crate) struct Prologue {
    pub kernel: Kernel,
    pub pipeline: wgpu::ComputePipeline,
    pub groups: u32,
}

/// Everything one command records.
pub(crate) struct CommandRecipe<'a> {
    pub resident: &'a Resident,
    /// Frontier set (0 or 1) of the first level.
    pub first_set: usize,
    /// Levels recorded.
    pub levels: u32,
    /// Frontier conversion before the first level.
    pub conversion: Option<Prologue>,
    /// `level_begin`, when a dispatch of the first level is sized on the
    /// device.
    pub begin: Option<wgpu::ComputePipeline>,
    /// Dispatches of the first level and of every later one.
    pub first_steps: Vec<Dispatch>,
    pub later_steps: Vec<Dispatch>,
    /// Grid of the first level's `Grid::Launch` dispatches.
    pub launch_grid: [u32; 3],
    /// Whether to write the command's begin and end timestamps.
    pub timed: bool,
}

/// Bytes of the history the host reads back for `levels` levels: the two
/// timestamps, then one 16-byte record per level.
pub(crate) fn readback_bytes(resident: &Resident, levels: u32) -> u64 {
    resident.record_offset() + 16 * u64::from(levels)
}

/// The pass state that makes redundant bind-group and pipeline changes
/// cheap to skip.
struct PassState<'p> {
    pass: wgpu::ComputePass<'p>,
    set: Option<usize>,
    kernel: Option<Kernel>,
    dispatches: u32,
}

impl PassState<'_> {
    fn bind(&mut self, resident: &Resident, set: usize) {
        if self.set != Some(set) {
            self.pass
                .set_bind_group(0, &resident.state_groups[set], &[]);
            self.set = Some(set);
        }
    }

    fn pipeline(&mut self, kernel: Kernel, pipeline: &wgpu::ComputePipeline) {
        if self.kernel != Some(kernel) {
            self.pass.set_pipeline(pipeline);
            self.kernel = Some(kernel);
        }
    }
}

/// Levels recorded in one go before the first submission of a chain.
const FIRST_SEGMENT_LEVELS: u32 = 8;

/// The level ranges a command of `levels` levels is recorded and submitted
/// in: one range for a short command, then segments that double from
/// [`FIRST_SEGMENT_LEVELS`] (each is recorded while the device runs the
/// previous one, which takes about five times longer).
pub(crate) fn segments(levels: u32) -> Vec<Range<u32>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut len = if levels <= 2 * FIRST_SEGMENT_LEVELS {
        levels
    } else {
        FIRST_SEGMENT_LEVELS
    };
    while start < levels {
        let end = start.saturating_add(len).min(levels);
        out.push(start..end);
        start = end;
        len = len.saturating_mul(2);
    }
    if out.is_empty() {
        out.push(0..0);
    }
    out
}

/// Record levels `range` of `recipe` into `encoder`: with the first level,
/// the conversion and opening; with the last, the timestamps' resolution and
/// the copy to staging. Returns the dispatches recorded.
pub(crate) fn record(
    encoder: &mut wgpu::CommandEncoder,
    recipe: &CommandRecipe<'_>,
    range: Range<u32>,
) -> u32 {
    let resident = recipe.resident;
    let first_set = recipe.first_set;
    let opens = range.start == 0;
    let closes = range.end >= recipe.levels;
    if opens
        && recipe
            .conversion
            .as_ref()
            .is_some_and(|c| c.kernel == Kernel::QueueToBitmap)
    {
        encoder.clear_buffer(&resident.bitmaps[first_set], 0, None);
    }
    let timestamp_writes = resident
        .query_set
        .as_ref()
        .filter(|_| recipe.timed && (opens || closes))
        .map(|query_set| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: opens.then_some(0),
            end_of_pass_write_index: closes.then_some(1),
        });
    let mut state = PassState {
        pass: encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre command"),
            timestamp_writes,
        }),
        set: None,
        kernel: None,
        dispatches: 0,
    };
    if let Some(conversion) = recipe.conversion.as_ref().filter(|_| opens) {
        state.bind(resident, first_set);
        state.pipeline(conversion.kernel, &conversion.pipeline);
        state.pass.dispatch_workgroups(conversion.groups, 1, 1);
        state.dispatches += 1;
    }
    if let Some(begin) = recipe.begin.as_ref().filter(|_| opens) {
        // The other set's bind group writes the arguments of set first_set.
        state.bind(resident, 1 - first_set);
        state.pipeline(Kernel::LevelBegin, begin);
        state.pass.dispatch_workgroups(1, 1, 1);
        state.dispatches += 1;
    }
    for k in range {
        let set = (first_set + k as usize) % 2;
        state.bind(resident, set);
        let args = &resident.dispatch_args[set];
        let steps = if k == 0 {
            &recipe.first_steps
        } else {
            &recipe.later_steps
        };
        for step in steps {
            state.pipeline(step.kernel, &step.pipeline);
            match (k, step.grid) {
                (0, Grid::Launch) => {
                    let [x, y, z] = recipe.launch_grid;
                    state.pass.dispatch_workgroups(x, y, z);
                }
                (_, Grid::Launch) => state.pass.dispatch_workgroups_indirect(args, ARGS_LEVEL),
                (_, Grid::Device(offset)) => state.pass.dispatch_workgroups_indirect(args, offset),
            }
            state.dispatches += 1;
        }
    }
    let dispatches = state.dispatches;
    drop(state);
    if !closes {
        return dispatches;
    }
    if let (true, Some(query_set)) = (recipe.timed, &resident.query_set) {
        encoder.resolve_query_set(query_set, 0..2, &resident.history, 0);
    }
    encoder.copy_buffer_to_buffer(
        &resident.history,
        0,
        &resident.staging,
        0,
        readback_bytes(resident, recipe.levels),
    );
    dispatches
}

#[cfg(test)]
mod tests {
    use super::segments;

    #[test]
    fn segments_cover_every_level_once_in_order() {
        for levels in [0u32, 1, 2, 16, 17, 64, 256, 1000, u32::MAX] {
            let parts = segments(levels);
            assert_eq!(parts[0].start, 0);
            assert_eq!(parts.last().unwrap().end, levels);
            for pair in parts.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{levels}: {parts:?}");
                assert!(pair[0].end > pair[0].start, "{levels}: {parts:?}");
            }
        }
    }

    #[test]
    fn short_commands_are_one_segment_and_long_ones_double() {
        assert_eq!(segments(1).len(), 1);
        assert_eq!(segments(16), vec![0..16]);
        assert_eq!(
            segments(256),
            [0..8, 8..24, 24..56, 56..120, 120..248, 248..256]
        );
    }
}
