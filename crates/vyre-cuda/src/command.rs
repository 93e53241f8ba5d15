//! Checking a [`WaveCommand`] against the device and the search in progress,
//! and turning it into launches. Pure: no device is touched here.

use vyre_driver::backend::{BackendError, FrontierForm, WaveCommand, frontier_form_of, slots_for};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;

use crate::kernels::EDGE_ROUNDS;

/// The device limits a command is checked against.
#[derive(Clone, Debug, Eq, PartialEq)]
pub(crate) struct DeviceLimits {
    pub device_name: String,
    /// Widest block of a per-wave kernel.
    pub max_width: u32,
    /// Most blocks in x.
    pub max_grid: u32,
    /// Widest block of the fused kernel (0: no device-wide barrier).
    pub fused_width: u32,
    /// Most fused blocks resident at once (0: no device-wide barrier).
    pub resident_workgroups: u32,
    /// Levels the history buffer holds.
    pub history_levels: u32,
    /// Threads the device keeps resident at once (SMs x threads per SM):
    /// later levels of a chain launch at most enough blocks to fill it.
    pub resident_threads: u32,
    /// Vertices of the uploaded graph.
    pub vertex_count: u32,
    /// Stored edges of the uploaded graph.
    pub edge_count: u64,
}

/// Where the search stands, as the backend tracked it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct SearchState {
    /// Depth of the current frontier.
    pub level: u32,
    /// Vertices in the current frontier.
    pub frontier_len: u32,
    /// Out-edges of the current frontier.
    pub frontier_edges: u64,
    /// Form the current frontier is held in.
    pub form: FrontierForm,
    /// Which of the two queues holds the frontier when it is a queue.
    pub queue: usize,
    /// Which of the two bitmaps holds it when it is a bitmap.
    pub bitmap: usize,
}

impl SearchState {
    /// The state `begin_search` leaves: the sources (with `edges`
    /// out-edges) queued in queue 0.
    pub(crate) fn start(sources: u32, edges: u64) -> Self {
        Self {
            level: 0,
            frontier_len: sources,
            frontier_edges: edges,
            form: FrontierForm::Queue,
            queue: 0,
            bitmap: 0,
        }
    }

    /// The state after a command of `topology` ran `levels` levels (at least
    /// one), the last of which discovered `frontier_len` vertices with
    /// `frontier_edges` out-edges.
    pub(crate) fn after(
        self,
        topology: Topology,
        levels: u32,
        frontier_len: u32,
        frontier_edges: u64,
    ) -> Self {
        let form = frontier_form_of(topology);
        let flip = (levels & 1) as usize;
        Self {
            level: self.level.saturating_add(levels),
            frontier_len,
            frontier_edges,
            form,
            queue: if form == FrontierForm::Queue {
                self.queue ^ flip
            } else {
                self.queue
            },
            bitmap: if form == FrontierForm::Bitmap {
                self.bitmap ^ flip
            } else {
                self.bitmap
            },
        }
    }
}

/// The launches of one command.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct CommandPlan {
    /// Form to convert the frontier to before the first level, if it is not
    /// held in the form the topology reads.
    pub convert_to: Option<FrontierForm>,
    /// Block width of every level (the command's, rounded up to whole warps).
    pub width: u32,
    /// Blocks of the first (or only, or fused) launch: the command's grid,
    /// widened for edge-balanced topologies to the blocks the frontier's
    /// out-edges can use (their kernels use no more than that).
    pub first_blocks: u32,
    /// Blocks of every later level of a chain. Their frontier is only known
    /// on the device, so they launch enough blocks to fill the device (never
    /// more than the largest level could use, nor than max_workgroups); the
    /// kernels size themselves from the device's frontier length, stride
    /// over what the grid does not cover, and leave surplus blocks idle.
    pub later_blocks: u32,
    /// Levels to enqueue (per-wave) or to allow (fused).
    pub levels: u32,
}

