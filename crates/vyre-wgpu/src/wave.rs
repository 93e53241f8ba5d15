//! Running one checked command: an optional frontier conversion, then up to
//! `max_levels` levels in one submission (a chain), each later level sized
//! on the device by the engine's rule, and one readback of the level
//! records (and of a batch command's lane counts). A `FusedWave` command is
//! one dispatch of the persistent kernel that runs all its levels; it ends
//! by itself even when stuck (its waits at grid barriers are bounded), and
//! its status words say whether its levels stand.

use std::time::Instant;

use vyre_driver::backend::{BackendError, CheckedCommand, LaneCounts, WaveReport};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_wgsl_abi::batch::{
    LANE_COUNT_BYTES, lane_counts_read, lane_levels_in_staging, lane_readback_bytes,
};
use vyre_wgsl_abi::control::RECORD_BASE_WORDS;
use vyre_wgsl_abi::fused::{STATUS_BYTES, check_status};
use vyre_wgsl_abi::{CommandPlan, FUSED_WIDTH, levels_run, readback_bytes};

use crate::batch::BatchBuffers;
use crate::device_graph::DeviceGraph;
use crate::host_writes::{HostWrites, UploadSlots};
use crate::kernels::{Kernel, Kernels};
use crate::readback::{read_staging, read_words, words_of};
use crate::record::{CommandRecipe, Conversion, Dispatch, record, segments};
use crate::timing::CommandTiming;

/// Everything `run` needs from the backend.
pub(crate) struct WaveContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub kernels: &'a mut Kernels,
    pub slots: &'a mut UploadSlots,
    pub graph: &'a DeviceGraph,
    pub timestamp_period_ns: f64,
}

/// What one command measured.
pub(crate) struct CommandOutcome {
    pub report: WaveReport,
    pub timing: CommandTiming,
    /// Workgroups each level that ran was dispatched with.
    pub grids: Vec<u32>,
    /// A batch command's lane counts of each level that ran.
    pub lanes: Vec<LaneCounts>,
}

