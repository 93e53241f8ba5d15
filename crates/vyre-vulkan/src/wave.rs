//! Running one checked per-wave command, of a search or of a batch pass:
//! its chain (the frontier conversion, then up to `max_levels` levels, each
//! later level sized on the device by the engine's rule) is recorded once
//! per graph and chain shape and submitted again; the command's words reach
//! the device through staging, and its level records, timestamps (and a
//! batch's lane counts, as far as staging holds them) come back in one
//! readback.

use ash::vk;
use vyre_driver::backend::BATCH_LANES;
use vyre_driver::backend::{BackendError, CheckedCommand, LaneCounts, WaveCommand, WaveReport};
use vyre_wgsl_abi::batch::{
    LANE_COUNT_BYTES, lane_counts_read, lane_levels_in_staging, lane_readback_bytes,
};
use vyre_wgsl_abi::control::{
    C_VERTEX_COUNT, COMMAND_WORDS, GRAPH_WORDS, HOST_WORDS, LEVEL_WORDS_BYTES, RECORD_BASE_WORDS,
    RECORD_WORDS,
};
use vyre_wgsl_abi::{CommandPlan, Kernel, LevelsRun, levels_run, readback_bytes};

use crate::barrier::{
    COMPUTE, EARLIER_WRITES, HOST_READ, INDIRECT, TRANSFER, TRANSFER_WRITE, barrier,
};
use crate::batch::BatchState;
use crate::gpu::Gpu;
use crate::host_words::{
    CONTROL_BYTES, CONVERSION_GRID_AT, CommandGrids, GRID_AT, GRID_BYTES, LATER_GRID_AT,
    STATUS_BYTES, status_at, write_command,
};
use crate::kernels::Kernels;
use crate::record::{ChainShape, CommandCache, Recorded, Step, Timestamps, record_chain};
use crate::resident::Resident;
use crate::submit::{submit_with_fence, wait_fence};
use crate::timing::{HostTiming, Phases};
use crate::transfer::read_back_at;

/// Everything a command needs from the backend.
pub(crate) struct WaveContext<'a> {
    pub gpu: &'a Gpu,
    pub kernels: &'a mut Kernels,
    pub records: &'a mut CommandCache<ChainShape, Recorded>,
    /// Chains recorded since open.
    pub recordings: &'a mut u64,
    pub resident: &'a mut Resident,
}

/// What one command measured.
pub(crate) struct Outcome {
    pub report: WaveReport,
    pub timing: HostTiming,
    /// Workgroups each level that ran was dispatched with.
    pub grids: Vec<u32>,
    /// A batch command's lane counts of each level that ran.
    pub lanes: Vec<LaneCounts>,
}

/// The shape of a per-wave `command` whose kernels `plan` gives.
pub(crate) fn chain_shape(command: &WaveCommand, plan: &CommandPlan) -> ChainShape {
    ChainShape {
        topology: command.topology,
        levels: command.max_levels,
        width: command.launch.workgroup_size_x,
        first_set: command.position.buffer_of_level(0, true),
        conversion: plan.conversion,
        first: plan.first.clone(),
        later: plan.later.clone(),
    }
}

/// The control words of `command`: its command words, the graph's, and the
/// fused words zeroed (or as `fused` sets them).
pub(crate) fn control_words(
    resident: &Resident,
    words: &[u32; COMMAND_WORDS],
) -> [u32; HOST_WORDS] {
    let mut control = [0u32; HOST_WORDS];
    control[..COMMAND_WORDS].copy_from_slice(words);
    control[C_VERTEX_COUNT..C_VERTEX_COUNT + GRAPH_WORDS].copy_from_slice(&resident.graph_words);
    control
}

/// What one recording holds besides its levels.
pub(crate) struct Frame {
    /// The frontier set level 0 reads.
    pub first_set: u32,
    /// Level records cleared before and read back after.
    pub history_levels: u32,
    /// Whether the command converts its frontier first: the conversion's
    /// grid is copied to its arguments.
    pub converts: bool,
    /// Whether the bitmap level 0 reads is cleared first (a queue-to-bitmap
    /// conversion fills it).
    pub clear_bitmap: bool,
    /// Whether a fused launch's status words are read back too.
    pub status: bool,
    /// A batch command's tallies: the lane counts of its levels are cleared
    /// before, and as many as staging holds copied after the records.
    pub tallies: Option<vk::Buffer>,
}

