//! Recording and running one [`WaveCommand`]: an optional frontier
//! conversion, then up to `max_levels` levels in one submission (a chain),
//! each later level sized on the device, and one readback.

use std::time::Instant;

use vyre_driver::backend::{
    BackendError, DeviceCapabilities, FrontierForm, LevelRecord, WaveCommand, WaveReport,
    frontier_form_of,
};

use crate::control::{ARGS_LEVEL, COMMAND_WORDS, CommandHeader};
use crate::kernels::{Kernel, Kernels};
use crate::level_steps::{Grid, LevelFacts, level_steps};
use crate::readback::{read_staging, words_of};
use crate::resident::Resident;

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
) -> Result<WaveReport, BackendError> {
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
        return Ok(WaveReport {
            frontier: Some(resident.form),
            ..WaveReport::default()
        });
    }
    let width = command.launch.workgroup_size_x;
    let levels = command.max_levels;
    let header = CommandHeader {
        frontier_len: command.frontier_len,
        level: command.level,
        topology: command.topology,
        max_workgroups: command
            .launch
            .max_workgroups
            .clamp(1, caps.max_compute_workgroups_per_dimension),
        band_max_frontier_edges: u32::try_from(command.band_max_frontier_edges).unwrap_or(u32::MAX),
        width,
    };
    let words: [u32; COMMAND_WORDS] = header.words();
    queue.write_buffer(&resident.control, 0, bytemuck::cast_slice(&words));

    let conversion = match (resident.form, target_form) {
        (FrontierForm::Queue, FrontierForm::Bitmap) => Some(Kernel::QueueToBitmap),
        (FrontierForm::Bitmap, FrontierForm::Queue) => Some(Kernel::BitmapToQueue),
        _ => None,
    };
    let begin = kernels.pipeline(device, Kernel::LevelBegin, 1);
    let advance = kernels.pipeline(device, Kernel::LevelAdvance, 1);
    let end = kernels.pipeline(device, Kernel::LevelEnd, 1);
    let convert = conversion.map(|k| kernels.pipeline(device, k, width));
    let mut steps_of = |first: bool| -> Vec<(wgpu::ComputePipeline, Grid)> {
        level_steps(LevelFacts {
            topology: command.topology,
            kernel: level_kernel,
            first,
            frontier_len: command.frontier_len,
            width,
            max_out_degree: resident.max_out_degree,
        })
        .into_iter()
        .map(|s| (kernels.pipeline(device, s.kernel, width), s.grid))
        .collect()
    };
    let first_steps = steps_of(true);
    let later_steps = if levels > 1 {
        steps_of(false)
    } else {
        Vec::new()
    };
    let timed = resident.query_count() >= 2 * levels;

    let record_offset = resident.record_offset();
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("vyre wave"),
    });
    encoder.clear_buffer(
        &resident.history,
        record_offset,
        Some(16 * u64::from(levels)),
    );
    for k in 0..levels {
        let set = (resident.current + k as usize) % 2;
        if k == 0 && conversion == Some(Kernel::QueueToBitmap) {
            encoder.clear_buffer(&resident.bitmaps[set], 0, None);
        }
        let timestamp_writes = resident
            .query_set
            .as_ref()
            .filter(|_| timed)
            .map(|query_set| wgpu::ComputePassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: Some(2 * k),
                end_of_pass_write_index: Some(2 * k + 1),
            });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("vyre level"),
            timestamp_writes,
        });
        pass.set_bind_group(0, &resident.state_groups[set], &[]);
        if let (0, Some(pipeline), Some(kind)) = (k, &convert, conversion) {
            let slots = match kind {
                Kernel::QueueToBitmap => command.frontier_len,
                _ => resident.layout.vertex_count.div_ceil(32),
            };
            pass.set_pipeline(pipeline);
            pass.dispatch_workgroups(groups_for(slots, width, caps), 1, 1);
        }
        if k == 0 {
            pass.set_pipeline(&begin);
            pass.set_bind_group(1, &resident.history_group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let steps = if k == 0 { &first_steps } else { &later_steps };
        for (pipeline, grid) in steps {
            pass.set_pipeline(pipeline);
            match (k, grid) {
                (0, Grid::Launch) => {
                    let [x, y, z] = command.launch.dispatch_grid;
                    pass.dispatch_workgroups(x, y, z);
                }
                (_, Grid::Launch) => {
                    pass.dispatch_workgroups_indirect(&resident.dispatch_args, ARGS_LEVEL);
                }
                (_, Grid::Device(offset)) => {
                    pass.dispatch_workgroups_indirect(&resident.dispatch_args, *offset);
                }
            }
        }
        pass.set_pipeline(if k + 1 == levels { &end } else { &advance });
        pass.set_bind_group(1, &resident.history_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    let timestamp_bytes = 16 * u64::from(levels);
    if let (true, Some(query_set)) = (timed, &resident.query_set) {
        encoder.resolve_query_set(query_set, 0..2 * levels, &resident.history, 0);
    }
    encoder.copy_buffer_to_buffer(&resident.history, 0, &resident.staging, 0, timestamp_bytes);
    encoder.copy_buffer_to_buffer(
        &resident.history,
        record_offset,
        &resident.staging,
        timestamp_bytes,
        timestamp_bytes,
    );
    let readback_bytes = 2 * timestamp_bytes;
    let start = Instant::now();
    queue.submit([encoder.finish()]);
    let words = read_staging(device, &resident.staging, readback_bytes, words_of)?;
    let wall_ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);

    let (stamps, records) = words.split_at(words.len() / 2);
    let mut report = WaveReport {
        wall_ns,
        readback_bytes,
        ..WaveReport::default()
    };
    let mut device_total = 0u64;
    for k in 0..levels as usize {
        let r = &records[4 * k..4 * k + 4];
        if r[0] == 0 {
            break;
        }
        let device_ns = timed.then(|| {
            let t = &stamps[4 * k..4 * k + 4];
            let begin = u64::from(t[0]) | (u64::from(t[1]) << 32);
            let end = u64::from(t[2]) | (u64::from(t[3]) << 32);
            (end.saturating_sub(begin) as f64 * timestamp_period_ns) as u64
        });
        device_total += device_ns.unwrap_or(0);
        report.levels.push(LevelRecord {
            level: command.level + k as u32,
            frontier_in: r[0],
            frontier_out: r[1],
            frontier_out_edges: u64::from(r[2]),
            edges_examined: u64::from(r[3]),
            device_ns,
        });
    }
    report.device_ns = timed.then_some(device_total);
    resident.current = (resident.current + report.levels.len()) % 2;
    resident.form = target_form;
    report.frontier = Some(target_form);
    Ok(report)
}
