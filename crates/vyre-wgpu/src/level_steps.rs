//! The dispatches one level of each topology records, and where each takes
//! its grid from.

use vyre_driver::backend::WORK_PIECE_EDGES;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

use crate::control::{
    ARGS_LEVEL, ARGS_PIECES, ARGS_SCAN, HYBRID_LIGHT_DEGREE, HYBRID_MID_ROUNDS,
    REPEATED_SCAN_LOADS, SCAN_CAP, SPARSE_EDGES_PER_LANE,
};
use crate::kernels::Kernel;

/// Where one dispatch of a level takes its grid from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Grid {
    /// The command's launch grid on its first level; the level arguments
    /// sized on the device (from the frontier's slots) on later ones.
    Launch,
    /// Always the arguments `open_level` wrote at this byte offset of the
    /// level's dispatch-argument buffer.
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
    /// Least out-degree of the graph.
    pub min_out_degree: u64,
    /// Vertices of the graph.
    pub vertex_count: u32,
    /// Most frontier out-edges a later level runs with (the command's band).
    pub band_max_frontier_edges: u32,
    /// Cap of device-sized dispatches.
    pub max_workgroups: u32,
}

impl LevelFacts {
    /// Whether the device may scan this Sparse level in chunks
    /// (`sparse_chunk` in `common.wgsl` not 0). The first level's length is
    /// known; a later level's vertices are bounded by the graph, and by its
    /// out-edges (at most the band) over the least degree.
    fn sparse_may_chunk(&self) -> bool {
        let lane_edges = u64::from(self.width.saturating_mul(SPARSE_EDGES_PER_LANE));
        if self.first {
            return u64::from(self.frontier_len) > lane_edges.min(u64::from(SCAN_CAP));
        }
        let band = u64::from(self.band_max_frontier_edges);
        let by_edges = band.checked_div(self.min_out_degree).unwrap_or(u64::MAX);
        let count = by_edges.min(u64::from(self.vertex_count));
        if count > u64::from(SCAN_CAP) {
            return true;
        }
        let groups = band
            .div_ceil(lane_edges.max(1))
            .min(u64::from(self.max_workgroups));
        count > lane_edges && groups * count > REPEATED_SCAN_LOADS
    }

    /// Whether this Hybrid level may produce pieces (`open_level` gives its
    /// piece dispatch workgroups): never without a vertex above
    /// [`HYBRID_LIGHT_DEGREE`] out-edges, nor on a later level whose band
    /// keeps its out-edges within one chunk's mid-degree budget.
    fn hybrid_may_piece(&self) -> bool {
        let budget = WORK_PIECE_EDGES.min(u64::from(self.width) * u64::from(HYBRID_MID_ROUNDS));
        self.max_out_degree > u64::from(HYBRID_LIGHT_DEGREE)
            && (self.first || u64::from(self.band_max_frontier_edges) > budget)
    }
}

const fn step(kernel: Kernel, grid: Grid) -> Step {
    Step { kernel, grid }
}