/// Record a command: the prologue that takes the host's words from staging
/// and clears the records, `levels` with barriers and timestamps, and the
/// epilogue that copies the records back to staging.
pub(crate) fn record_command(
    gpu: &Gpu,
    resident: &Resident,
    levels: &[Vec<Step>],
    frame: &Frame,
) -> Result<Recorded, BackendError> {
    let device = &gpu.device;
    let d = frame.first_set as usize;
    let work = resident.work.buffer;
    let carve = &resident.carve;
    let readback = readback_bytes(frame.history_levels);
    let records = 4 * u64::from(RECORD_BASE_WORDS);
    record_chain(
        gpu,
        levels,
        resident.timestamps.as_ref(),
        // SAFETY: live buffers with TRANSFER usage; every region lies within
        // its buffer (check_layout sized staging for the host's words, the
        // carve lies within the work buffer, the history holds the records).
        |command| unsafe {
            barrier(device, command, EARLIER_WRITES, &[TRANSFER]);
            let staging = resident.staging.buffer;
            let control = [vk::BufferCopy::default().size(CONTROL_BYTES)];
            device.cmd_copy_buffer(command, staging, resident.control.buffer, &control);
            let grids = [
                vk::BufferCopy::default()
                    .src_offset(GRID_AT)
                    .dst_offset(carve.first_args)
                    .size(GRID_BYTES),
                vk::BufferCopy::default()
                    .src_offset(LATER_GRID_AT)
                    .dst_offset(carve.later_args)
                    .size(GRID_BYTES),
                vk::BufferCopy::default()
                    .src_offset(CONVERSION_GRID_AT)
                    .dst_offset(carve.conversion_args)
                    .size(GRID_BYTES),
            ];
            let copied = if frame.converts { 3 } else { 2 };
            device.cmd_copy_buffer(command, staging, work, &grids[..copied]);
            device.cmd_fill_buffer(command, work, carve.level_words[d], LEVEL_WORDS_BYTES, 0);
            device.cmd_fill_buffer(
                command,
                resident.history.buffer,
                records,
                readback - records,
                0,
            );
            if frame.clear_bitmap {
                device.cmd_fill_buffer(command, resident.bitmaps[d].buffer, 0, vk::WHOLE_SIZE, 0);
            }
            if let Some(tallies) = frame.tallies {
                let lanes = u64::from(frame.history_levels) * LANE_COUNT_BYTES;
                device.cmd_fill_buffer(command, tallies, 0, lanes, 0);
            }
            barrier(device, command, TRANSFER_WRITE, &[COMPUTE, INDIRECT]);
        },
        // SAFETY: as above.
        |command| unsafe {
            barrier(device, command, COMPUTE, &[TRANSFER]);
            let history = [vk::BufferCopy::default().size(readback)];
            let staging = resident.staging.buffer;
            device.cmd_copy_buffer(command, resident.history.buffer, staging, &history);
            if frame.status {
                let status = [vk::BufferCopy::default()
                    .src_offset(4 * vyre_wgsl_abi::control::FUSED_STATUS.start as u64)
                    .dst_offset(status_at(frame.history_levels))
                    .size(STATUS_BYTES)];
                device.cmd_copy_buffer(command, resident.control.buffer, staging, &status);
            }
            let lanes = staged_lanes(frame.history_levels, resident);
            if let (Some(tallies), true) = (frame.tallies, lanes > 0) {
                let copy = [vk::BufferCopy::default()
                    .dst_offset(readback)
                    .size(u64::from(lanes) * LANE_COUNT_BYTES)];
                device.cmd_copy_buffer(command, tallies, staging, &copy);
            }
            barrier(device, command, TRANSFER_WRITE, &[HOST_READ]);
        },
    )
}

/// Levels of a `levels`-level batch command whose lane counts its epilogue
/// copies to staging.
fn staged_lanes(levels: u32, resident: &Resident) -> u32 {
    lane_levels_in_staging(levels, resident.staging.size)
}

/// The chain of `shape` for the current graph, recorded on a miss.
pub(crate) fn recording<'r>(
    records: &'r mut CommandCache<ChainShape, Recorded>,
    recordings: &mut u64,
    shape: &ChainShape,
    record: impl FnOnce() -> Result<Recorded, BackendError>,
) -> Result<(&'r Recorded, bool), BackendError> {
    let mut recorded = false;
    let entry = records.get_or_record(shape, |_| {
        recorded = true;
        *recordings += 1;
        record()
    })?;
    Ok((entry, recorded))
}

/// The levels `command` ran, from the `levels_recorded` records the
/// epilogue copied to staging.
pub(crate) fn levels_read(
    resident: &Resident,
    command: &CheckedCommand,
    levels_recorded: u32,
) -> Result<LevelsRun, BackendError> {
    let words = (RECORD_WORDS * levels_recorded) as usize;
    let records = crate::host_words::read(&resident.staging, readback_bytes(0), words)?;
    levels_run(command, &records)
}

