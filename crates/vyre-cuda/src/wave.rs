//! Running one [`WaveCommand`]: frontier conversion, the level launches
//! (per-wave, chained, or one fused cooperative launch), one
//! synchronisation, and the records the kernels wrote into mapped host
//! memory.
//!
//! A chain's levels are enqueued through a [`Pacer`], which stops once a
//! level the device finished ended the chain.

use std::time::Instant;

use cudarc::driver::{CudaFunction, CudaStream, sys};
use vyre_driver::backend::{
    BackendError, FrontierForm, LEVEL_RECORD_BYTES, LevelRecord, WaveCommand, WaveReport,
    frontier_form_of,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;

use crate::buffers::DeviceGraph;
use crate::command::{CommandPlan, SearchState};
use crate::device::Device;
use crate::error::{driver_error, during};
use crate::kernels::{
    Kernels, Launch, block_dense_shared_bytes, hybrid_shared_bytes, launch, sparse_shared_bytes,
};
use crate::pacing::Pacer;
use crate::records::{HostRecords, inconsistent, stops};
use crate::timing::{EventPool, MAX_EVENTS};

/// What a command left behind, for the backend's search state.
pub(crate) struct CommandOutcome {
    pub report: WaveReport,
    pub levels_run: u32,
    pub frontier_len: u32,
    pub frontier_edges: u64,
}

/// The per-wave kernel of `topology` and its dynamic shared memory at
/// `width`.
fn level_kernel(kernels: &Kernels, topology: Topology, width: u32) -> (&CudaFunction, u32) {
    match topology {
        Topology::WarpSparseFrontier => (&kernels.warp_sparse, 0),
        Topology::SparseFrontier => (&kernels.sparse, sparse_shared_bytes(width)),
        Topology::HybridFrontier => (&kernels.hybrid, hybrid_shared_bytes(width)),
        Topology::DenseFrontier => (&kernels.dense, 0),
        Topology::BlockDenseFrontier => (&kernels.block_dense, block_dense_shared_bytes(width)),
        Topology::FusedWave => (&kernels.fused, hybrid_shared_bytes(width)),
    }
}

/// Enqueue `command` (planned as `plan`) on the device, wait for it once,
/// and report.
pub(crate) fn run_command(
    device: &Device,
    graph: &mut DeviceGraph,
    events: &mut EventPool,
    command: &WaveCommand,
    plan: &CommandPlan,
    state: &SearchState,
    epoch: u32,
) -> Result<CommandOutcome, BackendError> {
    let started = Instant::now();
    let stream = &device.stream;
    let fused = command.topology == Topology::FusedWave;
    // Event 0 opens the command, the next closes the conversion (if any),
    // then one closes each level (per-wave) or the launch (fused).
    let converting = plan.convert_to.is_some();
    let first_level_event = usize::from(converting);
    let per_level_timing = !fused && plan.levels as usize + first_level_event < MAX_EVENTS;
    let most_events = if per_level_timing {
        first_level_event + plan.levels as usize + 1
    } else {
        first_level_event + 2
    };
    events.reserve(&device.ctx, most_events)?;
    graph.records.clear(plan.levels);
    events.record(0, stream)?;

    let setup_cap = device.sm_count.saturating_mul(16);
    // [current, other] device addresses.
    let queues = [0, 1].map(|i| graph.queue_ptr(stream, state.queue ^ i));
    let bitmaps = [0, 1].map(|i| graph.bitmap_ptr(stream, state.bitmap ^ i));
    let mut args = graph.base_args(stream);
    args.epoch = epoch;
    args.band_max_frontier_edges = command.band_max_frontier_edges;
    // Levels of a chain publish their records while the command runs.
    args.max_levels = plan.levels;
    match plan.convert_to {
        Some(FrontierForm::Bitmap) => {
            args.queue_in = queues[0];
            args.bitmap_out = bitmaps[0];
            let items = u64::from(state.frontier_len);
            stream
                .memset_zeros(&mut graph.bitmaps[state.bitmap])
                .map_err(during("bitmap clear"))?;
            let conv = Launch::setup(items, setup_cap);
            launch(stream, &device.kernels.queue_to_bitmap, conv, &args, false)?;
        }
        Some(FrontierForm::Queue) => {
            args.bitmap_in = bitmaps[0];
            args.queue_out = queues[0];
            let words = u64::from(graph.layout.vertex_count).div_ceil(32);
            let conv = Launch::setup(words, setup_cap);
            launch(stream, &device.kernels.bitmap_to_queue, conv, &args, false)?;
        }
        None => {}
    }
    if converting {
        events.record(1, stream)?;
    }

    let (kernel, shared_bytes) = level_kernel(&device.kernels, command.topology, plan.width);
    let launched = if fused {
        args.queue_in = queues[0];
        args.queue_out = queues[1];
        args.level = command.level;
        args.history_index = 0;
        let grid = Launch {
            blocks: plan.first_blocks,
            width: plan.width,
            shared_bytes,
        };
        launch(stream, kernel, grid, &args, true)?;
        plan.levels
    } else {
        let mut pacer = Pacer::new(command.band_max_frontier_edges);
        let records = &graph.records;
        let mut launched = 0;
        while launched < plan.levels {
            let read = |i| records.read(i, epoch);
            if !pacer.may_enqueue(launched, read, || stream_idle(stream))? {
                break;
            }
            let i = launched;
            let parity = (i & 1) as usize;
            args.queue_in = queues[parity];
            args.queue_out = queues[parity ^ 1];
            args.bitmap_in = bitmaps[parity];
            args.bitmap_out = bitmaps[parity ^ 1];
            args.level = command.level.saturating_add(i);
            args.history_index = i;
            let grid = Launch {
                blocks: if i == 0 {
                    plan.first_blocks
                } else {
                    plan.later_blocks
                },
                width: plan.width,
                shared_bytes,
            };
            launch(stream, kernel, grid, &args, false)?;
            launched += 1;
            if per_level_timing {
                events.record(first_level_event + launched as usize, stream)?;
            }
        }
        launched
    };
    let last_event = if per_level_timing {
        first_level_event + launched as usize
    } else {
        events.record(first_level_event + 1, stream)?;
        first_level_event + 1
    };
    stream.synchronize().map_err(during("synchronize"))?;

    let mut levels = collect_records(&graph.records, epoch, launched)?;
    if per_level_timing {
        for (i, level) in levels.iter_mut().enumerate() {
            let before = first_level_event + i;
            level.device_ns = Some(events.elapsed_ns(before, before + 1)?);
        }
    }
    let device_ns = match levels.as_slice() {
        // The level's events open and close the command: time it once.
        [only] if per_level_timing && !converting && launched == 1 => only.device_ns.unwrap_or(0),
        _ => events.elapsed_ns(0, last_event)?,
    };
    let last = levels
        .last()
        .copied()
        .ok_or_else(|| inconsistent("a command recorded no level".to_owned()))?;
    if !fused && levels.len() < launched as usize && !stops(&last, command.band_max_frontier_edges)
    {
        return Err(inconsistent(format!(
            "{} of {launched} enqueued levels recorded, the last without stopping the chain",
            levels.len()
        )));
    }
    let levels_run = u32::try_from(levels.len()).unwrap_or(u32::MAX);
    Ok(CommandOutcome {
        report: WaveReport {
            frontier: Some(frontier_form_of(command.topology)),
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(device_ns),
            readback_bytes: u64::from(levels_run) * LEVEL_RECORD_BYTES,
            levels,
        },
        levels_run,
        frontier_len: last.frontier_out,
        frontier_edges: last.frontier_out_edges,
    })
}

/// The records of the levels that ran: those of `0..launched` that carry
/// this command's epoch, which must be a leading run (a level runs only
/// after the one before it recorded).
fn collect_records(
    records: &HostRecords,
    epoch: u32,
    launched: u32,
) -> Result<Vec<LevelRecord>, BackendError> {
    let mut levels: Vec<LevelRecord> = Vec::with_capacity(launched.min(64) as usize);
    while (levels.len() as u32) < launched
        && let Some(record) = records.read(levels.len() as u32, epoch)
    {
        levels.push(record);
    }
    let recorded = levels.len() as u32;
    if let Some(stray) = (recorded + 1..launched).find(|&i| records.read(i, epoch).is_some()) {
        return Err(inconsistent(format!(
            "level record {stray} of this command was written but record {recorded} was not"
        )));
    }
    if levels.is_empty() {
        return Err(inconsistent(format!(
            "the device wrote no level record for command {epoch}"
        )));
    }
    Ok(levels)
}

/// Whether `stream` has finished all its work; an error if it failed.
fn stream_idle(stream: &CudaStream) -> Result<bool, BackendError> {
    // SAFETY: the stream handle is alive (the backend owns the stream);
    // cuStreamQuery only reads its state.
    match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        code => Err(driver_error(
            "stream query",
            cudarc::driver::DriverError(code),
        )),
    }
}
