//! Running one [`WaveCommand`]: an optional frontier conversion, then up to
//! `max_levels` levels in one submission (a chain), each later level sized
//! on the device, and one readback of the level records.

use std::time::Instant;

use vyre_driver::backend::{
    BackendError, DeviceCapabilities, FrontierForm, LevelRecord, WaveCommand, WaveReport,
    frontier_form_of,
};

use crate::control::{COMMAND_WORDS, CommandHeader, RECORD_BASE_WORDS};
use crate::kernels::{Kernel, Kernels};
use crate::level_steps::{Grid, LevelFacts, level_steps};
use crate::readback::{read_staging, words_of};
use crate::record::{CommandRecipe, Dispatch, Prologue, readback_bytes, record, segments};
use crate::resident::Resident;
use crate::timing::CommandTiming;

fn invalid(message: String) -> BackendError {
    BackendError::new(message)
}

/// Check `command` against the device and the uploaded graph.
pub(crate) fn validate(
    command: &WaveCommand,
    caps: &DeviceCapabilities,
    resident: &Resident,
) -> Result<Kernel, BackendError> {
    let Some(kernel) = Kernel::for_topology(command.topology) else {
        return Err(invalid(format!(
            "{} has no device-wide barrier, so it cannot run a FusedWave (WGSL has none and WebGPU promises no forward progress between workgroups). Fix: let the policy choose the topology; it never picks FusedWave for a device whose capabilities say FUSION_INCAPABLE.",
            caps.device_name
        )));
    };
    let launch = &command.launch;
    let width = launch.workgroup_size_x;
    if !width.is_power_of_two()
        || width > caps.max_workgroup_size_x
        || width > caps.max_compute_invocations_per_workgroup
    {
        return Err(invalid(format!(
            "workgroup width {width} is not a power of two within this device's limit of {}. Fix: size the launch with ResidentGridPlan::recommend and these capabilities.",
            caps.max_workgroup_size_x
        )));
    }
    if launch.dispatch_grid.contains(&0)
        || launch
            .dispatch_grid
            .iter()
            .any(|&d| d > caps.max_compute_workgroups_per_dimension)
    {
        return Err(invalid(format!(
            "dispatch grid {:?} has a zero dimension or one above the device's {} workgroups per dimension. Fix: size the launch with ResidentGridPlan::recommend and these capabilities.",
            launch.dispatch_grid, caps.max_compute_workgroups_per_dimension
        )));
    }
    let max_levels = resident.layout.max_levels_per_command;
    if command.max_levels == 0 || command.max_levels > max_levels {
        return Err(invalid(format!(
            "the command asks for {} levels but the layout's level history holds 1 to {max_levels}. Fix: plan the layout with max_levels_per_command at least the longest chain.",
            command.max_levels
        )));
    }
    if command.max_levels > 1 && launch.max_workgroups == 0 {
        return Err(invalid(
            "a chained command has max_workgroups = 0, so its later levels could not run. Fix: set LaunchShape::max_workgroups to at least 1.".to_string(),
        ));
    }
    let n = resident.layout.vertex_count;
    if command.frontier_len > n {
        return Err(invalid(format!(
            "the frontier holds {} vertices but the graph has {n}. Fix: pass the frontier length of the last report.",
            command.frontier_len
        )));
    }
    if command.level >= u32::MAX - command.max_levels {
        return Err(invalid(format!(
            "level {} leaves no room below the unreached marker u32::MAX. Fix: pass the depth of the current frontier.",
            command.level
        )));
    }
    if !resident.searching {
        return Err(invalid(
            "no search is running. Fix: call begin_search before run_wave.".to_string(),
        ));
    }
    if command.frontier != resident.form {
        return Err(invalid(format!(
            "the command says the frontier is a {:?} but the device holds it as a {:?}. Fix: pass the form of the last report (WaveReport::frontier).",
            command.frontier, resident.form
        )));
    }
    Ok(kernel)
}

/// Workgroups that cover `slots` at `width`, capped at the dimension limit.
fn groups_for(slots: u32, width: u32, caps: &DeviceCapabilities) -> u32 {
    slots
        .div_ceil(width)
        .clamp(1, caps.max_compute_workgroups_per_dimension)
}

/// Everything `run` needs from the backend.
pub(crate) struct WaveContext<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub caps: &'a DeviceCapabilities,
    pub kernels: &'a mut Kernels,
    pub resident: &'a mut Resident,
    pub timestamp_period_ns: f64,
}

