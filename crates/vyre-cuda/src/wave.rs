//! Running one [`WaveCommand`]: frontier conversion, the level launches
//! (per-wave, chained, or one fused cooperative launch), and the single
//! readback of what they recorded.

use std::time::Instant;

use cudarc::driver::CudaFunction;
use vyre_driver::backend::{BackendError, FrontierForm, WaveCommand, WaveReport, frontier_form_of};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;

use crate::args::{CONTROL_WORDS, ControlState, RECORD_WORDS, decode_records};
use crate::buffers::DeviceGraph;
use crate::command::{CommandPlan, SearchState};
use crate::device::Device;
use crate::error::during;
use crate::kernels::{
    Kernels, Launch, block_dense_shared_bytes, hybrid_shared_bytes, launch, sparse_shared_bytes,
};
use crate::timing::{EventPool, MAX_EVENTS};

/// What a command left behind, for the backend's search state.
pub(crate) struct CommandOutcome {
    pub report: WaveReport,
    pub levels_run: u32,
    pub frontier_len: u32,
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

/// Enqueue `command` (planned as `plan`) on the device, read back once, and
/// report.
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
    let per_level_timing = !fused && plan.levels as usize + 2 <= MAX_EVENTS;
    let last_event = if per_level_timing {
        plan.levels as usize + 1
    } else {
        1
    };
    events.reserve(&device.ctx, last_event + 1)?;
    events.record(0, stream)?;

    let setup_cap = device.sm_count.saturating_mul(16);
    // [current, other] device addresses.
    let queues = [0, 1].map(|i| graph.queue_ptr(stream, state.queue ^ i));
    let bitmaps = [0, 1].map(|i| graph.bitmap_ptr(stream, state.bitmap ^ i));
    let queue = |i: usize| queues[i];
    let bitmap = |i: usize| bitmaps[i];
    let mut args = graph.base_args(stream);
    args.epoch = epoch;
    args.band_max_frontier_edges = command.band_max_frontier_edges;
    match plan.convert_to {
        Some(FrontierForm::Bitmap) => {
            args.queue_in = queue(0);
            args.bitmap_out = bitmap(0);
            let items = u64::from(state.frontier_len);
            stream
                .memset_zeros(&mut graph.bitmaps[state.bitmap])
                .map_err(during("bitmap clear"))?;
            let conv = Launch::setup(items, setup_cap);
            launch(stream, &device.kernels.queue_to_bitmap, conv, &args, false)?;
        }
        Some(FrontierForm::Queue) => {
            args.bitmap_in = bitmap(0);
            args.queue_out = queue(0);
            let words = u64::from(graph.layout.vertex_count).div_ceil(32);
            let conv = Launch::setup(words, setup_cap);
            launch(stream, &device.kernels.bitmap_to_queue, conv, &args, false)?;
        }
        None => {}
    }
    if per_level_timing {
        events.record(1, stream)?;
    }

    let (kernel, shared_bytes) = level_kernel(&device.kernels, command.topology, plan.width);
    if fused {
        args.queue_in = queue(0);
        args.queue_out = queue(1);
        args.level = command.level;
        args.history_index = 0;
        args.max_levels = plan.levels;
        let grid = Launch {
            blocks: plan.first_blocks,
            width: plan.width,
            shared_bytes,
        };
        launch(stream, kernel, grid, &args, true)?;
    } else {
        for i in 0..plan.levels {
            let parity = (i & 1) as usize;
            args.queue_in = queue(parity);
            args.queue_out = queue(parity ^ 1);
            args.bitmap_in = bitmap(parity);
            args.bitmap_out = bitmap(parity ^ 1);
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
            if per_level_timing {
                events.record(i as usize + 2, stream)?;
            }
        }
    }
    if !per_level_timing {
        events.record(1, stream)?;
    }

    let (mut levels, readback_bytes) = read_levels(device, graph, plan.levels, epoch)?;
    let device_ns = events.elapsed_ns(0, last_event)?;
    if per_level_timing {
        for (i, level) in levels.iter_mut().enumerate() {
            level.device_ns = Some(events.elapsed_ns(i + 1, i + 2)?);
        }
    }
    let levels_run = u32::try_from(levels.len()).unwrap_or(u32::MAX);
    let frontier_len = levels.last().map_or(0, |l| l.frontier_out);
    Ok(CommandOutcome {
        report: WaveReport {
            levels,
            frontier: Some(frontier_form_of(command.topology)),
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(device_ns),
            readback_bytes,
        },
        levels_run,
        frontier_len,
    })
}

/// Read the records of the levels that ran: one copy for a single level;
/// for a multi-level command the control block first (how many ran), then
/// just those records.
fn read_levels(
    device: &Device,
    graph: &DeviceGraph,
    max_levels: u32,
    epoch: u32,
) -> Result<(Vec<vyre_driver::backend::LevelRecord>, u64), BackendError> {
    let stream = &device.stream;
    let mut bytes = 0u64;
    let mut control = None;
    let count = if max_levels == 1 {
        1
    } else {
        let mut words = vec![0u32; CONTROL_WORDS];
        stream
            .memcpy_dtoh(&graph.control, words.as_mut_slice())
            .map_err(during("control readback"))?;
        bytes += (CONTROL_WORDS * 4) as u64;
        let state = ControlState::decode(&words);
        if state.levels_run == 0 || state.levels_run > max_levels {
            return Err(BackendError::device(format!(
                "the device reports {} levels run for a command of at most {max_levels}. Fix: this is a bug in the vyre CUDA kernels; run under compute-sanitizer and report it.",
                state.levels_run
            )));
        }
        control = Some(state);
        state.levels_run as usize
    };
    let mut words = vec![0u32; count * RECORD_WORDS];
    stream
        .memcpy_dtoh(&graph.history.slice(0..words.len()), words.as_mut_slice())
        .map_err(during("level history readback"))?;
    stream.synchronize().map_err(during("synchronize"))?;
    bytes += (words.len() * 4) as u64;
    let levels = decode_records(&words, count, epoch)?;
    if let (Some(state), Some(last)) = (control, levels.last())
        && state.cur_len != last.frontier_out
    {
        return Err(BackendError::device(format!(
            "the device's frontier length ({}) disagrees with its last level record ({}). Fix: this is a bug in the vyre CUDA kernels; run under compute-sanitizer and report it.",
            state.cur_len, last.frontier_out
        )));
    }
    Ok((levels, bytes))
}
