//! Running one checked command: frontier conversion, the level launches
//! (per-wave, chained, or one fused cooperative launch) on the grids the
//! command carries, one wait, and the records the kernels wrote into mapped
//! host memory.
//!
//! The command says where the frontier is ([`SearchPosition`]): which buffer
//! of which form holds it; level `k` reads buffer
//! [`SearchPosition::buffer_of_level`]`(k, true)` and writes the other. A
//! chain's levels are enqueued through a [`Pacer`], which stops once a level
//! the device finished ended the chain.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::CudaFunction;
use vyre_driver::backend::{
    BackendError, CheckedCommand, FrontierForm, LEVEL_RECORD_BYTES, LevelRecord, SearchPosition,
    WaveReport, frontier_form_of,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;

use crate::args::KernelArgs;
use crate::batch::DeviceBatch;
use crate::buffers::DeviceGraph;
use crate::device::Device;
use crate::error::during;
use crate::kernels::{
    Kernels, Launch, block_dense_shared_bytes, hybrid_shared_bytes, launch, launch_cluster,
    sparse_shared_bytes,
};
use crate::pacing::{Pacer, RUN_AHEAD};
use crate::records::{HostRecords, inconsistent, stops};
use crate::timing::{EventPool, MAX_EVENTS};
use crate::wait::stream_idle;

/// The per-wave kernel of `topology` (of a batch pass when `batch`) and its
/// dynamic shared memory at `width`.
fn level_kernel(
    kernels: &Kernels,
    topology: Topology,
    width: u32,
    batch: bool,
) -> (&CudaFunction, u32) {
    if batch {
        let kernel = match topology {
            Topology::WarpSparseFrontier | Topology::SparseFrontier | Topology::HybridFrontier => {
                &kernels.batch_push
            }
            Topology::DenseFrontier => &kernels.batch_pull,
            Topology::BlockDenseFrontier => &kernels.batch_warp_pull,
            Topology::FusedWave => &kernels.batch_fused,
        };
        return (kernel, 0);
    }
    match topology {
        Topology::WarpSparseFrontier => (&kernels.warp_sparse, 0),
        Topology::SparseFrontier => (&kernels.sparse, sparse_shared_bytes(width)),
        Topology::HybridFrontier => (&kernels.hybrid, hybrid_shared_bytes(width)),
        Topology::DenseFrontier => (&kernels.dense, 0),
        Topology::BlockDenseFrontier => (&kernels.block_dense, block_dense_shared_bytes(width)),
        Topology::FusedWave => (&kernels.fused, hybrid_shared_bytes(width)),
    }
}

/// Whether a batch level of `topology` pushes (`vyre_batch_push`, whose
/// level `vyre_batch_push_pieces` closes).
fn is_push(topology: Topology) -> bool {
    matches!(
        topology,
        Topology::WarpSparseFrontier | Topology::SparseFrontier | Topology::HybridFrontier
    )
}

/// The grids of `command` as CUDA runs them: one dimension, whole warps.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Grids {
    pub width: u32,
    /// Blocks of the first level (of every level of a fused launch).
    pub first: u32,
    /// Blocks of every later level of a chain.
    pub later: u32,
}

/// The command's grids as CUDA launches them: one dimension (the driver's
/// check keeps every grid within it and every width whole warps).
pub(crate) fn grids(command: &CheckedCommand) -> Grids {
    let launch = &command.launch;
    Grids {
        width: launch.workgroup_size_x,
        // At most max_compute_workgroups_per_dimension, checked.
        first: u32::try_from(launch.workgroups()).unwrap_or(u32::MAX),
        later: launch.later.max_workgroups,
    }
}