/// Check `command` and plan its launches.
pub(crate) fn plan_command(
    command: &WaveCommand,
    limits: &DeviceLimits,
    state: &SearchState,
) -> Result<CommandPlan, BackendError> {
    let fused = command.topology == Topology::FusedWave;
    let device = &limits.device_name;
    if fused && limits.resident_workgroups == 0 {
        return Err(BackendError::new(format!(
            "{device} has no device-wide barrier (no cooperative launch), so it cannot run FusedWave. Fix: let the policy choose (it never picks FusedWave without supports_device_wide_barrier) or force a per-wave topology."
        )));
    }
    if command.frontier != state.form {
        return Err(BackendError::new(format!(
            "the command says the frontier is held as a {:?} but the backend holds it as a {:?}. Fix: set WaveCommand::frontier from the last report's frontier (a queue right after begin_search).",
            command.frontier, state.form
        )));
    }
    if command.level != state.level || command.frontier_len != state.frontier_len {
        return Err(BackendError::new(format!(
            "the command expands level {} with {} frontier vertices, but the search is at level {} with {}. Fix: take level and frontier_len from the last report (level + levels run, the last level's frontier_out).",
            command.level, command.frontier_len, state.level, state.frontier_len
        )));
    }
    let launch = &command.launch;
    let width_limit = if fused {
        limits.fused_width
    } else {
        limits.max_width
    };
    if launch.workgroup_size_x == 0 || launch.workgroup_size_x > width_limit {
        return Err(BackendError::new(format!(
            "{:?} asks for workgroups of {} threads but {device} runs it with 1 to {width_limit}. Fix: size the launch within capabilities().{}.",
            command.topology,
            launch.workgroup_size_x,
            if fused {
                "resident_workgroup_size"
            } else {
                "max_workgroup_size_x"
            }
        )));
    }
    if launch.dispatch_grid.contains(&0) {
        return Err(BackendError::new(format!(
            "the launch grid {:?} has a zero dimension. Fix: dispatch at least one workgroup in x, y and z.",
            launch.dispatch_grid
        )));
    }
    let blocks = launch.workgroups();
    let max_grid = u64::from(limits.max_grid);
    if blocks > max_grid {
        return Err(BackendError::new(format!(
            "the launch asks for {blocks} workgroups but {device} launches at most {max_grid}. Fix: cap the grid at capabilities().max_compute_workgroups_per_dimension; the kernels stride over the rest."
        )));
    }
    if fused && blocks > u64::from(limits.resident_workgroups) {
        return Err(BackendError::new(format!(
            "FusedWave asks for {blocks} workgroups but only {} can be resident at once on {device}; its grid barrier needs every workgroup resident (a cooperative launch that large is refused). Fix: launch at most capabilities().resident_workgroups workgroups.",
            limits.resident_workgroups
        )));
    }
    let levels = command.max_levels.max(1);
    if levels > limits.history_levels {
        return Err(BackendError::new(format!(
            "the command may run {levels} levels but the uploaded layout records at most {} per command. Fix: cap max_levels at DeviceLayout::max_levels_per_command, or upload with a larger one.",
            limits.history_levels
        )));
    }
    let asked = u32::try_from(blocks).unwrap_or(u32::MAX);
    let width = launch.workgroup_size_x.div_ceil(32) * 32;
    let fill = (limits.resident_threads / width).max(1);
    let cap = if launch.max_workgroups == 0 {
        asked
    } else {
        launch.max_workgroups
    };
    let balanced = edge_balanced(command.topology);
    // Edge-balanced kernels spread a frontier's edges over as many blocks as
    // they fill (a few hubs need many blocks though they are few slots), up
    // to a device-full.
    let edge_blocks = |edges: u64| {
        let blocks = edges.div_ceil(EDGE_ROUNDS * u64::from(width));
        u32::try_from(blocks).unwrap_or(u32::MAX)
    };
    // vyre_sparse's blocks walk the frontier's vertices as well as its edges.
    let work = if command.topology == Topology::SparseFrontier {
        state.frontier_edges + u64::from(state.frontier_len)
    } else {
        state.frontier_edges
    };
    let first_blocks = if balanced {
        asked.max(edge_blocks(work).min(fill).min(cap).min(limits.max_grid))
    } else {
        asked
    };
    let slots = slots_for(command.topology, limits.vertex_count, limits.vertex_count);
    let largest_level = if balanced {
        slots.div_ceil(width).max(edge_blocks(limits.edge_count))
    } else {
        slots.div_ceil(width)
    };
    let want = frontier_form_of(command.topology);
    Ok(CommandPlan {
        convert_to: (want != state.form).then_some(want),
        width,
        first_blocks,
        later_blocks: largest_level.min(fill).min(cap).min(limits.max_grid).max(1),
        levels,
    })
}

