//! The kernels one level of each topology records, and the frontier
//! conversion a command starts with. A level's kernels run on the level's
//! grid: the command's launch grid on its first level, the grid the
//! engine's rule gives on later ones (applied on the device, `chain.wgsl`).
//! The conversion runs on its own (`WaveCommand::conversion_workgroups`).

use vyre_driver::backend::{
    BackendError, FrontierForm, LevelSizing, WORK_PIECE_EDGES, WaveCommand, frontier_form_of,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::{Csr, Graph};

use crate::control::{C_IN_EDGE_END, command_words};
use crate::kernels::Kernel;
use crate::overrides::{LIGHT_DEGREE, MID_ROUNDS, REPEATED_SCAN_LOADS, SCAN_CAP};

/// What the host knows of a graph that decides which dispatches a level
/// records.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct GraphFacts {
    /// Vertices of the graph.
    pub vertex_count: u32,
    /// Stored edges of the graph.
    pub edge_count: u64,
    /// Largest out-degree: Hybrid levels need their piece dispatch (and a
    /// fused launch its first frontier's pieces) only when a vertex is not
    /// light.
    pub max_out_degree: u64,
    /// Least out-degree: with it a later level's frontier is bounded by its
    /// out-edges.
    pub min_out_degree: u64,
    /// One past the last vertex with an in-edge: bottom-up levels stop
    /// there ([`crate::control::C_IN_EDGE_END`]).
    pub in_edge_end: u32,
}

fn degrees(csr: &Csr) -> impl Iterator<Item = u64> + '_ {
    csr.offsets().windows(2).map(|w| w[1] - w[0])
}

impl GraphFacts {
    /// The facts of `graph`.
    #[must_use]
    pub fn of(graph: &Graph) -> Self {
        let out = graph.out_edges();
        Self {
            vertex_count: graph.vertex_count(),
            edge_count: graph.edge_count(),
            max_out_degree: degrees(out).max().unwrap_or(0),
            min_out_degree: degrees(out).min().unwrap_or(0),
            in_edge_end: graph.in_edges().rows_end(),
        }
    }

    /// Whether a vertex has more than [`LIGHT_DEGREE`] out-edges.
    #[must_use]
    pub fn has_heavy_vertices(&self) -> bool {
        self.max_out_degree > u64::from(LIGHT_DEGREE)
    }
}

/// What the host knows about a level when it records it.
#[derive(Clone, Copy, Debug)]
pub struct LevelFacts {
    /// The command's topology.
    pub topology: T,
    /// The level kernel of `topology`.
    pub kernel: Kernel,
    /// Whether this is the command's first level, whose frontier and grid
    /// the host knows.
    pub first: bool,
    /// Vertices of the first level's frontier.
    pub frontier_len: u32,
    /// Out-edges of the first level's frontier.
    pub frontier_edges: u64,
    /// Workgroups of the first level (its launch grid).
    pub first_groups: u64,
    /// Workgroup width of the level kernels.
    pub width: u32,
    /// How later levels are sized.
    pub later: LevelSizing,
    /// The graph.
    pub graph: GraphFacts,
    /// Most frontier out-edges a later level runs with (the command's band).
    pub band_max_frontier_edges: u64,
}

/// Whether every workgroup of a Sparse level of `count` vertices and
/// `edges` out-edges on `groups` workgroups would load more degrees scanning
/// the whole frontier itself than `REPEATED_SCAN_LOADS` and than the level
/// has edges (`sparse_chunk` in `sparse.wgsl`, where the scan is recorded).
fn repeated_scan_costs(count: u64, edges: u64, groups: u64) -> bool {
    let loads = count.saturating_mul(groups);
    loads > REPEATED_SCAN_LOADS && loads > edges
}

impl LevelFacts {
    /// Whether to record Sparse's chunk scan. The device scans in chunks
    /// beyond [`SCAN_CAP`] vertices whatever is recorded, so the host
    /// records the scan wherever that can happen; below, the device chunks
    /// only where the scan is recorded. The first level's frontier and grid
    /// are known; a later level's vertices are bounded by the graph, and by
    /// its out-edges (at most the band) over the least degree, and its grid
    /// by the engine's rule for those bounds.
    fn sparse_records_scan(&self) -> bool {
        if self.first {
            let count = u64::from(self.frontier_len);
            return count > u64::from(SCAN_CAP)
                || repeated_scan_costs(count, self.frontier_edges, self.first_groups);
        }
        let graph = &self.graph;
        let edges = self.band_max_frontier_edges.min(graph.edge_count);
        let by_edges = edges.checked_div(graph.min_out_degree).unwrap_or(u64::MAX);
        let count = u32::try_from(by_edges.min(u64::from(graph.vertex_count))).unwrap_or(u32::MAX);
        let groups =
            self.later
                .workgroups(self.topology, self.width, count, edges, graph.vertex_count);
        count > SCAN_CAP || repeated_scan_costs(u64::from(count), 0, u64::from(groups))
    }

