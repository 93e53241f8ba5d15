//! Depths and parents shared by the threads of a search.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::FrontierBitmap;
use crate::UNREACHED;
use crate::bfs::BfsTree;

/// Per-vertex depth and parent, written by the level steps from many
/// threads, plus a visited bit per vertex. A step claims a vertex by
/// setting its visited bit atomically, then writes its depth and parent;
/// all are complete when the step returns. The bitmap (an eighth of a
/// byte per vertex) keeps the "already reached?" test of every examined
/// edge in cache, where the depth array would miss.
#[derive(Debug)]
pub struct SearchState {
    depths: Vec<AtomicU32>,
    parents: Vec<AtomicU32>,
    visited: FrontierBitmap,
}

fn unreached_array(n: u32) -> Vec<AtomicU32> {
    (0..n as usize)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNREACHED))
        .collect()
}

impl SearchState {
    /// A state for a graph of `vertex_count` vertices, all unreached.
    #[must_use]
    pub fn new(vertex_count: u32) -> Self {
        Self {
            depths: unreached_array(vertex_count),
            parents: unreached_array(vertex_count),
            visited: FrontierBitmap::new(vertex_count),
        }
    }

    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.depths.len() as u32
    }

    /// Mark every vertex unreached again.
    pub fn reset(&mut self) {
        self.depths
            .par_iter_mut()
            .chain(self.parents.par_iter_mut())
            .for_each(|x| *x.get_mut() = UNREACHED);
        self.visited.clear();
    }

    /// Make each in-range vertex of `sources` a root (depth 0, its own
    /// parent) and return them, first occurrences only, in order: the
    /// frontier of level 0. Out-of-range sources are ignored, as the
    /// reference BFS does.
    pub fn start(&mut self, sources: &[u32]) -> Vec<u32> {
        let n = self.vertex_count();
        let mut frontier = Vec::with_capacity(sources.len());
        for &s in sources {
            if s < n && *self.depths[s as usize].get_mut() == UNREACHED {
                self.visited.set(s);
                *self.depths[s as usize].get_mut() = 0;
                *self.parents[s as usize].get_mut() = s;
                frontier.push(s);
            }
        }
        frontier
    }

    /// Depth of `v` ([`UNREACHED`] if not reached).
    ///
    /// # Panics
    ///
    /// When `v` is not a vertex.
    #[must_use]
    pub fn depth(&self, v: u32) -> u32 {
        self.depths[v as usize].load(Relaxed)
    }

    /// Parent of `v` ([`UNREACHED`] if not reached).
    ///
    /// # Panics
    ///
    /// When `v` is not a vertex.
    #[must_use]
    pub fn parent(&self, v: u32) -> u32 {
        self.parents[v as usize].load(Relaxed)
    }

    /// Whether `v` has been reached (visited bit set).
    ///
    /// # Panics
    ///
    /// When `v` is not a vertex.
    #[must_use]
    pub fn is_reached(&self, v: u32) -> bool {
        self.visited.contains(v)
    }

    /// The visited bits, word by word (bit `v % 32` of word `v / 32`).
    #[must_use]
    pub fn visited(&self) -> &FrontierBitmap {
        &self.visited
    }

    /// Claim `v` for the next level if no one has: set its visited bit,
    /// depth `depth` and parent `parent`. Returns whether this call claimed
    /// it.
    pub(crate) fn claim(&self, v: u32, parent: u32, depth: u32) -> bool {
        if !self.visited.try_set(v) {
            return false;
        }
        self.depths[v as usize].store(depth, Relaxed);
        self.parents[v as usize].store(parent, Relaxed);
        true
    }

    /// Set `v`'s depth and parent when the caller alone handles `v`
    /// (bottom-up: each unreached vertex is visited by one thread), which
    /// then marks it visited with [`SearchState::mark_visited`].
    pub(crate) fn settle(&self, v: u32, parent: u32, depth: u32) {
        self.depths[v as usize].store(depth, Relaxed);
        self.parents[v as usize].store(parent, Relaxed);
    }

    /// Set the visited bits `mask` of word `word`.
    pub(crate) fn mark_visited(&self, word: usize, mask: u32) {
        self.visited.words()[word].fetch_or(mask, Relaxed);
    }

    /// Copy the depths into `out`.
    ///
    /// # Panics
    ///
    /// When `out.len()` is not the vertex count.
    pub fn depths(&self, out: &mut [u32]) {
        snapshot(&self.depths, out);
    }

    /// Copy the parents into `out`.
    ///
    /// # Panics
    ///
    /// When `out.len()` is not the vertex count.
    pub fn parents(&self, out: &mut [u32]) {
        snapshot(&self.parents, out);
    }

    /// The depths and parents as a [`BfsTree`].
    #[must_use]
    pub fn to_tree(&self) -> BfsTree {
        let n = self.depths.len();
        let mut tree = BfsTree {
            depths: vec![0; n],
            parents: vec![0; n],
        };
        self.depths(&mut tree.depths);
        self.parents(&mut tree.parents);
        tree
    }
}

fn snapshot(from: &[AtomicU32], out: &mut [u32]) {
    assert_eq!(
        from.len(),
        out.len(),
        "snapshot buffer has {} slots for {} vertices",
        out.len(),
        from.len()
    );
    out.par_iter_mut()
        .zip(from.par_iter())
        .with_min_len(4096)
        .for_each(|(o, a)| *o = a.load(Relaxed));
}