/// Run `command`, of a search or (with `batch`) of a batch pass.
pub(crate) fn run(
    cx: WaveContext<'_>,
    command: &CheckedCommand,
    batch: Option<&BatchState>,
) -> Result<Outcome, BackendError> {
    let mut phases = Phases::begin();
    let gpu = cx.gpu;
    let plan = match batch {
        Some(_) => CommandPlan::of_batch(command, cx.resident.facts)?,
        None => CommandPlan::of(command, cx.resident.facts)?,
    };
    let shape = chain_shape(command, &plan);
    let control = control_words(cx.resident, &plan.words);
    let grids = CommandGrids {
        first: command.launch.dispatch_grid,
        later: plan.later_grid,
        conversion: command
            .conversion_workgroups(cx.resident.layout.vertex_count, batch.is_some())
            .unwrap_or(1),
    };
    write_command(&mut cx.resident.staging, &control, &grids)?;
    let resident = &*cx.resident;
    let kernels = cx.kernels;
    let (recorded, fresh) = recording(cx.records, cx.recordings, &shape, || {
        let sets = batch.map_or(resident.sets, |b| b.sets);
        let levels = chain_levels(kernels, resident, &shape, sets)?;
        let frame = Frame {
            first_set: shape.first_set,
            history_levels: shape.levels,
            converts: shape.conversion.is_some(),
            clear_bitmap: shape.conversion == Some(Kernel::QueueToBitmap),
            status: false,
            tallies: batch.map(|b| b.tallies.buffer),
        };
        record_command(gpu, resident, &levels, &frame)
    })?;
    phases.submitting();
    submit_with_fence(gpu, recorded.command, "submitting a chain of levels")?;
    phases.submitted();
    wait_fence(
        gpu,
        gpu.fence,
        gpu.command_limit,
        "running a chain of levels",
    )?;
    phases.done();
    let device_ns = resident
        .timestamps
        .as_ref()
        .map(Timestamps::command_ns)
        .transpose()?;
    let mut run = levels_read(resident, command, shape.levels)?;
    run.time_a_lone_level(command, device_ns);
    let mut readback = readback_bytes(shape.levels);
    let lanes = match batch {
        Some(batch) => {
            let staged = staged_lanes(shape.levels, resident);
            let words = (staged * BATCH_LANES) as usize;
            let words = crate::host_words::read(&resident.staging, readback, words)?;
            let ran = run.levels.len() as u32;
            readback += lane_readback_bytes(ran, staged);
            lane_counts_read(ran, &words, |at, rest| {
                read_back_at(gpu, &resident.staging, (&batch.tallies, at), rest)
            })?
        }
        None => Vec::new(),
    };
    Ok(Outcome {
        report: WaveReport {
            levels: run.levels,
            wall_ns: phases.wall_ns(),
            device_ns,
            readback_bytes: readback,
        },
        timing: phases.timing(fresh, shape.levels),
        grids: run.grids,
        lanes,
    })
}

/// The dispatches of every level of `shape`: level `k` reads frontier set
/// `first_set ^ (k & 1)`; level 0 is dispatched from the first grid the
/// host wrote, later levels from the later grid, and the conversion before
/// level 0 from its own (`Carve`).
fn chain_levels(
    kernels: &mut Kernels,
    resident: &Resident,
    shape: &ChainShape,
    sets: [vk::DescriptorSet; 2],
) -> Result<Vec<Vec<Step>>, BackendError> {
    let mut levels = Vec::with_capacity(shape.levels as usize);
    for k in 0..shape.levels {
        let set = (shape.first_set ^ (k & 1)) as usize;
        let carve = &resident.carve;
        let at = if k == 0 {
            carve.first_args
        } else {
            carve.later_args
        };
        let args = (resident.work.buffer, at);
        let conversion_args = (resident.work.buffer, resident.carve.conversion_args);
        let kernels_of_level: Vec<(Kernel, _)> = if k == 0 {
            shape
                .conversion
                .map(|kernel| (kernel, conversion_args))
                .into_iter()
                .chain(shape.first.iter().map(|&kernel| (kernel, args)))
                .collect()
        } else {
            shape.later.iter().map(|&kernel| (kernel, args)).collect()
        };
        let steps = kernels_of_level
            .into_iter()
            .map(|(kernel, args)| {
                Ok(Step {
                    pipeline: kernels.pipeline(kernel, shape.width)?,
                    set: sets[set],
                    args,
                })
            })
            .collect::<Result<Vec<_>, BackendError>>()?;
        levels.push(steps);
    }
    Ok(levels)
}