    /// Whether this Hybrid level may produce pieces: never without a vertex
    /// above [`LIGHT_DEGREE`] out-edges, nor on a later level whose
    /// band keeps its out-edges within one chunk's mid-degree budget.
    fn hybrid_may_piece(&self) -> bool {
        let budget = WORK_PIECE_EDGES.min(u64::from(self.width) * u64::from(MID_ROUNDS));
        self.graph.has_heavy_vertices() && (self.first || self.band_max_frontier_edges > budget)
    }
}

/// The kernels of one level, in order. Sparse records its chunk scan, and
/// Hybrid its piece dispatch, only where the level can need it: a recorded
/// dispatch that does nothing still costs a barrier and the host's encoding.
#[must_use]
pub fn level_steps(facts: LevelFacts) -> Vec<Kernel> {
    match facts.topology {
        T::SparseFrontier if facts.sparse_records_scan() => {
            vec![Kernel::SparseScan, facts.kernel]
        }
        T::HybridFrontier if facts.hybrid_may_piece() => {
            vec![facts.kernel, Kernel::HybridPieces]
        }
        T::DenseFrontier => vec![Kernel::DenseClearNext, facts.kernel],
        _ => vec![facts.kernel],
    }
}

/// Everything a per-wave command records: the frontier conversion into the
/// buffer the position names, the dispatches of its first level and of
/// every later one, and the command words they read.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct CommandPlan {
    /// Conversion before the first level, on its own grid
    /// (`WaveCommand::conversion_workgroups`).
    pub conversion: Option<Kernel>,
    /// Dispatches of the first level.
    pub first: Vec<Kernel>,
    /// Dispatches of every later level (none for a one-level command).
    pub later: Vec<Kernel>,
    /// The grid every later level is dispatched on: the most workgroups
    /// one may use (`LevelSizing::max_workgroups`), in one dimension. Its
    /// workgroups apply the engine's rule and the surplus return at once
    /// (`chain.wgsl`), so no level writes another's dispatch arguments.
    pub later_grid: [u32; 3],
    /// The 16 command words.
    pub words: [u32; crate::control::COMMAND_WORDS],
}

/// The conversion a command of `topology` needs from a frontier held in
/// `form`.
#[must_use]
pub fn conversion(form: FrontierForm, topology: T) -> Option<Kernel> {
    match (form, frontier_form_of(topology)) {
        (FrontierForm::Queue, FrontierForm::Bitmap) => Some(Kernel::QueueToBitmap),
        (FrontierForm::Bitmap, FrontierForm::Queue) => Some(Kernel::BitmapToQueue),
        _ => None,
    }
}

/// The grid every later level of `command` is dispatched on
/// ([`CommandPlan::later_grid`]).
#[must_use]
pub fn later_grid(command: &WaveCommand) -> [u32; 3] {
    [command.launch.later.max_workgroups.max(1), 1, 1]
}

impl CommandPlan {
    /// The plan of a checked per-wave `command` on `graph`.
    ///
    /// # Errors
    ///
    /// A `Device` error for a `FusedWave` command, which a backend runs
    /// with [`Kernel::Fused`] instead (a checked command reaching here is a
    /// bug, reported as one).
    pub fn of(command: &WaveCommand, graph: GraphFacts) -> Result<Self, BackendError> {
        let kernel = Kernel::for_topology(command.topology).ok_or_else(|| {
            BackendError::device(format!(
                "a {:?} command reached the per-wave recording. Fix: this is a bug in the backend; report it.",
                command.topology
            ))
        })?;
        let position = &command.position;
        let facts = LevelFacts {
            topology: command.topology,
            kernel,
            first: true,
            frontier_len: position.frontier_len,
            frontier_edges: position.frontier_edges,
            first_groups: command.launch.workgroups(),
            width: command.launch.workgroup_size_x,
            later: command.launch.later,
            graph,
            band_max_frontier_edges: command.band_max_frontier_edges,
        };
        let first = level_steps(facts);
        let later = if command.max_levels > 1 {
            level_steps(LevelFacts {
                first: false,
                ..facts
            })
        } else {
            Vec::new()
        };
        let scans = |steps: &[Kernel]| steps.contains(&Kernel::SparseScan);
        let mut words = command_words(command, scans(&first), scans(&later));
        words[C_IN_EDGE_END] = graph.in_edge_end;
        Ok(Self {
            conversion: conversion(position.form, command.topology),
            first,
            later,
            later_grid: later_grid(command),
            words,
        })
    }
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::EDGES_PER_LANE;

    use super::*;

    /// Facts of a level of width 256 on a graph of a million vertices and
    /// 16 million edges of out-degree 1 to `degree`, with no band.
    fn facts(topology: T, kernel: Kernel, first: bool, len: u32, degree: u64) -> LevelFacts {
        LevelFacts {
            topology,
            kernel,
            first,
            frontier_len: len,
            frontier_edges: u64::from(len) * degree,
            first_groups: u64::from(len).div_ceil(256),
            width: 256,
            later: LevelSizing {
                edges_per_lane: EDGES_PER_LANE,
                max_workgroups: 65_535,
            },
            graph: GraphFacts {
                max_out_degree: degree,
                min_out_degree: 1,
                vertex_count: 1 << 20,
                edge_count: 1 << 24,
                in_edge_end: 1 << 20,
            },
            band_max_frontier_edges: u64::MAX,
        }
    }