/// Enqueue `command` on `grids` (its [`grids`]), wait for it once, and
/// report. `epoch` numbers the command (never 0). With `batch` the command
/// is a batch pass's: its kernels, its word arrays.
pub(crate) fn run_command(
    device: &mut Device,
    graph: &mut DeviceGraph,
    events: &mut EventPool,
    command: &CheckedCommand,
    grids: Grids,
    epoch: u32,
    mut batch: Option<&mut DeviceBatch>,
) -> Result<WaveReport, BackendError> {
    let started = Instant::now();
    let deadline = device.watchdog.deadline();
    let stream = Arc::clone(&device.stream);
    let position: SearchPosition = command.position;
    let fused = command.topology == Topology::FusedWave;
    let levels = command.max_levels.max(1);
    let form = frontier_form_of(command.topology);
    let conversion_blocks =
        command.conversion_workgroups(graph.layout.vertex_count, batch.is_some());
    let converting = conversion_blocks.is_some();
    // A search's commands time themselves on the device's clock
    // (`level_times`: each per-wave level, its first from the conversion
    // before it on, or a fused launch as a whole): every driver call costs
    // the host microseconds while the device waits for the launch, and an
    // event recorded after a while without one costs several more. A batch
    // pass's commands use events: event 0 opens the command, the next closes
    // the conversion (if any), then one closes each level (per-wave) or the
    // launch (fused).
    let kernel_timed = batch.is_none();
    let first_level_event = usize::from(converting);
    let per_level_timing =
        !kernel_timed && !fused && levels as usize + first_level_event < MAX_EVENTS;
    let most_events = if per_level_timing {
        first_level_event + levels as usize + 1
    } else {
        first_level_event + 2
    };
    graph.records.prepare(epoch);
    if let Some(pass) = batch.as_deref_mut() {
        pass.before(&stream, command)?;
    }
    if !kernel_timed {
        events.reserve(&device.ctx, most_events)?;
        events.record(0, &stream)?;
    }

    let queues = [0, 1].map(|i| graph.queue_ptr(&stream, i));
    let bitmaps = [0, 1].map(|i| graph.bitmap_ptr(&stream, i));
    let queue = |k: u32, reads| queues[position.buffer_of_level(k, reads) as usize & 1];
    let bitmap = |k: u32, reads| bitmaps[position.buffer_of_level(k, reads) as usize & 1];
    let mut args = graph.base_args(&stream, device.watchdog.abort_ptr());
    args.epoch = epoch;
    args.band_max_frontier_edges = command.band_max_frontier_edges;
    args.band_max_frontier_vertices = u64::from(command.band_max_frontier_vertices);
    args.edges_per_lane = command.launch.later.edges_per_lane;
    // Levels of a chain publish their records while the command runs.
    args.max_levels = levels;
    if kernel_timed {
        args.level_times = graph.records.times_ptr();
    }
    let words_of = |args: &mut KernelArgs, k: u32| {
        if let Some(pass) = batch.as_deref() {
            let reads = position.buffer_of_level(k, true);
            pass.fill_args(&stream, args, reads, position.buffer_of_level(k, false));
        }
    };
    // A conversion moves the frontier into the same buffer index of the
    // other form, where level 0 reads it, on its own grid (the kernels
    // stride over any item the grid does not cover).
    let conversion = Launch {
        blocks: conversion_blocks.unwrap_or(1),
        width: grids.width,
        shared_bytes: 0,
    };
    if converting && batch.is_some() {
        // A batch frontier's words stay in their array in both forms; the
        // queue form also lists its vertices.
        if form == FrontierForm::Queue {
            words_of(&mut args, 0);
            args.queue_out = queue(0, true);
            let kernel = &device.kernels.batch_words_to_queue;
            launch(&stream, kernel, conversion, &args, false)?;
        }
        events.record(1, &stream)?;
    } else if converting {
        match form {
            // Both bitmaps are zero while the frontier is a queue: set up
            // so by vyre_init_search, and cleared again by the conversion
            // back into a queue.
            FrontierForm::Bitmap => {
                args.queue_in = queue(0, true);
                args.bitmap_out = bitmap(0, true);
                launch(
                    &stream,
                    &device.kernels.queue_to_bitmap,
                    conversion,
                    &args,
                    false,
                )?;
            }
            FrontierForm::Queue => {
                args.bitmap_in = bitmap(0, true);
                args.bitmap_out = bitmap(0, false);
                args.queue_out = queue(0, true);
                launch(
                    &stream,
                    &device.kernels.bitmap_to_queue,
                    conversion,
                    &args,
                    false,
                )?;
            }
        }
        if !kernel_timed {
            events.record(1, &stream)?;
        }
    }

    let (kernel, shared_bytes) = level_kernel(
        &device.kernels,
        command.topology,
        grids.width,
        batch.is_some(),
    );
    let launched = if fused {
        words_of(&mut args, 0);
        args.queue_in = queue(0, true);
        args.queue_out = queue(0, false);
        args.level = position.level;
        args.history_index = 0;
        let grid = Launch {
            blocks: grids.first,
            width: grids.width,
            shared_bytes,
        };
        if command.launch.cluster {
            let grid = Launch {
                shared_bytes: 0,
                ..grid
            };
            launch_cluster(&stream, &device.kernels.fused_cluster, grid, &args)
                .map_err(during("cluster kernel launch"))?;
        } else {
            launch(&stream, kernel, grid, &args, true)?;
        }
        levels
    } else {
        let mut pacer = Pacer::new(command.band());
        let records = &graph.records;
        let mut launched = 0;
        while launched < levels {
            let read = |i| records.read(i, epoch);
            // Past the deadline nothing more is enqueued; the wait below
            // aborts what runs.
            let idle = || Ok(deadline.passed() || stream_idle(&stream)?);
            if !pacer.may_enqueue(launched, read, idle)? {
                break;
            }
            let k = launched;
            words_of(&mut args, k);
            args.queue_in = queue(k, true);
            args.queue_out = queue(k, false);
            args.bitmap_in = bitmap(k, true);
            args.bitmap_out = bitmap(k, false);
            args.level = position.level.saturating_add(k);
            args.history_index = k;
            let grid = Launch {
                blocks: if k == 0 { grids.first } else { grids.later },
                width: grids.width,
                shared_bytes,
            };
            launch(&stream, kernel, grid, &args, false)?;
            if batch.is_some() && is_push(command.topology) {
                let pieces = &device.kernels.batch_push_pieces;
                launch(&stream, pieces, grid, &args, false)?;
            }
            launched += 1;
            if per_level_timing {
                events.record(first_level_event + launched as usize, &stream)?;
            }
        }
        launched
    };
    let last_event = if kernel_timed {
        0
    } else if per_level_timing {
        first_level_event + launched as usize
    } else {
        events.record(first_level_event + 1, &stream)?;
        first_level_event + 1
    };
    device
        .watchdog
        .wait_until(&stream, deadline, "a wave command")?;

    let mut records = collect_records(&graph.records, epoch, launched)?;
    let device_ns = if kernel_timed && fused {
        let (start, end) = graph.records.times(0);
        end.saturating_sub(start)
    } else if kernel_timed {
        // From the first level's start to the last one's end.
        let mut span: Option<(u64, u64)> = None;
        for (i, level) in records.iter_mut().enumerate() {
            let (start, end) = graph.records.times(i as u32);
            level.device_ns = Some(end.saturating_sub(start));
            span = Some((span.map_or(start, |(first, _)| first), end));
        }
        span.map_or(0, |(start, end)| end.saturating_sub(start))
    } else {
        if per_level_timing {
            for (i, level) in records.iter_mut().enumerate() {
                let before = first_level_event + i;
                level.device_ns = Some(events.elapsed_ns(before, before + 1)?);
            }
        }
        match records.as_slice() {
            // The level's events open and close the command: time it once.
            [only] if per_level_timing && !converting && launched == 1 => {
                only.device_ns.unwrap_or(0)
            }
            _ => events.elapsed_ns(0, last_event)?,
        }
    };
    let last = records
        .last()
        .copied()
        .ok_or_else(|| inconsistent("a command recorded no level".to_owned()))?;
    if !fused && records.len() < launched as usize && !stops(&last, command.band()) {
        return Err(inconsistent(format!(
            "{} of {launched} enqueued levels recorded, the last without stopping the chain",
            records.len()
        )));
    }
    if let Some(pass) = batch {
        pass.after(command, u32::try_from(records.len()).unwrap_or(u32::MAX));
    }
    let levels_run = u64::try_from(records.len()).unwrap_or(u64::MAX);
    Ok(WaveReport {
        wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
        device_ns: Some(device_ns),
        readback_bytes: levels_run * LEVEL_RECORD_BYTES,
        levels: records,
    })
}

