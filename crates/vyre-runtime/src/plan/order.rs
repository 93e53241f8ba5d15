//! How the engine numbers a graph's vertices on the device.
//!
//! Bottom-up levels end their look for a parent sooner when each row lists
//! its highest-degree neighbours first (`vyre_graph::relabel`), which pays
//! on skewed (power-law) graphs. Grids, road networks and meshes, whose
//! locality a degree order would destroy, are searched as thousands of thin
//! wavefronts instead: numbered by breadth, each level's vertices are runs
//! of consecutive ids, so a level touches fewer cache lines (measured on an
//! H100: 10% off a level of the 3000 x 3000 grid searched from its corner,
//! about 1% from inner sources, 2-3% on a smaller grid and a road network;
//! docs/BENCHMARKS.md). The relabelling is construction work,
//! timed apart from searches.

use vyre_graph::Graph;
use vyre_graph::relabel::top_degree_share;

/// Below this many vertices the graph stays in cache either way.
pub const RELABEL_MIN_VERTICES: u32 = 1 << 16;
/// The fraction of highest-degree vertices whose share of the edges
/// measures skew.
pub const RELABEL_TOP_FRACTION: f64 = 0.01;
/// Share of edge endpoints the top [`RELABEL_TOP_FRACTION`] must hold for
/// a graph to count as skewed: about 0.01-0.03 on grids, roads and uniform
/// random graphs, above 0.4 on Graph500 Kronecker graphs.
pub const RELABEL_MIN_TOP_SHARE: f64 = 0.25;
/// Stored edges per vertex at or below which a graph that is not skewed is
/// numbered by breadth: about 4 on grids, 2-3 on road networks and meshes,
/// whose searches are thin wavefronts; 32 on a uniform random graph of
/// Graph500's edge factor, which reaches most vertices in a few wide levels
/// and keeps its ids.
pub const BREADTH_MAX_MEAN_DEGREE: f64 = 8.0;

/// How a loaded graph's vertices are numbered on the device.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum VertexOrder {
    /// By degree when the graph is large and skewed, by breadth when it is
    /// large, not skewed and sparse, else as given (see the constants).
    #[default]
    Auto,
    /// As the caller numbered them.
    AsGiven,
    /// By degree, highest first, whatever the graph.
    ByDegree,
    /// Level by level of a breadth-first walk from a peripheral vertex of
    /// each component, whatever the graph.
    ByBreadth,
}

/// The numbering a load gives a graph's vertices on the device.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Numbering {
    /// The caller's ids.
    AsGiven,
    /// By degree, highest first (`vyre_graph::relabel::relabel_by_degree`).
    ByDegree,
    /// By breadth (`vyre_graph::relabel::relabel_by_breadth`).
    ByBreadth,
}

/// The order chosen for a graph and why.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderDecision {
    /// How the vertices are numbered on the device.
    pub numbering: Numbering,
    /// In words, for traces.
    pub reason: String,
}

impl VertexOrder {
    /// Every order, in the order command lines list them.
    pub const ALL: [Self; 4] = [Self::Auto, Self::ByDegree, Self::ByBreadth, Self::AsGiven];

    /// Its name on command lines and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::AsGiven => "as-given",
            Self::ByDegree => "by-degree",
            Self::ByBreadth => "by-breadth",
        }
    }
}

impl From<Numbering> for VertexOrder {
    /// The order that asks for `numbering` whatever the graph.
    fn from(numbering: Numbering) -> Self {
        match numbering {
            Numbering::AsGiven => Self::AsGiven,
            Numbering::ByDegree => Self::ByDegree,
            Numbering::ByBreadth => Self::ByBreadth,
        }
    }
}

impl Numbering {
    /// Its name in reports: that of the [`VertexOrder`] that asks for it.
    #[must_use]
    pub fn name(self) -> &'static str {
        VertexOrder::from(self).name()
    }
}

