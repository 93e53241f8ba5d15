//! The key a recorded chain is cached under: everything that changes what
//! gets recorded (pipelines, descriptor sets, copies, levels), and nothing
//! the kernels read from the device at run time (depth, frontier, band, the
//! engine's grids: they reach the device through the control block and the
//! dispatch arguments the host writes before each submission).

use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_wgsl_abi::Kernel;

/// The shape of a command's chain.
#[derive(Clone, Debug, Eq, PartialEq, Hash)]
pub(crate) struct ChainShape {
    pub topology: MegakernelExecutionTopology,
    /// Levels recorded.
    pub levels: u32,
    pub width: u32,
    /// The frontier set level 0 reads (it picks the descriptor sets).
    pub first_set: u32,
    pub conversion: Option<Kernel>,
    /// Dispatches of the first level and of each later one.
    pub first: Vec<Kernel>,
    pub later: Vec<Kernel>,
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{
        FrontierForm, LaunchShape, LevelSizing, SearchPosition, WaveCommand,
    };
    use vyre_wgsl_abi::{CommandPlan, GraphFacts};

    use super::*;

    fn command(buffer: u32, band: u64, level: u32, grid: u32) -> WaveCommand {
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
                cluster: false,
                workgroup_size_x: 256,
                dispatch_grid: [grid, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: 64,
                },
            },
            band_max_frontier_edges: band,
            band_max_frontier_vertices: u32::MAX,
        }
    }

    fn shape(command: &WaveCommand) -> ChainShape {
        let graph = GraphFacts {
            vertex_count: 1000,
            edge_count: 4000,
            max_out_degree: 8,
            min_out_degree: 1,
            in_edge_end: 1000,
        };
        crate::wave::chain_shape(command, &CommandPlan::of(command, graph).unwrap())
    }

    #[test]
    fn what_the_device_reads_at_run_time_does_not_split_recordings() {
        // Depth, frontier size, band and the first grid reach the kernels
        // through the control block and the arguments, so one recording
        // serves them all.
        assert_eq!(
            shape(&command(0, 100, 3, 4)),
            shape(&command(0, 5000, 9, 8))
        );
        // The frontier buffer picks other descriptor sets: another recording.
        assert_ne!(shape(&command(0, 100, 3, 4)), shape(&command(1, 100, 3, 4)));
        let mut longer = command(0, 100, 3, 4);
        longer.max_levels = 16;
        assert_ne!(shape(&longer), shape(&command(0, 100, 3, 4)));
    }
}
