//! Compressed sparse rows: the one graph layout every backend uploads.

use crate::GraphError;
use crate::error::CsrDefect;

/// A graph's out-edges in compressed sparse row form.
///
/// `offsets` has `vertex_count + 1` entries, starts at 0, never decreases and
/// ends at `targets.len()`; the out-neighbours of `v` are
/// `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl Csr {
    /// Wrap existing arrays after checking that they form a valid CSR.
    ///
    /// # Errors
    ///
    /// [`GraphError::MalformedCsr`] when the offsets are not monotone, do
    /// not start at 0 or end at `targets.len()`, or a target is out of range.
    pub fn from_parts(offsets: Vec<u64>, targets: Vec<u32>) -> Result<Self, GraphError> {
        check_parts(&offsets, &targets).map_err(GraphError::MalformedCsr)?;
        Ok(Self { offsets, targets })
    }

    /// Wrap arrays the builder produced, which are valid by construction;
    /// skips the O(m) scan of [`Csr::from_parts`].
    pub(crate) fn from_built(offsets: Vec<u64>, targets: Vec<u32>) -> Self {
        debug_assert_eq!(check_parts(&offsets, &targets), Ok(()));
        Self { offsets, targets }
    }

    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        // from_parts guarantees this fits.
        self.offsets.len().saturating_sub(1) as u32
    }

    /// Number of (directed) edges stored.
    #[must_use]
    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Row offsets, `vertex_count + 1` entries.
    #[must_use]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Edge targets, grouped by source vertex.
    #[must_use]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Out-neighbours of `v`.
    ///
    /// # Panics
    ///
    /// When `v` is not a vertex of this graph.
    #[must_use]
    pub fn neighbors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Out-degree of `v`.
    ///
    /// # Panics
    ///
    /// When `v` is not a vertex of this graph.
    #[must_use]
    pub fn degree(&self, v: u32) -> u64 {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The largest out-degree of a vertex (0 when there are no edges).
    #[must_use]
    pub fn max_degree(&self) -> u64 {
        self.offsets
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0)
    }

    /// One past the last vertex with an edge (0 when none has one): every
    /// row from there on is empty. Bottom-up levels stop there, since a
    /// vertex without in-edges cannot be discovered (a graph renumbered by
    /// degree puts its isolated vertices last).
    #[must_use]
    pub fn rows_end(&self) -> u32 {
        let total = self.edge_count();
        // The first offset that reaches the end: every row from that vertex
        // on is empty, and the row before it is not.
        self.offsets.partition_point(|&o| o < total) as u32
    }

    /// Give back the arrays.
    #[must_use]
    pub fn into_parts(self) -> (Vec<u64>, Vec<u32>) {
        (self.offsets, self.targets)
    }
}

/// The first defect of `offsets` and `targets` as a CSR, if any.
fn check_parts(offsets: &[u64], targets: &[u32]) -> Result<(), CsrDefect> {
    let Some((&first, &last)) = offsets.first().zip(offsets.last()) else {
        return Err(CsrDefect::NoOffsets);
    };
    if first != 0 {
        return Err(CsrDefect::FirstOffset { found: first });
    }
    let edges = targets.len() as u64;
    if last != edges {
        return Err(CsrDefect::LastOffset {
            found: last,
            targets: edges,
        });
    }
    let vertices = offsets.len() as u64 - 1;
    if vertices > u64::from(u32::MAX) {
        return Err(CsrDefect::TooManyVertices { vertices });
    }
    if let Some(v) = offsets.windows(2).position(|w| w[0] > w[1]) {
        return Err(CsrDefect::Decreasing {
            vertex: v as u64,
            start: offsets[v],
            end: offsets[v + 1],
        });
    }
    if let Some(index) = targets.iter().position(|&t| u64::from(t) >= vertices) {
        return Err(CsrDefect::TargetOutOfRange {
            index: index as u64,
            target: targets[index],
            vertices,
        });
    }
    Ok(())
}

/// A graph ready for search: its out-edges and, for directed graphs, its
/// in-edges (which bottom-up kernels scan).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    out_edges: Csr,
    in_edges: Option<Csr>,
}

impl Graph {
    /// An undirected graph: every edge is stored in both directions, so the
    /// in-edges are the out-edges.
    #[must_use]
    pub fn symmetric(edges: Csr) -> Self {
        Self {
            out_edges: edges,
            in_edges: None,
        }
    }