/// Run a validated command.
pub(crate) fn run(
    cx: WaveContext<'_>,
    command: &WaveCommand,
    level_kernel: Kernel,
) -> Result<(WaveReport, CommandTiming), BackendError> {
    let encode_start = Instant::now();
    let mut timing = CommandTiming::default();
    let WaveContext {
        device,
        queue,
        caps,
        kernels,
        resident,
        timestamp_period_ns,
    } = cx;
    let target_form = frontier_form_of(command.topology);
    if command.frontier_len == 0 {
        return Ok((
            WaveReport {
                frontier: Some(resident.form),
                ..WaveReport::default()
            },
            timing,
        ));
    }
    let width = command.launch.workgroup_size_x;
    let levels = command.max_levels;
    let max_workgroups = command
        .launch
        .max_workgroups
        .clamp(1, caps.max_compute_workgroups_per_dimension);
    let band_max_frontier_edges =
        u32::try_from(command.band_max_frontier_edges).unwrap_or(u32::MAX);
    let conversion = match (resident.form, target_form) {
        (FrontierForm::Queue, FrontierForm::Bitmap) => Some(Kernel::QueueToBitmap),
        (FrontierForm::Bitmap, FrontierForm::Queue) => Some(Kernel::BitmapToQueue),
        _ => None,
    };
    let conversion = conversion.map(|kernel| {
        let slots = match kernel {
            Kernel::QueueToBitmap => command.frontier_len,
            _ => resident.layout.vertex_count.div_ceil(32),
        };
        Prologue {
            kernel,
            pipeline: kernels.pipeline(device, kernel, width),
            groups: groups_for(slots, width, caps),
        }
    });
    let mut steps_of = |first: bool| -> Vec<Dispatch> {
        level_steps(LevelFacts {
            topology: command.topology,
            kernel: level_kernel,
            first,
            frontier_len: command.frontier_len,
            width,
            max_out_degree: resident.max_out_degree,
            min_out_degree: resident.min_out_degree,
            vertex_count: resident.layout.vertex_count,
            band_max_frontier_edges,
            max_workgroups,
        })
        .into_iter()
        .map(|s| Dispatch {
            kernel: s.kernel,
            pipeline: kernels.pipeline(device, s.kernel, width),
            grid: s.grid,
        })
        .collect()
    };
    let first_steps = steps_of(true);
    let later_steps = if levels > 1 {
        steps_of(false)
    } else {
        Vec::new()
    };
    // The first level's device-sized dispatches need level_begin to size them.
    let begin = first_steps
        .iter()
        .any(|s| matches!(s.grid, Grid::Device(_)))
        .then(|| kernels.pipeline(device, Kernel::LevelBegin, 1));
    let header = CommandHeader {
        frontier_len: command.frontier_len,
        level: command.level,
        topology: command.topology,
        max_workgroups,
        band_max_frontier_edges,
        width,
        levels,
        later_pieces: later_steps.iter().any(|s| s.kernel == Kernel::HybridPieces),
    };
    let words: [u32; COMMAND_WORDS] = header.words();
    queue.write_buffer(&resident.control, 0, bytemuck::cast_slice(&words));
    let timed = resident.query_set.is_some();
    let recipe = CommandRecipe {
        resident,
        first_set: resident.current,
        levels,
        conversion,
        begin,
        first_steps,
        later_steps,
        launch_grid: command.launch.dispatch_grid,
        timed,
    };
    timing.levels_recorded = levels;
    let readback_bytes = readback_bytes(resident, levels);
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
    let words = read_staging(device, &resident.staging, readback_bytes, words_of)?;
    timing.wait_ns = nanos(submitted.elapsed());
    let wall_ns = nanos(start.elapsed());

    let (stamps, records) = words.split_at(RECORD_BASE_WORDS as usize);
    let device_ns = timed.then(|| {
        let begin = u64::from(stamps[0]) | (u64::from(stamps[1]) << 32);
        let end = u64::from(stamps[2]) | (u64::from(stamps[3]) << 32);
        (end.saturating_sub(begin) as f64 * timestamp_period_ns) as u64
    });
    let mut report = WaveReport {
        wall_ns,
        readback_bytes,
        device_ns,
        ..WaveReport::default()
    };
    let mut frontier_in = command.frontier_len;
    for (k, r) in records.chunks_exact(4).enumerate() {
        // A chain that stopped marks the record after its last level.
        if r[0] == 0 {
            break;
        }
        if r[0] != frontier_in {
            return Err(BackendError::device(format!(
                "level {} of the command recorded a frontier of {} vertices where {frontier_in} were expected. Fix: this is a bug in vyre-wgpu or the driver; rerun with WGPU_BACKEND=vulkan and report it.",
                k, r[0]
            )));
        }
        report.levels.push(LevelRecord {
            level: command.level + k as u32,
            frontier_in: r[0],
            frontier_out: r[1],
            frontier_out_edges: u64::from(r[2]),
            edges_examined: u64::from(r[3]),
            // Chained levels are timed together, not one by one.
            device_ns: if levels == 1 { device_ns } else { None },
        });
        frontier_in = r[1];
        if frontier_in == 0 {
            break;
        }
    }
    resident.current = (resident.current + report.levels.len()) % 2;
    resident.form = target_form;
    report.frontier = Some(target_form);
    Ok((report, timing))
}

fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
