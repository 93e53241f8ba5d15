//! Running a checked `FusedWave` command: the persistent kernel
//! (`shaders/wgsl/fused.wgsl`) runs many levels in one launch of at most
//! the workgroups the probe saw co-resident (the check refuses more, and
//! devices without a verified barrier). Its waits at grid barriers are
//! bounded and poll an abort word in staging: when the host's wait passes
//! the device's limit it sets the word and waits a little longer, so a
//! stuck launch becomes a typed error, never a hung process.

use std::time::Duration;

use vyre_driver::backend::{BackendError, CheckedCommand, WaveReport};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_wgsl_abi::control::{C_ABORTED, FUSED_STATUS};
use vyre_wgsl_abi::fused::check_status;
use vyre_wgsl_abi::{CommandPlan, FUSED_WIDTH, Kernel, readback_bytes};

use crate::gpu::Gpu;
use crate::host_words::{CommandGrids, abort, read, status_at, write_command};
use crate::record::{ChainShape, Step, Timestamps};
use crate::submit::{Waited, gave_up, submit_with_fence, wait_for};
use crate::timing::Phases;
use crate::wave::{
    Frame, Outcome, WaveContext, control_words, levels_read, record_command, recording,
};

/// How long an aborted launch may take to notice the abort word and end:
/// its waits poll it every 256 polls, so far less than this.
pub(crate) const ABORT_GRACE: Duration = Duration::from_secs(10);

/// Run `command`.
pub(crate) fn run(cx: WaveContext<'_>, command: &CheckedCommand) -> Result<Outcome, BackendError> {
    let mut phases = Phases::begin();
    let WaveContext {
        gpu,
        kernels,
        records,
        recordings,
        resident,
    } = cx;
    let plan = CommandPlan::of_fused(command, resident.facts)?;
    let shape = ChainShape {
        topology: MegakernelExecutionTopology::FusedWave,
        levels: command.max_levels,
        width: command.launch.workgroup_size_x,
        first_set: command.position.buffer_of_level(0, true),
        conversion: plan.conversion,
        first: plan.first,
        later: plan.later,
    };
    let control = control_words(resident, &plan.words);
    let grids = CommandGrids {
        first: command.launch.dispatch_grid,
        later: plan.later_grid,
        conversion: command
            .conversion_workgroups(resident.layout.vertex_count, false)
            .unwrap_or(1),
    };
    write_command(&mut resident.staging, &control, &grids)?;
    let (recorded, fresh) = {
        let resident = &*resident;
        let (recorded, fresh) = recording(records, recordings, &shape, || {
            let d = shape.first_set as usize;
            let args = (resident.work.buffer, resident.carve.first_args);
            let conversion_args = (resident.work.buffer, resident.carve.conversion_args);
            let set = resident.sets[d];
            // The conversion runs at the command's width on its own grid.
            let steps = shape
                .conversion
                .map(|kernel| (kernel, shape.width, conversion_args))
                .into_iter()
                .chain([(Kernel::Fused, FUSED_WIDTH, args)])
                .map(|(kernel, width, args)| {
                    Ok(Step {
                        pipeline: kernels.pipeline(kernel, width)?,
                        set,
                        args,
                    })
                })
                .collect::<Result<Vec<_>, BackendError>>()?;
            let frame = Frame {
                first_set: shape.first_set,
                history_levels: shape.levels,
                converts: shape.conversion.is_some(),
                clear_bitmap: false,
                status: true,
                tallies: None,
            };
            record_command(gpu, resident, &[steps], &frame)
        })?;
        (recorded.command, fresh)
    };
    phases.submitting();
    submit_with_fence(gpu, recorded, "submitting a fused launch")?;
    phases.submitted();
    let waited = wait_or_abort(gpu, &mut resident.staging)?;
    phases.done();
    let status = read(
        &resident.staging,
        status_at(shape.levels),
        FUSED_STATUS.len(),
    )?;
    let word = |w: usize| status[w - FUSED_STATUS.start];
    if waited == Waited::TimedOut {
        let noticed = if word(C_ABORTED) != 0 {
            "its workgroups saw the abort word and stopped waiting"
        } else {
            "it ended before any workgroup saw the abort word"
        };
        return Err(BackendError::device(format!(
            "a fused launch did not finish within {} ms and was aborted ({noticed}); the search's state on the device is void. Fix: start the search again; if it repeats, raise the wait limit (VulkanOpenRequest::device_wait_limit) for very large levels, or force a per-wave topology.",
            gpu.command_limit.as_millis()
        )));
    }
    check_status(&status, command.launch.workgroups())?;
    let run = levels_read(resident, command, shape.levels)?;
    let device_ns = resident
        .timestamps
        .as_ref()
        .map(Timestamps::command_ns)
        .transpose()?;
    Ok(Outcome {
        report: WaveReport {
            levels: run.levels,
            wall_ns: phases.wall_ns(),
            device_ns,
            readback_bytes: readback_bytes(shape.levels) + crate::host_words::STATUS_BYTES,
        },
        timing: phases.timing(fresh, shape.levels),
        grids: run.grids,
        lanes: Vec::new(),
    })
}

/// Wait for the launch at most the command limit; past it, set the abort
/// word and wait [`ABORT_GRACE`] for the launch to end (`TimedOut`: it was
/// aborted, and ended).
fn wait_or_abort(
    gpu: &Gpu,
    staging: &mut crate::memory::DeviceBuffer,
) -> Result<Waited, BackendError> {
    let doing = "running a fused launch";
    if wait_for(&gpu.device, gpu.fence, gpu.command_limit, doing)? == Waited::Done {
        return Ok(Waited::Done);
    }
    abort(staging)?;
    match wait_for(&gpu.device, gpu.fence, ABORT_GRACE, doing)? {
        Waited::Done => Ok(Waited::TimedOut),
        Waited::TimedOut => Err(gave_up(
            gpu,
            "a fused launch, even after it was aborted",
            gpu.command_limit + ABORT_GRACE,
        )),
    }
}
