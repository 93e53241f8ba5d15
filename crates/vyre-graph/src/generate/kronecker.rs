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
///   removed, so fewer are stored: undirected with the defaults, about 0.96
///   × 2 × that many at scale 22 (128.3 M stored of 2 × 67.1 M generated);
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

/// Everything an edge needs: the quadrant table and the relabelling.
struct KroneckerEdges {
    scale: u32,
    edges: u64,
    seed: u64,
    /// Two levels of quadrant choices per 16 random bits: entry `r` holds
    /// the row bits (bits 0-1) and column bits (bits 2-3) of the outcome
    /// whose cumulative joint probability interval (in 1/65536 units)
    /// contains `r`. Joint probabilities are thus exact to 1/65536.
    table: Vec<u8>,
    relabel: Relabel,
}

/// The two-level quadrant table for quadrant probabilities `[a, b, c, d]`.
fn quadrant_table(p: [f64; 4]) -> Vec<u8> {
    // Quadrant q sets row bit q >> 1 and column bit q & 1 (a, b, c, d =
    // none, column, row, both).
    let mut table = Vec::with_capacity(1 << 16);
    let mut cumulative = 0.0;
    for first in 0..4usize {
        for second in 0..4usize {
            cumulative += p[first] * p[second];
            let upto = ((cumulative * 65_536.0).round() as usize).min(1 << 16);
            let row = (first >> 1) | ((second >> 1) << 1);
            let column = (first & 1) | ((second & 1) << 1);
            let entry = (row | (column << 2)) as u8;
            table.resize(upto.max(table.len()), entry);
        }
    }
    // Rounding may leave the last cell short; it belongs to the last outcome.
    table.resize(1 << 16, 0b1111);
    table
}

impl KroneckerEdges {
    fn edge(&self, index: u64) -> (u32, u32) {
        let (u, v) = self.unlabelled_edge(index);
        (self.relabel.apply(u) as u32, self.relabel.apply(v) as u32)
    }

    /// Edge `index` before relabelling.
    fn unlabelled_edge(&self, index: u64) -> (u64, u64) {
        let mut rng = SplitMix::stream(self.seed, index);
        let (mut u, mut v) = (0u64, 0u64);
        let mut bits = 0u64;
        let mut level = 0;
        while level < self.scale {
            // Four table lookups (eight levels) per 64 random bits.
            if level % 8 == 0 {
                bits = rng.next_u64();
            }
            let entry = self.table[(bits & 0xFFFF) as usize];
            bits >>= 16;
            u |= u64::from(entry & 3) << level;
            v |= u64::from(entry >> 2) << level;
            level += 2;
        }
        // An odd scale drew one level too many.
        let mask = (1u64 << self.scale) - 1;
        (u & mask, v & mask)
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
    let edges = KroneckerEdges {
        scale: spec.scale,
        edges: u64::from(spec.edge_factor) << spec.scale,
        seed: spec.seed,
        table: quadrant_table([
            spec.a,
            spec.b,
            spec.c,
            (1.0 - spec.a - spec.b - spec.c).max(0.0),
        ]),
        relabel: Relabel::new(spec.scale, spec.seed),
    };
    let options = if spec.directed {
        BuildOptions::DIRECTED
    } else {
        BuildOptions::UNDIRECTED
    };
    build_graph_from(n, &edges, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quadrant_table_holds_the_joint_probabilities() {
        let p = [0.57, 0.19, 0.19, 0.05];
        let table = quadrant_table(p);
        assert_eq!(table.len(), 1 << 16);
        for first in 0..4 {
            for second in 0..4 {
                let row = (first >> 1) | ((second >> 1) << 1);
                let column = (first & 1) | ((second & 1) << 1);
                let entry = (row | (column << 2)) as u8;
                let share = table.iter().filter(|&&e| e == entry).count() as f64 / 65_536.0;
                let expected = p[first] * p[second];
                assert!(
                    (share - expected).abs() <= 1.0 / 65_536.0,
                    "{first},{second}: {share} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn row_and_column_bits_have_graph500_marginals() {
        // P(row bit) = c + d = 0.24, P(column bit) = b + d = 0.24, per level.
        let edges = KroneckerEdges {
            scale: 9,
            edges: 0,
            seed: 4,
            table: quadrant_table([0.57, 0.19, 0.19, 0.05]),
            relabel: Relabel::new(0, 0),
        };
        let samples = 40_000;
        let mut ones = [[0u32; 9]; 2];
        for i in 0..samples {
            let (u, v) = edges.unlabelled_edge(i);
            let [rows, columns] = &mut ones;
            for (l, (row, column)) in rows.iter_mut().zip(columns.iter_mut()).enumerate() {
                *row += ((u >> l) & 1) as u32;
                *column += ((v >> l) & 1) as u32;
            }
        }
        for side in ones {
            for count in side {
                let share = f64::from(count) / samples as f64;
                assert!((share - 0.24).abs() < 0.01, "{share}");
            }
        }
    }
}
