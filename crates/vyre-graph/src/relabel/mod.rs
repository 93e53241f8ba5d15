//! Vertex relabelling: a graph's vertices renumbered and the map back to
//! the ids the caller knows.
//!
//! - By degree, highest first (`by_degree`): bottom-up levels look among a
//!   vertex's in-edges for a parent in the frontier. On skewed graphs the
//!   hubs join the frontier first, so rows that list their highest-degree
//!   neighbours first end the look at the first probe, and the hubs'
//!   frontier bits share a few words that stay in cache. Vertices without
//!   edges move to the end.
//! - By breadth (`by_breadth`): the levels of a walk from a peripheral
//!   vertex, so that a thin wavefront's vertices sit together in memory.
//!
//! Graph500 and GAP count such a relabelling as graph construction, apart
//! from the search.

#[cfg(test)]
mod breadth_tests;
mod by_breadth;
mod by_degree;
mod rewrite;
#[cfg(test)]
mod tests;

pub use by_breadth::{breadth_first_order, relabel_by_breadth};
pub use by_degree::{relabel_by_degree, top_degree_share};

use crate::UNREACHED;

/// A renumbering of `n` vertices: `new_of_old` and its inverse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relabelling {
    new_of_old: Vec<u32>,
    old_of_new: Vec<u32>,
}

impl Relabelling {
    /// The relabelling that lists old ids in `old_of_new` order (vertex `i`
    /// of the new graph is `old_of_new[i]`). `None` unless it is a
    /// permutation of `0..len`.
    #[must_use]
    pub fn from_order(old_of_new: Vec<u32>) -> Option<Self> {
        let n = old_of_new.len();
        let mut new_of_old = vec![UNREACHED; n];
        for (new, &old) in old_of_new.iter().enumerate() {
            let slot = new_of_old.get_mut(old as usize)?;
            if *slot != UNREACHED {
                return None;
            }
            *slot = new as u32;
        }
        Some(Self {
            new_of_old,
            old_of_new,
        })
    }

    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.old_of_new.len() as u32
    }

    /// The new id of vertex `old` (`None` when out of range).
    #[must_use]
    pub fn new_id(&self, old: u32) -> Option<u32> {
        self.new_of_old.get(old as usize).copied()
    }

    /// The caller's id of vertex `new` (`None` when out of range).
    #[must_use]
    pub fn old_id(&self, new: u32) -> Option<u32> {
        self.old_of_new.get(new as usize).copied()
    }

    /// Vertex ids in the caller's numbering turned into new ids; ids out of
    /// range are kept as they are, for the search's own range check to
    /// refuse with its message.
    #[must_use]
    pub fn to_new(&self, old: &[u32]) -> Vec<u32> {
        old.iter().map(|&v| self.new_id(v).unwrap_or(v)).collect()
    }

    /// Per-vertex values of the relabelled graph (depths, counts) back in
    /// the caller's numbering: `out[old] = relabelled[new_of_old[old]]`.
    /// `relabelled` and `out` hold one entry per vertex.
    pub fn restore_values<T: Copy + Send + Sync>(&self, relabelled: &[T], out: &mut [T]) {
        use rayon::prelude::*;
        out.par_iter_mut()
            .zip(self.new_of_old.par_iter())
            .for_each(|(o, &new)| *o = relabelled[new as usize]);
    }

    /// Per-vertex vertex ids of the relabelled graph (parents) back in the
    /// caller's numbering, both the slot and the id: `out[old]` is the old id
    /// of `relabelled[new_of_old[old]]`; [`UNREACHED`] stays.
    pub fn restore_ids(&self, relabelled: &[u32], out: &mut [u32]) {
        use rayon::prelude::*;
        out.par_iter_mut()
            .zip(self.new_of_old.par_iter())
            .for_each(|(o, &new)| {
                let id = relabelled[new as usize];
                *o = self.old_id(id).unwrap_or(id);
            });
    }
}