/// The dispatches of one level, in order.
///
/// Sparse levels are sized on the device by their edges (even the first:
/// its launch grid counts vertices, which says nothing of how many edges a
/// few hubs hold). Their chunk scan is recorded unless the host knows the
/// device will not choose one (see `sparse_may_chunk`); when recorded it
/// gets zero workgroups if not needed. Hybrid levels record their piece
/// dispatch only when pieces can occur (see `hybrid_may_piece`). Recording
/// a dispatch the device certainly leaves empty would still cost a barrier
/// and the host's encoding.
pub(crate) fn level_steps(facts: LevelFacts) -> Vec<Step> {
    let main = step(facts.kernel, Grid::Launch);
    match facts.topology {
        T::SparseFrontier => {
            let mut steps = Vec::with_capacity(2);
            if facts.sparse_may_chunk() {
                steps.push(step(Kernel::SparseScan, Grid::Device(ARGS_SCAN)));
            }
            steps.push(step(facts.kernel, Grid::Device(ARGS_LEVEL)));
            steps
        }
        T::HybridFrontier if facts.hybrid_may_piece() => {
            vec![main, step(Kernel::HybridPieces, Grid::Device(ARGS_PIECES))]
        }
        T::DenseFrontier => vec![step(Kernel::DenseClearNext, Grid::Launch), main],
        _ => vec![main],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Facts of a level of width 256 on a graph of a million vertices of
    /// out-degree 1 to `degree`, with no band.
    fn facts(topology: T, kernel: Kernel, first: bool, len: u32, degree: u64) -> LevelFacts {
        LevelFacts {
            topology,
            kernel,
            first,
            frontier_len: len,
            width: 256,
            max_out_degree: degree,
            min_out_degree: 1,
            vertex_count: 1 << 20,
            band_max_frontier_edges: u32::MAX,
            max_workgroups: 65_535,
        }
    }

    fn scan_then_expand() -> Vec<Step> {
        vec![
            step(Kernel::SparseScan, Grid::Device(16)),
            step(Kernel::Sparse, Grid::Device(0)),
        ]
    }

    #[test]
    fn a_short_first_sparse_level_is_one_device_sized_dispatch() {
        // 256 lanes of 2 edges: frontiers up to 512 vertices are always
        // scanned by every workgroup.
        let steps = level_steps(facts(T::SparseFrontier, Kernel::Sparse, true, 512, 9));
        assert_eq!(steps, vec![step(Kernel::Sparse, Grid::Device(0))]);
    }

    #[test]
    fn longer_or_unbounded_later_sparse_levels_record_the_chunk_scan() {
        let longer = facts(T::SparseFrontier, Kernel::Sparse, true, 513, 9);
        assert_eq!(level_steps(longer), scan_then_expand());
        let later = facts(T::SparseFrontier, Kernel::Sparse, false, 1, 9);
        assert_eq!(level_steps(later), scan_then_expand());
        // Wide workgroups: beyond SCAN_CAP vertices the scan is needed anyway.
        let wide = LevelFacts {
            width: 4096,
            ..facts(T::SparseFrontier, Kernel::Sparse, true, 2049, 9)
        };
        assert_eq!(level_steps(wide), scan_then_expand());
    }

    #[test]
    fn a_band_or_a_small_graph_bounds_later_sparse_levels_below_the_scan() {
        let expand_only = vec![step(Kernel::Sparse, Grid::Device(0))];
        let later = facts(T::SparseFrontier, Kernel::Sparse, false, 1, 9);
        // 1024 edges of degree-1 vertices at most: 1024 vertices, 2
        // workgroups of 512 edges, 2048 degree loads.
        let banded = LevelFacts {
            band_max_frontier_edges: 1024,
            ..later
        };
        assert_eq!(level_steps(banded), expand_only);
        // 512 vertices at most: always scanned by every workgroup.
        let small = LevelFacts {
            vertex_count: 512,
            ..later
        };
        assert_eq!(level_steps(small), expand_only);
        // 2048 vertices of 64 edges (2^17 edges, 256 workgroups): 2^19
        // degree loads, more than the repeated-scan limit.
        let heavy = LevelFacts {
            band_max_frontier_edges: 1 << 17,
            min_out_degree: 64,
            ..later
        };
        assert_eq!(level_steps(heavy), scan_then_expand());
        // A graph with isolated vertices bounds nothing by edges.
        let sinks = LevelFacts {
            min_out_degree: 0,
            ..banded
        };
        assert_eq!(level_steps(sinks), scan_then_expand());
    }

    #[test]
    fn hybrid_records_pieces_only_when_they_can_occur() {
        let light = facts(T::HybridFrontier, Kernel::Hybrid, true, 5, 32);
        assert_eq!(level_steps(light), vec![step(Kernel::Hybrid, Grid::Launch)]);
        let with_pieces = vec![
            step(Kernel::Hybrid, Grid::Launch),
            step(Kernel::HybridPieces, Grid::Device(32)),
        ];
        let heavy = facts(T::HybridFrontier, Kernel::Hybrid, false, 5, 33);
        assert_eq!(level_steps(heavy), with_pieces);
        // A later level of at most 1024 edges (min(PIECE_EDGES, 256 * 8))
        // gets no pieces; the first level's edges are unknown.
        let banded = LevelFacts {
            band_max_frontier_edges: 1024,
            ..heavy
        };
        assert_eq!(
            level_steps(banded),
            vec![step(Kernel::Hybrid, Grid::Launch)]
        );
        let banded_first = LevelFacts {
            first: true,
            ..banded
        };
        assert_eq!(level_steps(banded_first), with_pieces);
        let wider_band = LevelFacts {
            band_max_frontier_edges: 1025,
            ..heavy
        };
        assert_eq!(level_steps(wider_band), with_pieces);
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
