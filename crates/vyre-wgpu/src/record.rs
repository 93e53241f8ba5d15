//! Recording one command: its frontier conversion and every level, in one
//! compute pass per segment (wgpu orders the dispatches of a pass with
//! barriers), then the copy of its timestamps and level records (and a
//! fused launch's status words) to the staging buffer. A fused launch is
//! one dispatch on its first level, in the fused kernel's group.
//!
//! A long chain is recorded and submitted in segments of growing length
//! ([`segments`]), so the device runs the first levels while the host still
//! records the rest.
//!
//! Every dispatch of a level runs on the level's grid: the command's launch
//! grid on its first level, the arguments the level before wrote on later
//! ones (`chain.wgsl`), so a chained level records only a bind-group switch
//! and its dispatches.

use std::ops::Range;

use vyre_driver::backend::SearchPosition;

use vyre_wgsl_abi::batch::{LANE_COUNT_BYTES, lane_levels_in_staging};
use vyre_wgsl_abi::control::{FUSED_STATUS, RECORD_BASE_WORDS};
use vyre_wgsl_abi::fused::STATUS_BYTES;
use vyre_wgsl_abi::readback_bytes;

use crate::batch::BatchBuffers;
use crate::device_graph::DeviceGraph;
use crate::kernels::Kernel;

/// One dispatch of a level, with its pipeline.
pub(crate) struct Dispatch {
    pub kernel: Kernel,
    pub pipeline: wgpu::ComputePipeline,
}

/// The frontier conversion a command starts with, on its own grid: a lane
/// per item it walks (`WaveCommand::conversion_workgroups`), not the first
/// level's grid, which a small frontier's level would leave striding over
/// the whole bitmap with a few workgroups.
pub(crate) struct Conversion {
    pub dispatch: Dispatch,
    pub workgroups: u32,
}

/// Everything one command records.
pub(crate) struct CommandRecipe<'a> {
    pub graph: &'a DeviceGraph,
    /// Where the frontier is: level `k` runs on frontier set
    /// `position.buffer_of_level(k, true)`.
    pub position: SearchPosition,
    /// Levels recorded.
    pub levels: u32,
    /// Frontier conversion before the first level.
    pub conversion: Option<Conversion>,
    /// Dispatches of the first level and of every later one.
    pub first_steps: Vec<Dispatch>,
    pub later_steps: Vec<Dispatch>,
    /// The first level's grid.
    pub launch_grid: [u32; 3],
    /// Every later level's grid (`CommandPlan::later_grid`).
    pub later_grid: [u32; 3],
    /// Whether to write the command's begin and end timestamps.
    pub timed: bool,
    /// The batch pass a batch command runs in: its groups are bound instead
    /// of the search's, its levels' lane counts cleared before and copied to
    /// staging after the level records.
    pub batch: Option<&'a BatchBuffers>,
}

impl CommandRecipe<'_> {
    /// Whether the command is a fused launch (whose status words are read
    /// back after its records).
    pub(crate) fn fused(&self) -> bool {
        self.first_steps.iter().any(|s| s.kernel == Kernel::Fused)
    }
}

/// The pass state that makes redundant bind-group and pipeline changes
/// cheap to skip.
struct PassState<'p> {
    pass: wgpu::ComputePass<'p>,
    /// The frontier set bound, and whether in the fused kernel's group.
    set: Option<(u32, bool)>,
    kernel: Option<Kernel>,
    dispatches: u32,
}

impl PassState<'_> {
    /// Bind frontier set `set`'s group for `kernel`.
    fn bind(&mut self, recipe: &CommandRecipe<'_>, set: u32, kernel: Kernel) {
        let fused = kernel == Kernel::Fused;
        if self.set != Some((set, fused)) {
            let graph = recipe.graph;
            let groups = match recipe.batch {
                _ if fused => &graph.fused_groups,
                Some(batch) => &batch.groups,
                None => &graph.state_groups,
            };
            self.pass.set_bind_group(0, &groups[set as usize], &[]);
            self.set = Some((set, fused));
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
/// previous one, which takes longer than recording it).
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
/// the clearing of the level records and the conversion; with the last, the
/// timestamps' resolution and the copy to staging. Returns the dispatches
/// recorded.
pub(crate) fn record(
    encoder: &mut wgpu::CommandEncoder,
    recipe: &CommandRecipe<'_>,
    range: Range<u32>,
) -> u32 {
    let graph = recipe.graph;
    let first_set = recipe.position.buffer_of_level(0, true);
    let opens = range.start == 0;
    let closes = range.end >= recipe.levels;
    if opens {
        // Every counter of every level starts at 0 and is only added to
        // until the host reads it back.
        let records = 4 * u64::from(RECORD_BASE_WORDS);
        let bytes = readback_bytes(recipe.levels) - records;
        graph.history.clear(encoder, records, Some(bytes));
        // A fused launch's arrivals, piece counts and failure flags, or the
        // first level's words, start at 0.
        if recipe.fused() {
            let status = 4 * FUSED_STATUS.start as u64;
            graph.control.clear(encoder, status, Some(STATUS_BYTES));
        } else {
            graph.level_words[first_set as usize].clear(encoder, 0, None);
        }
        if let Some(batch) = recipe.batch {
            let lanes = u64::from(recipe.levels) * LANE_COUNT_BYTES;
            encoder.clear_buffer(&batch.tallies, 0, Some(lanes));
        }
        if recipe
            .conversion
            .as_ref()
            .is_some_and(|c| c.dispatch.kernel == Kernel::QueueToBitmap)
        {
            graph.bitmaps[first_set as usize].clear(encoder, 0, None);
        }
    }
    let timestamp_writes = graph
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
        let step = &conversion.dispatch;
        state.bind(recipe, first_set, step.kernel);
        state.pipeline(step.kernel, &step.pipeline);
        state.pass.dispatch_workgroups(conversion.workgroups, 1, 1);
        state.dispatches += 1;
    }
    for k in range {
        let set = recipe.position.buffer_of_level(k, true);
        let steps = if k == 0 {
            &recipe.first_steps
        } else {
            &recipe.later_steps
        };
        for step in steps {
            state.bind(recipe, set, step.kernel);
            state.pipeline(step.kernel, &step.pipeline);
            let [x, y, z] = if k == 0 {
                recipe.launch_grid
            } else {
                recipe.later_grid
            };
            state.pass.dispatch_workgroups(x, y, z);
            state.dispatches += 1;
        }
    }
    let dispatches = state.dispatches;
    drop(state);
    if !closes {
        return dispatches;
    }
    let (history, at) = graph.history.at(0);
    if let (true, Some(query_set)) = (recipe.timed, &graph.query_set) {
        encoder.resolve_query_set(query_set, 0..2, history, at);
    }
    let records = readback_bytes(recipe.levels);
    encoder.copy_buffer_to_buffer(history, at, &graph.staging, 0, records);
    if recipe.fused() {
        let (control, status) = graph.control.at(4 * FUSED_STATUS.start as u64);
        encoder.copy_buffer_to_buffer(control, status, &graph.staging, records, STATUS_BYTES);
    }
    if let Some(batch) = recipe.batch {
        let in_staging = lane_levels_in_staging(recipe.levels, graph.staging.size());
        let bytes = u64::from(in_staging) * LANE_COUNT_BYTES;
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(&batch.tallies, 0, &graph.staging, records, bytes);
        }
    }
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