    /// A directed graph with its reverse (in-edge) CSR.
    ///
    /// # Errors
    ///
    /// [`GraphError::InvalidCsr`] when the two do not have the same vertex and
    /// edge counts.
    pub fn directed(out_edges: Csr, in_edges: Csr) -> Result<Self, GraphError> {
        if out_edges.vertex_count() != in_edges.vertex_count()
            || out_edges.edge_count() != in_edges.edge_count()
        {
            return Err(GraphError::InvalidCsr {
                reason: format!(
                    "reverse CSR has {} vertices and {} edges, the graph {} and {}",
                    in_edges.vertex_count(),
                    in_edges.edge_count(),
                    out_edges.vertex_count(),
                    out_edges.edge_count()
                ),
            });
        }
        Ok(Self {
            out_edges,
            in_edges: Some(in_edges),
        })
    }

    /// Out-edges.
    #[must_use]
    pub fn out_edges(&self) -> &Csr {
        &self.out_edges
    }

    /// In-edges (the out-edges themselves when the graph is symmetric).
    #[must_use]
    pub fn in_edges(&self) -> &Csr {
        self.in_edges.as_ref().unwrap_or(&self.out_edges)
    }

    /// Whether every edge is stored in both directions.
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        self.in_edges.is_none()
    }

    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.out_edges.vertex_count()
    }

    /// Number of stored (directed) edges.
    #[must_use]
    pub fn edge_count(&self) -> u64 {
        self.out_edges.edge_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defect(offsets: Vec<u64>, targets: Vec<u32>) -> CsrDefect {
        match Csr::from_parts(offsets, targets) {
            Err(GraphError::MalformedCsr(defect)) => defect,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rows_end_after_the_last_vertex_that_has_an_edge() {
        let tail =
            crate::build::build_graph(6, &[(0, 1), (0, 2)], crate::build::BuildOptions::UNDIRECTED)
                .unwrap();
        assert_eq!(tail.in_edges().rows_end(), 3);
        let directed =
            crate::build::build_graph(5, &[(4, 1), (0, 2)], crate::build::BuildOptions::DIRECTED)
                .unwrap();
        assert_eq!(directed.in_edges().rows_end(), 3);
        let full = crate::build::build_graph(4, &[(0, 3)], crate::build::BuildOptions::UNDIRECTED)
            .unwrap();
        assert_eq!(full.in_edges().rows_end(), 4);
        let empty =
            crate::build::build_graph(3, &[], crate::build::BuildOptions::UNDIRECTED).unwrap();
        assert_eq!(empty.in_edges().rows_end(), 0);
    }

    #[test]
    fn the_largest_out_degree_is_found() {
        let star = crate::build::build_graph(
            6,
            &[(0, 1), (0, 2), (0, 3), (4, 5)],
            crate::build::BuildOptions::UNDIRECTED,
        )
        .unwrap();
        assert_eq!(star.out_edges().max_degree(), 3);
        let empty =
            crate::build::build_graph(3, &[], crate::build::BuildOptions::UNDIRECTED).unwrap();
        assert_eq!(empty.out_edges().max_degree(), 0);
    }

    #[test]
    fn from_parts_names_the_first_defect() {
        assert_eq!(defect(vec![], vec![]), CsrDefect::NoOffsets);
        assert_eq!(
            defect(vec![1, 1], vec![0]),
            CsrDefect::FirstOffset { found: 1 }
        );
        assert_eq!(
            defect(vec![0, 1, 1], vec![1, 0]),
            CsrDefect::LastOffset {
                found: 1,
                targets: 2
            }
        );
        assert_eq!(
            defect(vec![0, 2, 1, 2], vec![1, 0]),
            CsrDefect::Decreasing {
                vertex: 1,
                start: 2,
                end: 1
            }
        );
        assert_eq!(
            defect(vec![0, 1, 2], vec![1, 2]),
            CsrDefect::TargetOutOfRange {
                index: 1,
                target: 2,
                vertices: 2
            }
        );
        let csr = Csr::from_parts(vec![0, 1, 2], vec![1, 0]).unwrap();
        assert_eq!(csr.neighbors(1), &[0]);
    }
}
