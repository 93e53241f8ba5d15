//! The dispatches one level of each topology records, and where each takes
//! its grid from.

use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

use crate::control::{
    ARGS_LEVEL, ARGS_PIECES, ARGS_SCAN, HYBRID_LIGHT_DEGREE, SCAN_CAP, SPARSE_EDGES_PER_LANE,
};
use crate::kernels::Kernel;

/// Where one dispatch of a level takes its grid from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Grid {
    /// The command's launch grid on its first level; the level arguments
    /// sized on the device (from the frontier's slots) on later ones.
    Launch,
    /// Always the arguments `level_begin`/`level_advance` wrote at this byte
    /// offset of the dispatch-argument buffer.
    Device(u64),
}

/// One dispatch of a level.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Step {
    pub kernel: Kernel,
    pub grid: Grid,
}

/// What the host knows about a level when it records it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelFacts {
    pub topology: T,
    /// The level kernel of `topology`.
    pub kernel: Kernel,
    /// Whether this is the command's first level, whose frontier length the
    /// host knows.
    pub first: bool,
    /// Frontier length of the first level.
    pub frontier_len: u32,
    /// Workgroup width of the level kernels.
    pub width: u32,
    /// Largest out-degree of the graph.
    pub max_out_degree: u64,
}

const fn step(kernel: Kernel, grid: Grid) -> Step {
    Step { kernel, grid }
}

/// The dispatches of one level, in order.
///
/// Sparse levels are sized on the device by their edges (even the first:
/// its launch grid counts vertices, which says nothing of how many edges a
/// few hubs hold). Their chunk scan is recorded unless the frontier is known
/// to be too short for the device to choose one (`bookkeeping.wgsl`,
/// `sparse_chunk`): it is recorded on every later level, whose length the
/// host does not know, and gets zero workgroups when not needed. Hybrid
/// levels record their piece dispatch only on graphs with a vertex above
/// [`HYBRID_LIGHT_DEGREE`] out-edges: only those can produce pieces.
pub(crate) fn level_steps(facts: LevelFacts) -> Vec<Step> {
    let main = step(facts.kernel, Grid::Launch);
    match facts.topology {
        T::SparseFrontier => {
            let mut steps = Vec::with_capacity(2);
            let always_one_scan = facts
                .width
                .saturating_mul(SPARSE_EDGES_PER_LANE)
                .min(SCAN_CAP);
            if !facts.first || facts.frontier_len > always_one_scan {
                steps.push(step(Kernel::SparseScan, Grid::Device(ARGS_SCAN)));
            }
            steps.push(step(facts.kernel, Grid::Device(ARGS_LEVEL)));
            steps
        }
        T::HybridFrontier if facts.max_out_degree > u64::from(HYBRID_LIGHT_DEGREE) => {
            vec![main, step(Kernel::HybridPieces, Grid::Device(ARGS_PIECES))]
        }
        T::DenseFrontier => vec![step(Kernel::DenseClearNext, Grid::Launch), main],
        _ => vec![main],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(topology: T, kernel: Kernel, first: bool, len: u32, degree: u64) -> LevelFacts {
        LevelFacts {
            topology,
            kernel,
            first,
            frontier_len: len,
            width: 256,
            max_out_degree: degree,
        }
    }

    #[test]
    fn a_short_first_sparse_level_is_one_device_sized_dispatch() {
        // 256 lanes of 2 edges: frontiers up to 512 vertices are always
        // scanned by every workgroup.
        let steps = level_steps(facts(T::SparseFrontier, Kernel::Sparse, true, 512, 9));
        assert_eq!(steps, vec![step(Kernel::Sparse, Grid::Device(0))]);
    }

    #[test]
    fn longer_or_later_sparse_levels_record_the_chunk_scan() {
        let scan_then_expand = vec![
            step(Kernel::SparseScan, Grid::Device(16)),
            step(Kernel::Sparse, Grid::Device(0)),
        ];
        let longer = facts(T::SparseFrontier, Kernel::Sparse, true, 513, 9);
        assert_eq!(level_steps(longer), scan_then_expand);
        let later = facts(T::SparseFrontier, Kernel::Sparse, false, 1, 9);
        assert_eq!(level_steps(later), scan_then_expand);
        // Wide workgroups: beyond SCAN_CAP vertices the scan is needed anyway.
        let wide = LevelFacts {
            width: 4096,
            ..facts(T::SparseFrontier, Kernel::Sparse, true, 2049, 9)
        };
        assert_eq!(level_steps(wide), scan_then_expand);
    }

    #[test]
    fn hybrid_records_pieces_only_when_a_vertex_is_not_light() {
        let light = facts(T::HybridFrontier, Kernel::Hybrid, true, 5, 32);
        assert_eq!(level_steps(light), vec![step(Kernel::Hybrid, Grid::Launch)]);
        let heavy = facts(T::HybridFrontier, Kernel::Hybrid, false, 5, 33);
        assert_eq!(
            level_steps(heavy),
            vec![
                step(Kernel::Hybrid, Grid::Launch),
                step(Kernel::HybridPieces, Grid::Device(32)),
            ]
        );
    }

    #[test]
    fn other_topologies_keep_their_dispatches() {
        let dense = facts(T::DenseFrontier, Kernel::Dense, true, 5, 1 << 20);
        assert_eq!(
            level_steps(dense),
            vec![
                step(Kernel::DenseClearNext, Grid::Launch),
                step(Kernel::Dense, Grid::Launch),
            ]
        );
        for (topology, kernel) in [
            (T::WarpSparseFrontier, Kernel::WarpSparse),
            (T::BlockDenseFrontier, Kernel::BlockDense),
        ] {
            let f = facts(topology, kernel, false, 5, 1 << 20);
            assert_eq!(level_steps(f), vec![step(kernel, Grid::Launch)]);
        }
    }
}