/// Run `command`, of a search or (with `batch`) of a batch pass.
pub(crate) fn run(
    cx: WaveContext<'_>,
    command: &CheckedCommand,
    batch: Option<&BatchBuffers>,
) -> Result<CommandOutcome, BackendError> {
    let encode_start = Instant::now();
    let mut timing = CommandTiming::default();
    let WaveContext {
        device,
        queue,
        kernels,
        slots,
        graph,
        timestamp_period_ns,
    } = cx;
    let fused = command.topology == T::FusedWave;
    let plan = match batch {
        Some(_) => CommandPlan::of_batch(command, graph.facts)?,
        None if fused => CommandPlan::of_fused(command, graph.facts)?,
        None => CommandPlan::of(command, graph.facts)?,
    };
    let position = command.position;
    let width = command.launch.workgroup_size_x;
    let levels = command.max_levels;
    let status_bytes = if fused {
        check_fused(graph, levels)?;
        STATUS_BYTES
    } else {
        0
    };
    let mut dispatch = |kernel: Kernel| Dispatch {
        kernel,
        // The fused kernel runs at the width the probe verified.
        pipeline: match kernel {
            Kernel::Fused => kernels.pipeline(device, kernel, FUSED_WIDTH),
            _ => kernels.pipeline(device, kernel, width),
        },
    };
    let conversion_workgroups = command
        .conversion_workgroups(graph.layout.vertex_count, batch.is_some())
        .unwrap_or(1);
    let conversion = plan.conversion.map(|kernel| Conversion {
        dispatch: dispatch(kernel),
        workgroups: conversion_workgroups,
    });
    let first_steps = plan.first.into_iter().map(&mut dispatch).collect();
    let later_steps = plan.later.into_iter().map(&mut dispatch).collect();
    let words = plan.words;
    let mut writes = HostWrites::default();
    writes.put(graph.control.at(0), &words);
    let timed = graph.query_set.is_some();
    let recipe = CommandRecipe {
        graph,
        position,
        levels,
        conversion,
        first_steps,
        later_steps,
        launch_grid: command.launch.dispatch_grid,
        later_grid: plan.later_grid,
        timed,
        batch,
    };
    timing.levels_recorded = levels;
    let readback_bytes = readback_bytes(levels);
    let lanes_in_staging = match batch {
        Some(_) => lane_levels_in_staging(levels, graph.staging.size()),
        None => 0,
    };
    // Wall time runs from the first submission; later segments are recorded
    // while the device runs the earlier ones. A fused launch is one segment.
    let mut start = None;
    let mut encode_from = encode_start;
    let ranges: Vec<_> = if fused {
        std::iter::once(0..levels).collect()
    } else {
        segments(levels)
    };
    for range in ranges {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre wave"),
        });
        let used = (range.start == 0).then(|| slots.record(queue, &mut encoder, &writes));
        timing.dispatches += record(&mut encoder, &recipe, range);
        let commands = encoder.finish();
        let submitting = Instant::now();
        timing.encode_ns += nanos(submitting - encode_from);
        start.get_or_insert(submitting);
        queue.submit([commands]);
        if let Some(used) = used {
            slots.submitted(used);
        }
        encode_from = Instant::now();
        timing.submit_ns += nanos(encode_from - submitting);
    }
    let submitted = encode_from;
    let start = start.unwrap_or(submitted);
    let staged = readback_bytes + status_bytes + u64::from(lanes_in_staging) * LANE_COUNT_BYTES;
    let words = read_staging(device, &graph.staging, staged, words_of)?;
    timing.wait_ns = nanos(submitted.elapsed());
    let wall_ns = nanos(start.elapsed());

    // After the records: a fused launch's status words, or a batch
    // command's lane counts.
    let (records, after) = words.split_at((readback_bytes / 4) as usize);
    if fused {
        check_status(after, command.launch.workgroups())?;
    }
    let (stamps, records) = records.split_at(RECORD_BASE_WORDS as usize);
    let device_ns = timed.then(|| {
        let begin = u64::from(stamps[0]) | (u64::from(stamps[1]) << 32);
        let end = u64::from(stamps[2]) | (u64::from(stamps[3]) << 32);
        (end.saturating_sub(begin) as f64 * timestamp_period_ns) as u64
    });
    let mut run = levels_run(command, records)?;
    run.time_a_lone_level(command, device_ns);
    let ran = run.levels.len() as u32;
    let (lanes, lane_bytes) = match batch {
        Some(batch) => (
            lane_counts_read(ran, after, |at, rest| {
                read_words(device, queue, (&batch.tallies, at), &graph.staging, rest)
            })?,
            lane_readback_bytes(ran, lanes_in_staging),
        ),
        None => (Vec::new(), 0),
    };
    let report = WaveReport {
        levels: run.levels,
        wall_ns,
        device_ns,
        readback_bytes: readback_bytes + status_bytes + lane_bytes,
    };
    Ok(CommandOutcome {
        report,
        timing,
        grids: run.grids,
        lanes,
    })
}

/// Whether `graph` can run a fused launch of `levels` levels: the fused
/// kernel's groups exist, and staging holds its records and status words.
fn check_fused(graph: &DeviceGraph, levels: u32) -> Result<(), BackendError> {
    if graph.fused_groups.is_empty() {
        return Err(BackendError::new(
            "this adapter cannot bind the fused kernel's storage buffers, so it runs no FusedWave. Fix: force a per-wave topology, or open the backend without force_resident_workgroups_for_tests.",
        ));
    }
    let needed = readback_bytes(levels) + STATUS_BYTES;
    let staging = graph.staging.size();
    if needed > staging {
        return Err(BackendError::new(format!(
            "a fused launch of {levels} levels reads back {needed} bytes but this graph's staging holds {staging}. Fix: plan the layout for at least 4 levels per command (DeviceLayout::for_graph's max_levels), or fewer levels per command."
        )));
    }
    Ok(())
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
