//! Uniform random (Erdős–Rényi style) graphs.

use std::ops::Range;

use super::rng::SplitMix;
use crate::build::{BuildOptions, EdgeSource, build_graph_from};
use crate::{Graph, GraphError};

/// A uniform random graph request: `edge_count` edges whose endpoints are
/// drawn independently and uniformly from `0..vertex_count`.
///
/// Properties: self-loops and duplicates are removed, so slightly fewer edges
/// are stored; degrees are close to Poisson (no hubs); with average degree
/// well above `ln(vertex_count)` the graph is connected with high
/// probability. Deterministic by seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniformSpec {
    /// Number of vertices.
    pub vertex_count: u32,
    /// Number of edges generated before removing loops and duplicates.
    pub edge_count: u64,
    /// Seed of the endpoint randomness.
    pub seed: u64,
    /// Keep edges directed (with a reverse CSR) instead of symmetrizing.
    pub directed: bool,
}

impl UniformSpec {
    /// GAP's `urand` shape: `2^scale` vertices, `edge_factor * 2^scale` edges.
    ///
    /// # Errors
    ///
    /// [`GraphError::InvalidParameter`] for a scale above 31.
    pub fn with_scale(scale: u32, edge_factor: u32, seed: u64) -> Result<Self, GraphError> {
        let vertex_count = super::kronecker::check_scale(scale)?;
        Ok(Self {
            vertex_count,
            edge_count: u64::from(edge_factor) << scale,
            seed,
            directed: false,
        })
    }
}

struct UniformEdges(UniformSpec);

impl EdgeSource for UniformEdges {
    fn edge_count(&self) -> u64 {
        self.0.edge_count
    }

    fn for_each_in(&self, range: Range<u64>, mut visit: impl FnMut(u32, u32)) {
        let n = self.0.vertex_count;
        for i in range {
            let mut rng = SplitMix::stream(self.0.seed, i);
            let (u, v) = (rng.below(n), rng.below(n));
            visit(u, v);
        }
    }
}

/// Generate a uniform random graph (see [`UniformSpec`]).
///
/// # Errors
///
/// [`GraphError::InvalidParameter`] when edges are asked of zero vertices;
/// [`GraphError::TooLarge`] when the edges cannot be held.
pub fn uniform_random(spec: UniformSpec) -> Result<Graph, GraphError> {
    if spec.vertex_count == 0 && spec.edge_count > 0 {
        return Err(GraphError::parameter(
            format!(
                "{} edges were asked of a graph with no vertices",
                spec.edge_count
            ),
            "give vertex_count >= 1 or edge_count = 0",
        ));
    }
    let options = if spec.directed {
        BuildOptions::DIRECTED
    } else {
        BuildOptions::UNDIRECTED
    };
    build_graph_from(spec.vertex_count, &UniformEdges(spec), options)
}
