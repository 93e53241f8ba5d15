//! The key a recorded chain is cached under: everything that changes what
//! gets recorded (pipelines, grids, descriptor sets), and nothing the
//! kernels read from the device at run time.

use vyre_driver::backend::{FrontierForm, WaveCommand};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

/// The shape of a command's chain.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub(crate) struct ChainShape {
    pub topology: MegakernelExecutionTopology,
    pub levels: u32,
    pub width: u32,
    pub first_grid: [u32; 3],
    pub later_edges_per_lane: u32,
    pub later_max_workgroups: u32,
    /// The frontier's form and buffer: they pick the descriptor sets.
    pub form: FrontierForm,
    pub buffer: u32,
}

impl ChainShape {
    /// The shape of `command`.
    pub(crate) fn of(command: &WaveCommand) -> Self {
        let launch = &command.launch;
        Self {
            topology: command.topology,
            levels: command.max_levels,
            width: launch.workgroup_size_x,
            first_grid: launch.dispatch_grid,
            later_edges_per_lane: launch.later.edges_per_lane,
            later_max_workgroups: launch.later.max_workgroups,
            form: command.position.form,
            buffer: command.position.buffer,
        }
    }
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{LaunchShape, LevelSizing, SearchPosition};

    use super::*;

    fn command(buffer: u32, band: u64, level: u32) -> WaveCommand {
        WaveCommand {
            topology: MegakernelExecutionTopology::SparseFrontier,
            position: SearchPosition {
                level,
                frontier_len: 10,
                frontier_edges: 40,
                form: FrontierForm::Queue,
                buffer,
            },
            max_levels: 8,
            launch: LaunchShape {
                workgroup_size_x: 256,
                dispatch_grid: [4, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: 64,
                },
            },
            band_max_frontier_edges: band,
        }
    }

    #[test]
    fn what_the_device_reads_at_run_time_does_not_split_recordings() {
        // Depth, frontier size and band reach the kernels through the
        // control block, so one recording serves them all.
        assert_eq!(
            ChainShape::of(&command(0, 100, 3)),
            ChainShape::of(&command(0, 5000, 9))
        );
        // The frontier buffer picks other descriptor sets: another recording.
        assert_ne!(
            ChainShape::of(&command(0, 100, 3)),
            ChainShape::of(&command(1, 100, 3))
        );
        let mut wider = command(0, 100, 3);
        wider.launch.dispatch_grid = [8, 1, 1];
        assert_ne!(ChainShape::of(&wider), ChainShape::of(&command(0, 100, 3)));
    }
}