/// The order `requested` gives `graph`.
#[must_use]
pub fn choose_order(graph: &Graph, requested: VertexOrder) -> OrderDecision {
    let decided = |numbering: Numbering, reason: String| OrderDecision { numbering, reason };
    match requested {
        VertexOrder::AsGiven => decided(Numbering::AsGiven, "as given (requested)".into()),
        VertexOrder::ByDegree => decided(Numbering::ByDegree, "by degree (requested)".into()),
        VertexOrder::ByBreadth => decided(Numbering::ByBreadth, "by breadth (requested)".into()),
        VertexOrder::Auto if graph.vertex_count() < RELABEL_MIN_VERTICES => decided(
            Numbering::AsGiven,
            format!(
                "as given: fewer than {RELABEL_MIN_VERTICES} vertices stay in cache either way"
            ),
        ),
        VertexOrder::Auto => {
            let share = top_degree_share(graph, RELABEL_TOP_FRACTION);
            let skew = format!(
                "the top {}% of vertices hold {:.0}% of edge endpoints; the threshold is {:.0}%",
                RELABEL_TOP_FRACTION * 100.0,
                share * 100.0,
                RELABEL_MIN_TOP_SHARE * 100.0
            );
            if share >= RELABEL_MIN_TOP_SHARE {
                return decided(Numbering::ByDegree, format!("by degree: skewed ({skew})"));
            }
            let mean = graph.edge_count() as f64 / f64::from(graph.vertex_count());
            let sparse = format!(
                "{mean:.1} stored edges a vertex; by breadth at most {BREADTH_MAX_MEAN_DEGREE}"
            );
            if mean <= BREADTH_MAX_MEAN_DEGREE {
                decided(
                    Numbering::ByBreadth,
                    format!("by breadth: not skewed ({skew}) and sparse ({sparse})"),
                )
            } else {
                decided(
                    Numbering::AsGiven,
                    format!("as given: not skewed ({skew}) but dense ({sparse})"),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use vyre_graph::generate::{
        KroneckerSpec, UniformSpec, grid_2d, kronecker, star, uniform_random,
    };

    use super::*;

    #[test]
    fn large_skewed_graphs_are_relabelled_and_the_rest_keep_their_ids() {
        let kron = kronecker(KroneckerSpec {
            scale: 16,
            ..KroneckerSpec::default()
        })
        .unwrap();
        let auto = choose_order(&kron, VertexOrder::Auto);
        assert_eq!(auto.numbering, Numbering::ByDegree, "{}", auto.reason);
        let given = choose_order(&kron, VertexOrder::AsGiven);
        assert_eq!(given.numbering, Numbering::AsGiven);

        let grid = grid_2d(300, 300).unwrap();
        let auto = choose_order(&grid, VertexOrder::Auto);
        assert_eq!(auto.numbering, Numbering::ByBreadth, "{}", auto.reason);
        assert!(auto.reason.contains("not skewed"), "{}", auto.reason);
        assert!(auto.reason.contains("4.0 stored edges"), "{}", auto.reason);
        assert_eq!(
            choose_order(&grid, VertexOrder::AsGiven).numbering,
            Numbering::AsGiven
        );

        // Not skewed, but 32 stored edges a vertex.
        let uniform = UniformSpec::with_scale(16, 16, 7)
            .and_then(uniform_random)
            .unwrap();
        let auto = choose_order(&uniform, VertexOrder::Auto);
        assert_eq!(auto.numbering, Numbering::AsGiven, "{}", auto.reason);
        assert!(auto.reason.contains("dense"), "{}", auto.reason);
        let by_degree = choose_order(&grid, VertexOrder::ByDegree);
        assert_eq!(by_degree.numbering, Numbering::ByDegree);
        let by_breadth = choose_order(&grid, VertexOrder::ByBreadth);
        assert_eq!(by_breadth.numbering, Numbering::ByBreadth);

        // The order named after a numbering asks for it.
        for numbering in [
            Numbering::AsGiven,
            Numbering::ByDegree,
            Numbering::ByBreadth,
        ] {
            let order = VertexOrder::from(numbering);
            assert_eq!(choose_order(&grid, order).numbering, numbering);
            assert_eq!(numbering.name(), order.name());
        }

        // Skewed but small.
        let small = star(1000).unwrap();
        assert_eq!(
            choose_order(&small, VertexOrder::Auto).numbering,
            Numbering::AsGiven
        );
        assert_eq!(
            choose_order(&small, VertexOrder::ByDegree).numbering,
            Numbering::ByDegree
        );
    }
}
