//! Graph500 / GAP Kronecker (R-MAT) graphs.

use std::ops::Range;

use super::rng::{Relabel, SplitMix};
use crate::build::{BuildOptions, EdgeSource, build_graph_from};
use crate::{Graph, GraphError};

/// A Kronecker graph request. Build one with struct update syntax:
/// `KroneckerSpec { scale: 20, seed: 7, ..KroneckerSpec::default() }`.
///
/// Properties of the result:
/// - `2^scale` vertices, ids relabelled by a seeded bijection (so vertex 0
///   is not the hub);
/// - `edge_factor * 2^scale` edges generated; self-loops and duplicates are
///   removed, so fewer are stored (about 2 × 0.9 × that many when undirected
///   at scale 16..26 with the defaults);
/// - a heavy-tailed degree distribution: a few hubs of very high degree and
///   many vertices of degree 0;
/// - the same spec gives the same graph on every machine and thread count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KroneckerSpec {
    /// log2 of the vertex count, at most 31.
    pub scale: u32,
    /// Generated edges per vertex (Graph500: 16).
    pub edge_factor: u32,
    /// Seed of the edge and relabelling randomness.
    pub seed: u64,
    /// Probability of the top-left quadrant at each level (Graph500: 0.57).
    pub a: f64,
    /// Probability of the top-right quadrant (Graph500: 0.19).
    pub b: f64,
    /// Probability of the bottom-left quadrant (Graph500: 0.19); the
    /// bottom-right gets `1 - a - b - c`.
    pub c: f64,
    /// Keep edges directed (with a reverse CSR) instead of symmetrizing.
    pub directed: bool,
}

impl Default for KroneckerSpec {
    fn default() -> Self {
        Self {
            scale: 16,
            edge_factor: 16,
            seed: 1,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            directed: false,
        }
    }
}

/// Quadrant thresholds out of 2^32 and the relabelling: all an edge needs.
struct KroneckerEdges {
    scale: u32,
    edges: u64,
    seed: u64,
    thresholds: [u64; 3],
    relabel: Relabel,
}

impl KroneckerEdges {
    fn edge(&self, index: u64) -> (u32, u32) {
        let mut rng = SplitMix::stream(self.seed, index);
        let [ta, tab, tabc] = self.thresholds;
        let (mut u, mut v) = (0u64, 0u64);
        let mut bits = 0u64;
        for level in 0..self.scale {
            if level % 2 == 0 {
                bits = rng.next_u64();
            }
            let x = bits & 0xFFFF_FFFF;
            bits >>= 32;
            // Quadrants: [0,a) none, [a,a+b) column, [a+b,a+b+c) row, rest both.
            let (past_a, past_ab, past_abc) = (x >= ta, x >= tab, x >= tabc);
            u |= u64::from(past_ab) << level;
            v |= u64::from((past_a && !past_ab) || past_abc) << level;
        }
        (self.relabel.apply(u) as u32, self.relabel.apply(v) as u32)
    }
}

impl EdgeSource for KroneckerEdges {
    fn edge_count(&self) -> u64 {
        self.edges
    }

    fn for_each_in(&self, range: Range<u64>, mut visit: impl FnMut(u32, u32)) {
        for i in range {
            let (u, v) = self.edge(i);
            visit(u, v);
        }
    }
}

fn check_probabilities(a: f64, b: f64, c: f64) -> Result<(), GraphError> {
    let ok = [a, b, c].iter().all(|p| p.is_finite() && *p >= 0.0) && a + b + c <= 1.0 + 1e-12;
    if ok {
        Ok(())
    } else {
        Err(GraphError::parameter(
            format!(
                "Kronecker probabilities a={a}, b={b}, c={c} are not probabilities summing to at most 1"
            ),
            "use values in [0, 1] with a + b + c <= 1 (Graph500: 0.57, 0.19, 0.19)",
        ))
    }
}

/// Check a scale against u32 ids.
pub(crate) fn check_scale(scale: u32) -> Result<u32, GraphError> {
    if scale > 31 {
        return Err(GraphError::parameter(
            format!("scale {scale} asks for 2^{scale} vertices, more than u32 ids hold"),
            "use a scale of at most 31",
        ));
    }
    Ok(1u32 << scale)
}

/// Generate a Kronecker graph (see [`KroneckerSpec`] for its properties).
/// Edges are recomputed, never stored, so the build's memory is the CSR's.
///
/// # Errors
///
/// [`GraphError::InvalidParameter`] for a scale above 31 or bad
/// probabilities; [`GraphError::TooLarge`] when the edges cannot be held.
pub fn kronecker(spec: KroneckerSpec) -> Result<Graph, GraphError> {
    let n = check_scale(spec.scale)?;
    check_probabilities(spec.a, spec.b, spec.c)?;
    let scaled = |p: f64| (p * 4_294_967_296.0).round() as u64;
    let edges = KroneckerEdges {
        scale: spec.scale,
        edges: u64::from(spec.edge_factor) << spec.scale,
        seed: spec.seed,
        thresholds: [
            scaled(spec.a),
            scaled(spec.a + spec.b),
            scaled(spec.a + spec.b + spec.c),
        ],
        relabel: Relabel::new(spec.scale, spec.seed),
    };
    let options = if spec.directed {
        BuildOptions::DIRECTED
    } else {
        BuildOptions::UNDIRECTED
    };
    build_graph_from(n, &edges, options)
}
