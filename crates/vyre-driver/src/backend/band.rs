//! The most workgroups a later level of a chain can use, within the band the
//! chain stops at.
//!
//! Backends dispatch every later level on [`LevelSizing::max_workgroups`]
//! and let the workgroups the rule does not give a level return at once, so
//! a cap far above what any level of the chain can use costs a surplus
//! launch per level (on software devices, which report no resident lanes, a
//! host thread's turn per workgroup).

use crate::megakernel_execution::MegakernelExecutionTopology;

use super::wave::{LaunchShape, LevelSizing};

/// What bounds the later levels of a chain.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct ChainBand {
    /// Out-edges of the chain's first frontier.
    pub first_frontier_edges: u64,
    /// Frontier out-edges above which a later level does not run.
    pub band_max_frontier_edges: u64,
    /// Frontier vertices above which a later level does not run.
    pub band_max_frontier_vertices: u32,
    /// Vertices of the graph.
    pub graph_vertices: u32,
    /// Stored edges of the graph.
    pub graph_edges: u64,
}

impl LevelSizing {
    /// This rule with its cap lowered to what the largest later level of a
    /// chain within `band` can use, at workgroups of `width`.
    ///
    /// Every vertex of a later level's frontier was discovered over an edge
    /// of the frontier before it (top-down from it, or bottom-up into it),
    /// so it has at most as many vertices as that frontier had out-edges:
    /// the first one's, or at most the band (a later level beyond it does
    /// not run), and at most the band's vertices; its own out-edges are
    /// within the band. The rule is monotone in both, so no level that runs
    /// gets another grid than under the uncapped rule.
    #[must_use]
    pub fn within_band(
        self,
        topology: MegakernelExecutionTopology,
        width: u32,
        band: &ChainBand,
    ) -> Self {
        let edges = band
            .band_max_frontier_edges
            .max(band.first_frontier_edges)
            .min(band.graph_edges);
        let vertices = u32::try_from(edges)
            .unwrap_or(u32::MAX)
            .min(band.band_max_frontier_vertices)
            .min(band.graph_vertices);
        Self {
            max_workgroups: self.workgroups(topology, width, vertices, edges, band.graph_vertices),
            ..self
        }
    }
}

impl LaunchShape {
    /// This launch with its later levels' rule capped within `band`
    /// ([`LevelSizing::within_band`]); a fused launch, whose grid is its
    /// first, as it is.
    #[must_use]
    pub fn later_within_band(
        self,
        topology: MegakernelExecutionTopology,
        band: &ChainBand,
    ) -> Self {
        if topology == MegakernelExecutionTopology::FusedWave {
            return self;
        }
        Self {
            later: self
                .later
                .within_band(topology, self.workgroup_size_x, band),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megakernel_execution::MegakernelExecutionTopology as T;

    fn rule(edges_per_lane: u32, max_workgroups: u32) -> LevelSizing {
        LevelSizing {
            edges_per_lane,
            max_workgroups,
        }
    }

    fn band(first_frontier_edges: u64, band_max_frontier_edges: u64) -> ChainBand {
        ChainBand {
            first_frontier_edges,
            band_max_frontier_edges,
            band_max_frontier_vertices: u32::MAX,
            graph_vertices: 1 << 20,
            graph_edges: 1 << 24,
        }
    }

    #[test]
    fn a_narrow_band_caps_the_later_grid_and_no_band_leaves_it() {
        let warp = T::WarpSparseFrontier;
        // Warp-sparse: 32 lanes a vertex, at most 1,000 vertices a level.
        let capped = rule(0, 65_535).within_band(warp, 256, &band(40, 1_000));
        assert_eq!(capped.max_workgroups, 1_000 * 32 / 256);
        // The first frontier's out-edges bound the second level's vertices.
        let first = rule(0, 65_535).within_band(warp, 256, &band(8_000, 1_000));
        assert_eq!(first.max_workgroups, 8_000 * 32 / 256);
        // Edge-balanced at 2 edges a lane: the band's edges decide.
        let sparse = rule(2, 65_535).within_band(T::SparseFrontier, 256, &band(40, 51_200));
        assert_eq!(sparse.max_workgroups, 51_200 / 256);
        // No band: the device's cap stands.
        let open = rule(0, 1_056).within_band(warp, 256, &band(40, u64::MAX));
        assert_eq!(open.max_workgroups, 1_056);
        // Dense levels have a lane per vertex of the graph whatever the band.
        let dense = rule(0, 65_535).within_band(T::DenseFrontier, 256, &band(40, 10));
        assert_eq!(dense.max_workgroups, (1 << 20) / 256);
        // A fused launch keeps its rule.
        let fused = LaunchShape {
            cluster: false,
            workgroup_size_x: 256,
            dispatch_grid: [4, 1, 1],
            slots_per_lane: 1,
            later: rule(0, 65_535),
        };
        assert_eq!(fused.later_within_band(T::FusedWave, &band(40, 10)), fused);
        let warp = fused.later_within_band(warp, &band(40, 1_000));
        assert_eq!(warp.later.max_workgroups, capped.max_workgroups);
    }

    #[test]
    fn every_level_inside_the_band_keeps_its_grid() {
        let uncapped = rule(2, 4_000);
        let n = 1 << 20;
        for topology in [T::WarpSparseFrontier, T::SparseFrontier, T::HybridFrontier] {
            let capped = uncapped.within_band(topology, 256, &band(500, 30_000));
            for (vertices, edges) in [(1, 1), (500, 3_000), (30_000, 30_000), (7, 30_000)] {
                assert_eq!(
                    capped.workgroups(topology, 256, vertices, edges, n),
                    uncapped.workgroups(topology, 256, vertices, edges, n),
                    "{topology:?} {vertices} {edges}"
                );
            }
        }
    }

    #[test]
    fn a_band_of_vertices_caps_the_later_grid_of_vertex_sized_levels() {
        let banded = ChainBand {
            band_max_frontier_vertices: 3_000,
            ..band(40_000, 100_000)
        };
        // Warp-sparse: 3,000 vertices of 32 lanes, not the 40,000 the edges
        // would allow.
        let warp = rule(0, 65_535).within_band(T::WarpSparseFrontier, 256, &banded);
        assert_eq!(warp.max_workgroups, 3_000 * 32 / 256);
        // Edge-balanced levels are sized by their edges as well.
        let sparse = rule(1, 65_535).within_band(T::SparseFrontier, 256, &banded);
        assert_eq!(sparse.max_workgroups, 100_000_u32.div_ceil(256));
        // Every level the band admits keeps its uncapped grid.
        for vertices in [1, 2_999, 3_000] {
            assert_eq!(
                warp.workgroups(T::WarpSparseFrontier, 256, vertices, 12_000, 1 << 20),
                rule(0, 65_535).workgroups(T::WarpSparseFrontier, 256, vertices, 12_000, 1 << 20)
            );
        }
    }
}
