//! The serial reference BFS: the oracle every backend is compared with.
//! Kept small so that it is obviously right.

use std::collections::VecDeque;

use crate::{Graph, UNREACHED};

/// Depths and BFS-tree parents of one search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BfsTree {
    /// Depth of each vertex; [`UNREACHED`] when the search did not reach it.
    pub depths: Vec<u32>,
    /// Parent of each vertex in the BFS tree; a source is its own parent;
    /// [`UNREACHED`] when not reached.
    pub parents: Vec<u32>,
}

/// Serial BFS from every vertex of `sources` at once (depth 0 each).
///
/// Sources out of range are ignored.
#[must_use]
pub fn reference_bfs(graph: &Graph, sources: &[u32]) -> BfsTree {
    let n = graph.vertex_count() as usize;
    let mut depths = vec![UNREACHED; n];
    let mut parents = vec![UNREACHED; n];
    let mut queue = VecDeque::new();
    for &s in sources.iter().filter(|&&s| (s as usize) < n) {
        if depths[s as usize] == UNREACHED {
            depths[s as usize] = 0;
            parents[s as usize] = s;
            queue.push_back(s);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &v in graph.out_edges().neighbors(u) {
            if depths[v as usize] == UNREACHED {
                depths[v as usize] = depths[u as usize] + 1;
                parents[v as usize] = u;
                queue.push_back(v);
            }
        }
    }
    BfsTree { depths, parents }
}
