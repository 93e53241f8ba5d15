//! Relabelling by breadth: vertices numbered level by level of a
//! breadth-first walk from a peripheral vertex of each component
//! (Cuthill-McKee's order, without its sort of each vertex's children by
//! degree), and every row sorted by new id.
//!
//! A search on a grid, mesh or road network moves as a thin wavefront.
//! Numbered row by row, a 3000 x 3000 grid's wavefront from a corner is a
//! diagonal that touches one cache line of every per-vertex array for each
//! of its vertices; numbered by breadth it is a run of consecutive ids, and
//! the wavefront from an inner source is one in half of its length.

use super::Relabelling;
use super::rewrite::{copy_bytes, degree, relabelled_graph};
use crate::memory::{MemoryLimit, check, try_with_capacity, try_zeroed};
use crate::{Graph, GraphError, UNREACHED};

/// Walks that look for a peripheral start in each component (George and
/// Liu's pseudo-peripheral vertex): each moves the start farther out or
/// ends the look.
const START_WALKS: u32 = 4;

/// `graph` with its vertices renumbered by breadth (see the module), with
/// the relabelling that maps results back. A directed graph is walked along
/// its edges both ways. Checks the copy's size against `limit` before
/// allocating it.
///
/// # Errors
///
/// [`GraphError::OutOfMemory`] when the relabelled copy does not fit.
pub fn relabel_by_breadth(
    graph: &Graph,
    limit: Option<&MemoryLimit>,
) -> Result<(Graph, Relabelling), GraphError> {
    let walk_bytes = u64::from(graph.vertex_count()) * 5;
    check(limit, copy_bytes(graph) + walk_bytes, || {
        "the graph relabelled by breadth (loading it in the given order needs no copy)".to_string()
    })?;
    let relabelling = breadth_first_order(graph)?;
    Ok((relabelled_graph(graph, &relabelling)?, relabelling))
}

/// The breadth-first numbering of `graph`'s vertices: components in the
/// order of their lowest id, each walked from a peripheral vertex, each
/// level's vertices in the order the walk found them.
///
/// # Errors
///
/// [`GraphError::OutOfMemory`] when its arrays cannot be allocated.
pub fn breadth_first_order(graph: &Graph) -> Result<Relabelling, GraphError> {
    let n = graph.vertex_count() as usize;
    let mut new_of_old: Vec<u32> = try_with_capacity(n, || "the relabelling".into())?;
    new_of_old.resize(n, UNREACHED);
    let mut old_of_new: Vec<u32> = try_with_capacity(n, || "the relabelling".into())?;
    let mut walk = Walk {
        graph,
        queue: try_with_capacity(n, || "the breadth-first walk".into())?,
        seen: try_zeroed(n, || "the breadth-first walk".into())?,
    };
    for first in 0..graph.vertex_count() {
        if new_of_old[first as usize] != UNREACHED {
            continue;
        }
        // The numbering is the order in which a walk from the start finds
        // its component.
        let start = walk.peripheral(first);
        walk.walk(start);
        for &v in &walk.queue {
            new_of_old[v as usize] = old_of_new.len() as u32;
            old_of_new.push(v);
        }
    }
    Ok(Relabelling {
        new_of_old,
        old_of_new,
    })
}

/// `v`'s neighbours: its out-edges, and on a directed graph its in-edges
/// too (a component is what either direction reaches).
fn neighbours(graph: &Graph, v: u32) -> impl Iterator<Item = u32> + '_ {
    let back: &[u32] = if graph.is_symmetric() {
        &[]
    } else {
        graph.in_edges().neighbors(v)
    };
    graph.out_edges().neighbors(v).iter().chain(back).copied()
}

/// Scratch space of the breadth-first walks: those that look for a start,
/// then the one whose queue is the numbering.
struct Walk<'g> {
    graph: &'g Graph,
    queue: Vec<u32>,
    seen: Vec<u8>,
}

impl Walk<'_> {
    /// A vertex of `from`'s component at the far end of a longest shortest
    /// path, or near it: walk from `from`, move to the lowest-degree vertex
    /// of the last level while that lengthens the walk.
    fn peripheral(&mut self, from: u32) -> u32 {
        let (mut depth, mut candidate) = self.walk(from);
        let mut start = from;
        for _ in 1..START_WALKS {
            if candidate == start {
                break;
            }
            let (further, next) = self.walk(candidate);
            if further <= depth {
                break;
            }
            (start, depth, candidate) = (candidate, further, next);
        }
        start
    }

    /// Walk from `from`: the number of levels after the first, and the
    /// first vertex of least degree in the last level.
    fn walk(&mut self, from: u32) -> (u32, u32) {
        self.queue.clear();
        self.queue.push(from);
        self.seen[from as usize] = 1;
        let (mut head, mut last_level, mut depth) = (0, 0, 0);
        loop {
            let level_end = self.queue.len();
            while head < level_end {
                let u = self.queue[head];
                head += 1;
                for v in neighbours(self.graph, u) {
                    if self.seen[v as usize] == 0 {
                        self.seen[v as usize] = 1;
                        self.queue.push(v);
                    }
                }
            }
            if self.queue.len() == level_end {
                break;
            }
            last_level = level_end;
            depth += 1;
        }
        let far = self.queue[last_level..]
            .iter()
            .copied()
            .min_by_key(|&v| degree(self.graph, v))
            .unwrap_or(from);
        for &v in &self.queue {
            self.seen[v as usize] = 0;
        }
        (depth, far)
    }
}