/// Whether `topology`'s kernel shares its frontier's edges evenly over its
/// blocks (and so wants blocks for edges, not frontier vertices).
fn edge_balanced(topology: Topology) -> bool {
    matches!(
        topology,
        Topology::SparseFrontier | Topology::HybridFrontier
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_driver::backend::LaunchShape;

    fn limits() -> DeviceLimits {
        DeviceLimits {
            device_name: "test GPU".into(),
            max_width: 1024,
            max_grid: 1000,
            fused_width: 256,
            resident_workgroups: 64,
            history_levels: 16,
            resident_threads: 4 * 2048,
            vertex_count: 100_000,
            edge_count: 1_000_000,
        }
    }

    fn command(topology: Topology) -> WaveCommand {
        WaveCommand {
            topology,
            frontier: FrontierForm::Queue,
            level: 3,
            frontier_len: 10,
            max_levels: 1,
            launch: LaunchShape {
                workgroup_size_x: 256,
                dispatch_grid: [4, 1, 1],
                slots_per_lane: 1,
                max_workgroups: 0,
            },
            band_max_frontier_edges: u64::MAX,
        }
    }

    fn state() -> SearchState {
        SearchState {
            level: 3,
            frontier_len: 10,
            frontier_edges: 20,
            form: FrontierForm::Queue,
            queue: 1,
            bitmap: 0,
        }
    }

    fn refused(c: &WaveCommand, l: &DeviceLimits, needle: &str) {
        let err = plan_command(c, l, &state()).unwrap_err();
        assert!(err.message().contains(needle), "{needle}: {err}");
        assert!(err.message().contains("Fix:"), "{err}");
    }

    #[test]
    fn a_plain_wave_is_planned_as_asked() {
        let plan = plan_command(&command(Topology::SparseFrontier), &limits(), &state()).unwrap();
        assert_eq!(
            plan,
            CommandPlan {
                convert_to: None,
                width: 256,
                first_blocks: 4,
                later_blocks: 4,
                levels: 1
            },
            "later levels reuse the first grid when max_workgroups is 0"
        );
    }

    #[test]
    fn bitmap_topologies_convert_a_queue_and_widths_round_to_warps() {
        let mut c = command(Topology::DenseFrontier);
        c.launch.workgroup_size_x = 40;
        c.launch.dispatch_grid = [2, 3, 1];
        c.launch.max_workgroups = 9;
        c.max_levels = 0;
        let plan = plan_command(&c, &limits(), &state()).unwrap();
        assert_eq!(plan.convert_to, Some(FrontierForm::Bitmap));
        assert_eq!(plan.width, 64);
        assert_eq!(plan.first_blocks, 6);
        assert_eq!(plan.later_blocks, 9, "capped by max_workgroups");
        assert_eq!(plan.levels, 1, "max_levels 0 runs one level");
    }

    #[test]
    fn later_chain_levels_fill_the_device_but_no_more_than_a_level_can_use() {
        let l = limits();
        let mut c = command(Topology::WarpSparseFrontier);
        c.max_levels = 8;
        c.launch.max_workgroups = u32::MAX;
        // 4 SMs x 2048 threads at width 256: 32 blocks fill the device.
        assert_eq!(plan_command(&c, &l, &state()).unwrap().later_blocks, 32);
        // A graph of 100 vertices never needs more than ceil(100*32/256).
        let small = DeviceLimits {
            vertex_count: 100,
            ..limits()
        };
        assert_eq!(plan_command(&c, &small, &state()).unwrap().later_blocks, 13);
        let empty = DeviceLimits {
            vertex_count: 0,
            ..limits()
        };
        assert_eq!(plan_command(&c, &empty, &state()).unwrap().later_blocks, 1);
        // Without a cap the first level's grid is reused.
        c.launch.max_workgroups = 0;
        assert_eq!(plan_command(&c, &l, &state()).unwrap().later_blocks, 4);
    }

    #[test]
    fn a_chain_after_its_first_level_never_launches_more_than_a_device_full() {
        // The engine caps later levels at max_compute_workgroups_per_dimension
        // (2^31 - 1 on CUDA); a no-op launch that large took 5 s on an H200.
        let mut c = command(Topology::SparseFrontier);
        c.max_levels = 2;
        c.launch.max_workgroups = i32::MAX as u32;
        let huge = DeviceLimits {
            max_grid: i32::MAX as u32,
            vertex_count: u32::MAX,
            edge_count: u64::MAX,
            ..limits()
        };
        let plan = plan_command(&c, &huge, &state()).unwrap();
        assert_eq!(plan.later_blocks, 32, "4 SMs x 2048 threads / 256");
    }

    #[test]
    fn edge_balanced_levels_get_blocks_for_their_edges() {
        let l = limits();
        // 8 hubs: 9 frontier vertices (1 block of 256 by slots) but 160,000
        // edges, which fill 157 blocks of 4 rounds; the device holds 32.
        let hubs = SearchState {
            frontier_len: 10,
            frontier_edges: 160_000,
            ..state()
        };
        for topology in [Topology::SparseFrontier, Topology::HybridFrontier] {
            let mut c = command(topology);
            c.launch.dispatch_grid = [1, 1, 1];
            c.launch.max_workgroups = u32::MAX;
            assert_eq!(plan_command(&c, &l, &hubs).unwrap().first_blocks, 32);
            // Capped by max_workgroups.
            c.launch.max_workgroups = 20;
            assert_eq!(plan_command(&c, &l, &hubs).unwrap().first_blocks, 20);
            // Never fewer than asked.
            c.launch.dispatch_grid = [40, 1, 1];
            assert_eq!(plan_command(&c, &l, &hubs).unwrap().first_blocks, 40);
            // 3000 edges (and 10 vertices) need 3 blocks.
            let few = SearchState {
                frontier_edges: 3000,
                ..hubs
            };
            c.launch.dispatch_grid = [1, 1, 1];
            assert_eq!(plan_command(&c, &l, &few).unwrap().first_blocks, 3);
        }
        // Other topologies launch what they are asked.
        let mut c = command(Topology::WarpSparseFrontier);
        c.launch.dispatch_grid = [1, 1, 1];
        c.launch.max_workgroups = u32::MAX;
        assert_eq!(plan_command(&c, &l, &hubs).unwrap().first_blocks, 1);
    }

    #[test]
    fn bad_commands_are_refused_with_typed_errors() {
        let l = limits();
        let mut c = command(Topology::SparseFrontier);
        c.launch.dispatch_grid = [4, 0, 1];
        refused(&c, &l, "zero dimension");
        let mut c = command(Topology::SparseFrontier);
        c.launch.workgroup_size_x = 0;
        refused(&c, &l, "1 to 1024");
        c.launch.workgroup_size_x = 2048;
        refused(&c, &l, "1 to 1024");
        let mut c = command(Topology::SparseFrontier);
        c.launch.dispatch_grid = [1001, 1, 1];
        refused(&c, &l, "at most 1000");
        let mut c = command(Topology::SparseFrontier);
        c.max_levels = 17;
        refused(&c, &l, "at most 16 per command");
        let mut c = command(Topology::SparseFrontier);
        c.frontier = FrontierForm::Bitmap;
        refused(&c, &l, "held as a Bitmap");
        let mut c = command(Topology::SparseFrontier);
        c.level = 4;
        refused(&c, &l, "search is at level 3");
        let mut c = command(Topology::SparseFrontier);
        c.frontier_len = 11;
        refused(&c, &l, "with 10");
    }

    #[test]
    fn fused_waves_never_exceed_the_resident_grid() {
        let l = limits();
        let mut c = command(Topology::FusedWave);
        c.launch.dispatch_grid = [64, 1, 1];
        c.max_levels = 16;
        assert_eq!(plan_command(&c, &l, &state()).unwrap().first_blocks, 64);
        c.launch.dispatch_grid = [65, 1, 1];
        refused(&c, &l, "only 64 can be resident");
        c.launch.dispatch_grid = [8, 8, 2];
        refused(&c, &l, "asks for 128 workgroups");
        let mut c = command(Topology::FusedWave);
        c.launch.workgroup_size_x = 512;
        refused(&c, &l, "1 to 256");
        let no_barrier = DeviceLimits {
            fused_width: 0,
            resident_workgroups: 0,
            ..limits()
        };
        refused(
            &command(Topology::FusedWave),
            &no_barrier,
            "no device-wide barrier",
        );
    }

    #[test]
    fn the_frontier_moves_between_buffers_by_level_parity() {
        let s = state();
        let odd = s.after(Topology::HybridFrontier, 3, 7, 70);
        assert_eq!(
            (odd.level, odd.frontier_len, odd.frontier_edges),
            (6, 7, 70)
        );
        assert_eq!((odd.queue, odd.bitmap), (0, 0));
        let even = s.after(Topology::FusedWave, 2, 5, 50);
        assert_eq!((even.queue, even.form), (1, FrontierForm::Queue));
        let dense = s.after(Topology::BlockDenseFrontier, 1, 9, 90);
        assert_eq!(
            (dense.queue, dense.bitmap, dense.form),
            (1, 1, FrontierForm::Bitmap)
        );
    }
}
