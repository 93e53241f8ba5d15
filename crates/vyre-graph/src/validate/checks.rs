//! The checks themselves, each a pass over vertices or edges.

use rayon::prelude::*;

use super::{ValidationError, ValidationReport};
use crate::{Graph, UNREACHED};

/// Run the Graph500 checks (see the [module docs](super)) on a BFS result
/// from `sources`, in order: well-formedness, then checks 1 to 5. Returns
/// the first failure found.
///
/// # Errors
///
/// The first [`ValidationError`] found.
pub fn validate_bfs(
    graph: &Graph,
    sources: &[u32],
    depths: &[u32],
    parents: &[u32],
) -> Result<ValidationReport, ValidationError> {
    let n = graph.vertex_count();
    if depths.len() != n as usize || parents.len() != n as usize {
        return Err(ValidationError::LengthMismatch {
            vertices: n,
            depths: depths.len(),
            parents: parents.len(),
        });
    }
    let mut is_source = vec![false; n as usize];
    for &s in sources {
        if s >= n {
            return Err(ValidationError::SourceOutOfRange { source: s });
        }
        let (depth, parent) = (depths[s as usize], parents[s as usize]);
        if depth != 0 || parent != s {
            return Err(ValidationError::SourceNotRoot {
                source: s,
                depth,
                parent,
            });
        }
        is_source[s as usize] = true;
    }
    let r = Outcome {
        depths,
        parents,
        is_source: &is_source,
    };
    first_error((0..n).into_par_iter().map(|v| r.well_formed(v)))?;
    r.acyclic()?;
    first_error((0..n).into_par_iter().map(|v| r.tree_edge_level(v)))?;
    r.edges_within_levels(graph)?;
    first_error(
        (0..n)
            .into_par_iter()
            .map(|v| r.parent_edge_exists(graph, v)),
    )?;

    let reached = depths.par_iter().filter(|&&d| d != UNREACHED).count() as u64;
    let max_depth = depths
        .par_iter()
        .filter(|&&d| d != UNREACHED)
        .copied()
        .max()
        .unwrap_or(0);
    Ok(ValidationReport {
        reached,
        max_depth,
        searched_edges: crate::teps::searched_edges(graph, depths),
    })
}

/// The failure of the lowest vertex, if any.
fn first_error(
    results: impl IndexedParallelIterator<Item = Result<(), ValidationError>>,
) -> Result<(), ValidationError> {
    match results.find_first(|r| r.is_err()) {
        Some(err) => err,
        None => Ok(()),
    }
}

struct Outcome<'a> {
    depths: &'a [u32],
    parents: &'a [u32],
    is_source: &'a [bool],
}

type Check = Result<(), ValidationError>;

impl Outcome<'_> {
    fn reached(&self, v: u32) -> bool {
        self.depths[v as usize] != UNREACHED
    }

    fn well_formed(&self, v: u32) -> Check {
        let (depth, parent) = (self.depths[v as usize], self.parents[v as usize]);
        let n = self.depths.len() as u32;
        let bad = (depth == UNREACHED) != (parent == UNREACHED)
            || (parent != UNREACHED && parent >= n)
            || (depth == 0 && !self.is_source[v as usize]);
        if bad {
            return Err(ValidationError::Inconsistent {
                vertex: v,
                depth,
                parent,
            });
        }
        Ok(())
    }

    /// Check 1. Walks parent chains once each, remembering finished ones.
    /// A chain that reaches an unreached vertex stops there: check 2
    /// reports that tree edge.
    fn acyclic(&self) -> Check {
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let n = self.depths.len();
        let mut mark = vec![NEW; n];
        let mut path = Vec::new();
        for start in 0..n as u32 {
            if !self.reached(start) || mark[start as usize] != NEW {
                continue;
            }
            let mut v = start;
            loop {
                if !self.reached(v) || mark[v as usize] == DONE || self.is_source[v as usize] {
                    break;
                }
                if mark[v as usize] == ON_PATH {
                    return Err(ValidationError::ParentCycle { vertex: start });
                }
                mark[v as usize] = ON_PATH;
                path.push(v);
                v = self.parents[v as usize];
            }
            for u in path.drain(..) {
                mark[u as usize] = DONE;
            }
        }
        Ok(())
    }

    /// Check 2.
    fn tree_edge_level(&self, v: u32) -> Check {
        if !self.reached(v) || self.is_source[v as usize] {
            return Ok(());
        }
        let parent = self.parents[v as usize];
        let (vertex_depth, parent_depth) = (self.depths[v as usize], self.depths[parent as usize]);
        if parent_depth == UNREACHED || parent_depth + 1 != vertex_depth {
            return Err(ValidationError::TreeEdgeLevel {
                vertex: v,
                parent,
                vertex_depth,
                parent_depth,
            });
        }
        Ok(())
    }

    /// Checks 3 and 4 in one pass over the edges; check 3's failures come
    /// first.
    fn edges_within_levels(&self, graph: &Graph) -> Check {
        let csr = graph.out_edges();
        let n = graph.vertex_count();
        let first_of = |kind: fn(u32, u32, u32, u32) -> Option<ValidationError>| {
            (0..n).into_par_iter().find_map_first(|u| {
                let du = self.depths[u as usize];
                if du == UNREACHED {
                    return None;
                }
                csr.neighbors(u)
                    .iter()
                    .find_map(|&v| kind(u, v, du, self.depths[v as usize]))
            })
        };
        let spread = first_of(|from, to, from_depth, to_depth| {
            (to_depth != UNREACHED && to_depth > from_depth + 1).then_some(
                ValidationError::EdgeLevelSpread {
                    from,
                    to,
                    from_depth,
                    to_depth,
                },
            )
        });
        if let Some(err) = spread {
            return Err(err);
        }
        let unspanned = first_of(|reached, unreached, _, to_depth| {
            (to_depth == UNREACHED)
                .then_some(ValidationError::ComponentNotSpanned { reached, unreached })
        });
        unspanned.map_or(Ok(()), Err)
    }

    /// Check 5. Rows are sorted when built by this crate; a row that is not
    /// still gets a linear scan before the edge is declared missing.
    fn parent_edge_exists(&self, graph: &Graph, v: u32) -> Check {
        if !self.reached(v) || self.is_source[v as usize] {
            return Ok(());
        }
        let parent = self.parents[v as usize];
        let row = graph.out_edges().neighbors(parent);
        if row.binary_search(&v).is_ok() || row.contains(&v) {
            return Ok(());
        }
        Err(ValidationError::ParentEdgeMissing { vertex: v, parent })
    }
}