/// The records of the levels that ran: those of `0..launched` that carry
/// this command's epoch, which must be a leading run (a level runs only
/// after the one before it recorded). Strays are looked for among the
/// [`RUN_AHEAD`] records after the run, where a chain's levels may have
/// been enqueued past the last one the host saw (so a chain is checked
/// whole); a fused launch copies its records in one run as it exits, and
/// reading its thousand unused records from host memory the device wrote
/// would cost microseconds.
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
    if let Some(stray) =
        stray_window(recorded, launched).find(|&i| records.read(i, epoch).is_some())
    {
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

/// The records after a run of `recorded` where a stray may lie, of
/// `launched` levels enqueued (see [`collect_records`]).
fn stray_window(recorded: u32, launched: u32) -> std::ops::Range<u32> {
    let end = launched.min(recorded.saturating_add(1 + RUN_AHEAD));
    recorded.saturating_add(1).min(end)..end
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{
        DeviceCapabilities, DeviceLayout, LaunchShape, LevelSizing, SearchSources, WaveCommand,
    };
    use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;

    fn checked(width: u32, grid: [u32; 3], later: u32) -> Result<CheckedCommand, BackendError> {
        let caps = DeviceCapabilities {
            fused_cluster: vyre_driver::backend::FusedCluster::NONE,
            device_name: "test GPU".into(),
            megakernel: MegakernelDeviceCapabilities::FUSION_INCAPABLE,
            barrier_reason: "none in tests".into(),
            batch_fused_wave: false,
            max_workgroup_size_x: 1024,
            max_compute_workgroups_per_dimension: 1000,
            max_compute_invocations_per_workgroup: 1024,
            subgroup_size: 32,
            workgroup_width_multiple: 32,
            resident_lanes: 8192,
            resident_workgroups: 0,
            resident_workgroup_size: 0,
            memory_budget_bytes: 1 << 30,
            max_binding_bytes: u64::MAX,
            max_edge_segments: 1,
            offset_bytes: 8,
            needs_readback_staging: false,
            launch_overhead_ns: 0.0,
            device_timestamps: true,
        };
        let edges: Vec<_> = (1..100u32).map(|v| (v - 1, v)).collect();
        let g = build_graph(100, &edges, BuildOptions::UNDIRECTED).unwrap();
        let layout = DeviceLayout::for_graph(&g, &caps, 4).unwrap();
        let sources = SearchSources::new(&[0], &g).unwrap();
        WaveCommand {
            topology: Topology::SparseFrontier,
            position: SearchPosition::start(&sources),
            max_levels: 2,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: width,
                dispatch_grid: grid,
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: later,
                },
            },
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u32::MAX,
        }
        .check(&caps, &layout)
    }

    #[test]
    fn strays_are_looked_for_wherever_a_chain_enqueued_and_a_few_records_past_a_fused_run() {
        // A chain enqueues at most RUN_AHEAD levels past the records it saw:
        // every one of them is checked.
        for recorded in 0..5 {
            for launched in recorded..=recorded + RUN_AHEAD {
                let window = stray_window(recorded, launched);
                assert!((recorded + 1..launched).all(|i| window.contains(&i)));
                assert!(!window.contains(&recorded) && window.end <= launched);
            }
        }
        // A fused launch of 1024 levels that ran 3: the next RUN_AHEAD records.
        assert_eq!(stray_window(3, 1024), 4..4 + RUN_AHEAD);
        assert_eq!(stray_window(u32::MAX, u32::MAX), u32::MAX..u32::MAX);
    }

    #[test]
    fn the_first_grid_is_the_commands_in_one_dimension_and_later_levels_its_rule() {
        let command = checked(64, [3, 2, 1], 7).unwrap();
        assert_eq!(
            grids(&command),
            Grids {
                width: 64,
                first: 6,
                later: 7
            }
        );
    }
}
