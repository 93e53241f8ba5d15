//! [`BatchState`]: the words, depths and bookkeeping of one batch pass.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::LANES;
use crate::GraphError;
use crate::memory::try_reserve;

/// The state of one batch pass over a graph of `vertex_count` vertices.
#[derive(Debug)]
pub struct BatchState {
    pub(super) lanes: u32,
    /// The lanes in use, `lanes` low bits.
    pub(super) mask: u64,
    /// Lanes that have reached each vertex.
    pub(super) seen: Vec<AtomicU64>,
    /// The two frontier word arrays.
    pub(super) words: [Vec<AtomicU64>; 2],
    /// Whether an array holds stale words (a pull's source).
    pub(super) dirty: [AtomicBool; 2],
    /// `lanes` depths per vertex, when kept.
    pub(super) depths: Option<Vec<AtomicU32>>,
}

fn atomics<T: Default>(len: usize, what: &str) -> Result<Vec<T>, GraphError> {
    let mut v = Vec::new();
    try_reserve(&mut v, len, || what.to_string())?;
    v.resize_with(len, T::default);
    Ok(v)
}

impl BatchState {
    /// State for `lanes` searches (1 to 64) over `vertex_count` vertices,
    /// with every lane's depth of every vertex when `keep_depths`.
    ///
    /// # Errors
    ///
    /// [`GraphError::OutOfMemory`] when the host cannot hold the state.
    pub fn new(vertex_count: u32, lanes: u32, keep_depths: bool) -> Result<Self, GraphError> {
        let n = vertex_count as usize;
        let lanes = lanes.clamp(1, LANES);
        let depths = if keep_depths {
            Some(atomics(n * lanes as usize, "the batch's depths")?)
        } else {
            None
        };
        Ok(Self {
            lanes,
            mask: crate::bfs::batch::steps::mask_of(lanes),
            seen: atomics(n, "the batch's seen words")?,
            words: [
                atomics(n, "the batch's frontier words")?,
                atomics(n, "the batch's frontier words")?,
            ],
            dirty: [AtomicBool::new(false), AtomicBool::new(false)],
            depths,
        })
    }

    /// Vertices of the graph the state is for.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.seen.len() as u32
    }

    /// Lanes of the pass.
    #[must_use]
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Whether depths are kept.
    #[must_use]
    pub fn keeps_depths(&self) -> bool {
        self.depths.is_some()
    }

    /// Bytes the state holds.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        let words = 3 * self.seen.len() as u64 * 8;
        words + self.depths.as_ref().map_or(0, |d| d.len() as u64 * 4)
    }

    /// Start the pass: lane `j` at depth 0 on `sources[j]` (at most
    /// `lanes`), every other lane unreached. Returns the distinct sources
    /// (the first frontier, in word array 0).
    ///
    /// # Panics
    ///
    /// When a source is not a vertex.
    pub fn start(&mut self, sources: &[u32]) -> Vec<u32> {
        self.seen.par_iter().for_each(|w| w.store(0, Relaxed));
        for array in &self.words {
            array.par_iter().for_each(|w| w.store(0, Relaxed));
        }
        self.dirty = [AtomicBool::new(false), AtomicBool::new(false)];
        if let Some(depths) = &self.depths {
            depths.par_iter().for_each(|d| d.store(u32::MAX, Relaxed));
        }
        let mut queue = Vec::new();
        for (j, &s) in sources.iter().take(self.lanes as usize).enumerate() {
            let bit = 1u64 << j;
            if self.seen[s as usize].fetch_or(bit, Relaxed) == 0 {
                queue.push(s);
            }
            self.words[0][s as usize].fetch_or(bit, Relaxed);
            if let Some(depths) = &self.depths {
                depths[s as usize * self.lanes as usize + j].store(0, Relaxed);
            }
        }
        queue
    }

    /// The vertices whose words in array `buffer` are not zero, in order.
    #[must_use]
    pub fn queue_of(&self, buffer: usize) -> Vec<u32> {
        self.words[buffer]
            .par_iter()
            .enumerate()
            .filter(|(_, w)| w.load(Relaxed) != 0)
            .map(|(v, _)| v as u32)
            .collect()
    }

    /// Copy the depths (vertex-major, `lanes` per vertex) into `out`.
    ///
    /// # Errors
    ///
    /// A message when depths are not kept or `out` has the wrong length.
    pub fn read_depths(&self, out: &mut [u32]) -> Result<(), String> {
        let depths = self
            .depths
            .as_ref()
            .ok_or("this batch pass keeps no depths")?;
        if out.len() != depths.len() {
            return Err(format!(
                "the output holds {} words but the pass has {}",
                out.len(),
                depths.len()
            ));
        }
        out.par_iter_mut()
            .zip(depths.par_iter())
            .for_each(|(o, d)| *o = d.load(Relaxed));
        Ok(())
    }
}
