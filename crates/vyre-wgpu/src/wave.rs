//! Running one checked command: an optional frontier conversion, then up to
//! `max_levels` levels in one submission (a chain), each later level sized
//! on the device by the engine's rule, and one readback of the level
//! records.

use std::time::Instant;

use vyre_driver::backend::{
    BackendError, CheckedCommand, FrontierForm, LevelRecord, WaveCommand, WaveReport,
    frontier_form_of,
};

use crate::control::{ARGS_RESET, RECORD_BASE_WORDS, RECORD_WORDS, band, command_words};
use crate::device_graph::DeviceGraph;
use crate::kernels::{Kernel, Kernels};
use crate::level_steps::{LevelFacts, level_steps};
use crate::readback::{read_staging, words_of};
use crate::record::{CommandRecipe, Dispatch, readback_bytes, record, segments};
use crate::timing::CommandTiming;

/// Everything `run` needs from the backend.
pub(crate) struct WaveContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub kernels: &'a mut Kernels,
    pub graph: &'a DeviceGraph,
    pub timestamp_period_ns: f64,
}

/// What one command measured.
pub(crate) struct CommandOutcome {
    pub report: WaveReport,
    pub timing: CommandTiming,
    /// Workgroups each level that ran was dispatched with.
    pub grids: Vec<u32>,
}

/// The level kernel of the command's topology. A checked command never
/// asks this device for a `FusedWave` (its capabilities report no
/// device-wide barrier), so its absence is a bug, reported as one.
fn level_kernel(command: &WaveCommand) -> Result<Kernel, BackendError> {
    Kernel::for_topology(command.topology).ok_or_else(|| {
        BackendError::device(format!(
            "a checked command asks for {:?}, which this device cannot run. Fix: this is a bug in WaveCommand::check or in the device's capabilities; report it.",
            command.topology
        ))
    })
}