    const SPARSE: Kernel = Kernel::Sparse;

    #[test]
    fn first_sparse_levels_record_the_scan_exactly_when_the_device_may_use_it() {
        let one = vec![SPARSE];
        let both = vec![Kernel::SparseScan, SPARSE];
        // 2048 vertices on 8 workgroups: 16,384 loads, one dispatch.
        let small = facts(T::SparseFrontier, SPARSE, true, 2048, 9);
        assert_eq!(level_steps(small), one);
        // 2049 vertices cannot be scanned by one workgroup.
        let long = facts(T::SparseFrontier, SPARSE, true, 2049, 9);
        assert_eq!(level_steps(long), both);
        // 1000 vertices on 300 workgroups: 300,000 loads, more than 2^18
        // and than their 200,000 edges; not with 400,000 edges.
        let wide = LevelFacts {
            frontier_len: 1000,
            frontier_edges: 200_000,
            first_groups: 300,
            ..small
        };
        assert_eq!(level_steps(wide), both);
        let heavy = LevelFacts {
            frontier_edges: 400_000,
            ..wide
        };
        assert_eq!(level_steps(heavy), one);
    }

    #[test]
    fn later_sparse_levels_record_the_scan_unless_a_band_or_the_graph_bounds_them() {
        let one = vec![SPARSE];
        let both = vec![Kernel::SparseScan, SPARSE];
        let later = facts(T::SparseFrontier, SPARSE, false, 1, 9);
        assert_eq!(level_steps(later), both);
        // 1024 edges of degree-1 vertices at most: 1024 vertices on 4
        // workgroups, 4096 loads.
        let banded = LevelFacts {
            band_max_frontier_edges: 1024,
            ..later
        };
        assert_eq!(level_steps(banded), one);
        // 512 vertices and 512 edges at most.
        let small = LevelFacts {
            graph: GraphFacts {
                vertex_count: 512,
                edge_count: 512,
                ..later.graph
            },
            ..later
        };
        assert_eq!(level_steps(small), one);
        // 2048 vertices of 64 edges (2^17 edges, 128 workgroups): 2^18
        // loads, the limit; twice the edges exceed it.
        let heavy = LevelFacts {
            band_max_frontier_edges: 1 << 17,
            graph: GraphFacts {
                min_out_degree: 64,
                ..later.graph
            },
            ..later
        };
        assert_eq!(level_steps(heavy), one);
        let heavier = LevelFacts {
            band_max_frontier_edges: 1 << 18,
            graph: GraphFacts {
                min_out_degree: 128,
                ..heavy.graph
            },
            ..heavy
        };
        assert_eq!(level_steps(heavier), both);
        // A graph with isolated vertices bounds nothing by edges.
        let sinks = LevelFacts {
            graph: GraphFacts {
                min_out_degree: 0,
                ..banded.graph
            },
            ..banded
        };
        assert_eq!(level_steps(sinks), both);
    }

    #[test]
    fn hybrid_records_pieces_only_when_they_can_occur() {
        let light = facts(T::HybridFrontier, Kernel::Hybrid, true, 5, 32);
        assert_eq!(level_steps(light), vec![Kernel::Hybrid]);
        let with_pieces = vec![Kernel::Hybrid, Kernel::HybridPieces];
        let heavy = facts(T::HybridFrontier, Kernel::Hybrid, false, 5, 33);
        assert_eq!(level_steps(heavy), with_pieces);
        // A later level of at most 1024 edges (min(PIECE_EDGES, 256 * 8))
        // gets no pieces; the first level may have any frontier.
        let banded = LevelFacts {
            band_max_frontier_edges: 1024,
            ..heavy
        };
        assert_eq!(level_steps(banded), vec![Kernel::Hybrid]);
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
            vec![Kernel::DenseClearNext, Kernel::Dense]
        );
        for (topology, kernel) in [
            (T::WarpSparseFrontier, Kernel::WarpSparse),
            (T::BlockDenseFrontier, Kernel::BlockDense),
        ] {
            let f = facts(topology, kernel, false, 5, 1 << 20);
            assert_eq!(level_steps(f), vec![kernel]);
        }
    }

    #[test]
    fn per_wave_plans_carry_where_bottom_up_levels_stop() {
        // Vertices 3, 4 and 5 have no edges: bottom-up stops at 3.
        let graph = vyre_graph::build::build_graph(
            6,
            &[(0, 1), (1, 2)],
            vyre_graph::build::BuildOptions::UNDIRECTED,
        )
        .unwrap();
        let facts = GraphFacts::of(&graph);
        assert_eq!(facts.in_edge_end, 3);
        for topology in [T::DenseFrontier, T::BlockDenseFrontier, T::SparseFrontier] {
            let command = crate::fused::tests::command(topology, FrontierForm::Bitmap);
            let plan = CommandPlan::of(&command, facts).unwrap();
            assert_eq!(plan.words[crate::control::C_IN_EDGE_END], 3, "{topology:?}");
        }
    }
}