/// Run `command`.
pub(crate) fn run(
    cx: WaveContext<'_>,
    command: &CheckedCommand,
) -> Result<CommandOutcome, BackendError> {
    let encode_start = Instant::now();
    let mut timing = CommandTiming::default();
    let WaveContext {
        device,
        queue,
        kernels,
        graph,
        timestamp_period_ns,
    } = cx;
    let level_kernel = level_kernel(command)?;
    let position = command.position;
    let target_form = frontier_form_of(command.topology);
    let width = command.launch.workgroup_size_x;
    let levels = command.max_levels;
    let conversion = match (position.form, target_form) {
        (FrontierForm::Queue, FrontierForm::Bitmap) => Some(Kernel::QueueToBitmap),
        (FrontierForm::Bitmap, FrontierForm::Queue) => Some(Kernel::BitmapToQueue),
        _ => None,
    };
    let mut dispatch = |kernel: Kernel| Dispatch {
        kernel,
        pipeline: kernels.pipeline(device, kernel, width),
    };
    let conversion = conversion.map(&mut dispatch);
    let facts = LevelFacts {
        topology: command.topology,
        kernel: level_kernel,
        first: true,
        frontier_len: position.frontier_len,
        frontier_edges: position.frontier_edges,
        first_groups: command.launch.workgroups(),
        width,
        later: command.launch.later,
        max_out_degree: graph.max_out_degree,
        min_out_degree: graph.min_out_degree,
        vertex_count: graph.layout.vertex_count,
        edge_count: graph.layout.edge_count,
        band_max_frontier_edges: command.band_max_frontier_edges,
    };
    let first_kernels = level_steps(facts);
    let later_kernels = if levels > 1 {
        level_steps(LevelFacts {
            first: false,
            ..facts
        })
    } else {
        Vec::new()
    };
    let scans = |steps: &[Kernel]| steps.contains(&Kernel::SparseScan);
    let words = command_words(command, scans(&first_kernels), scans(&later_kernels));
    let first_steps = first_kernels.into_iter().map(&mut dispatch).collect();
    let later_steps = later_kernels.into_iter().map(&mut dispatch).collect();
    queue.write_buffer(&graph.control, 0, bytemuck::cast_slice(&words));
    let first_set = position.buffer_of_level(0, true) as usize;
    queue.write_buffer(
        &graph.level_words[first_set],
        0,
        bytemuck::cast_slice(&[0u32; 4]),
    );
    // Only later levels are dispatched from the arguments.
    if levels > 1 {
        for args in &graph.dispatch_args {
            queue.write_buffer(args, 0, bytemuck::cast_slice(&ARGS_RESET));
        }
    }
    let timed = graph.query_set.is_some();
    let recipe = CommandRecipe {
        graph,
        position,
        levels,
        conversion,
        first_steps,
        later_steps,
        launch_grid: command.launch.dispatch_grid,
        timed,
    };
    timing.levels_recorded = levels;
    let readback_bytes = readback_bytes(levels);
    // Wall time runs from the first submission; later segments are recorded
    // while the device runs the earlier ones.
    let mut start = None;
    let mut encode_from = encode_start;
    for range in segments(levels) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre wave"),
        });
        timing.dispatches += record(&mut encoder, &recipe, range);
        let commands = encoder.finish();
        let submitting = Instant::now();
        timing.encode_ns += nanos(submitting - encode_from);
        start.get_or_insert(submitting);
        queue.submit([commands]);
        encode_from = Instant::now();
        timing.submit_ns += nanos(encode_from - submitting);
    }
    let submitted = encode_from;
    let start = start.unwrap_or(submitted);
    let words = read_staging(device, &graph.staging, readback_bytes, words_of)?;
    timing.wait_ns = nanos(submitted.elapsed());
    let wall_ns = nanos(start.elapsed());

    let (stamps, records) = words.split_at(RECORD_BASE_WORDS as usize);
    let device_ns = timed.then(|| {
        let begin = u64::from(stamps[0]) | (u64::from(stamps[1]) << 32);
        let end = u64::from(stamps[2]) | (u64::from(stamps[3]) << 32);
        (end.saturating_sub(begin) as f64 * timestamp_period_ns) as u64
    });
    let (levels, grids) = levels_run(command, records, device_ns)?;
    let report = WaveReport {
        levels,
        wall_ns,
        device_ns,
        readback_bytes,
    };
    Ok(CommandOutcome {
        report,
        timing,
        grids,
    })
}

/// The levels `records` say ran, by the rule the kernels follow
/// (`begin_level` in `chain.wgsl`): the first always; each later one while
/// the level before it found vertices whose out-edges are within the band.
fn levels_run(
    command: &WaveCommand,
    records: &[u32],
    device_ns: Option<u64>,
) -> Result<(Vec<LevelRecord>, Vec<u32>), BackendError> {
    let band = band(command);
    let mut levels = Vec::new();
    let mut grids = Vec::new();
    let mut frontier_in = command.position.frontier_len;
    for (k, r) in (0u32..).zip(records.chunks_exact(RECORD_WORDS as usize)) {
        let [found, edges, examined, grid] = [r[0], r[1], r[2], r[3]];
        if grid == 0 {
            return Err(BackendError::device(format!(
                "level {k} of a command should have run but recorded no workgroups. Fix: this is a bug in vyre-wgpu or the driver; rerun with WGPU_BACKEND=vulkan and report it."
            )));
        }
        levels.push(LevelRecord {
            level: command.position.level + k,
            frontier_in,
            frontier_out: found,
            frontier_out_edges: u64::from(edges),
            edges_examined: u64::from(examined),
            // Chained levels are timed together, not one by one.
            device_ns: if command.max_levels == 1 {
                device_ns
            } else {
                None
            },
        });
        grids.push(grid);
        if found == 0 || edges > band {
            break;
        }
        frontier_in = found;
    }
    Ok((levels, grids))
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
