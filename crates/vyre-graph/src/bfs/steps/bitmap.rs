//! A frontier as one bit per vertex.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

/// One bit per vertex in atomic 32-bit words (vertex `v` is bit `v % 32` of
/// word `v / 32`), settable from many threads.
#[derive(Debug)]
pub struct FrontierBitmap {
    words: Vec<AtomicU32>,
    vertex_count: u32,
}

impl FrontierBitmap {
    /// An empty bitmap for `vertex_count` vertices.
    #[must_use]
    pub fn new(vertex_count: u32) -> Self {
        let words = (0..vertex_count.div_ceil(32) as usize)
            .into_par_iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        Self {
            words,
            vertex_count,
        }
    }

    /// Number of vertices the bitmap covers.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// The words, for callers that scan a word at a time.
    #[must_use]
    pub fn words(&self) -> &[AtomicU32] {
        &self.words
    }

    /// Clear every bit.
    pub fn clear(&self) {
        self.words
            .par_iter()
            .with_min_len(4096)
            .for_each(|w| w.store(0, Relaxed));
    }

    /// Set `v`'s bit.
    ///
    /// # Panics
    ///
    /// When `v` is not below the vertex count.
    pub fn set(&self, v: u32) {
        assert!(v < self.vertex_count, "vertex {v} is outside the bitmap");
        self.words[(v / 32) as usize].fetch_or(1 << (v % 32), Relaxed);
    }

    /// Set `v`'s bit; returns whether it was clear before (so that exactly
    /// one of several racing callers gets `true`).
    ///
    /// # Panics
    ///
    /// When `v` is not below the vertex count.
    pub fn try_set(&self, v: u32) -> bool {
        let word = &self.words[(v / 32) as usize];
        let bit = 1 << (v % 32);
        word.load(Relaxed) & bit == 0 && word.fetch_or(bit, Relaxed) & bit == 0
    }

    /// Whether `v`'s bit is set (false for `v` outside the bitmap).
    #[must_use]
    pub fn contains(&self, v: u32) -> bool {
        self.words
            .get((v / 32) as usize)
            .is_some_and(|w| w.load(Relaxed) & (1 << (v % 32)) != 0)
    }

    /// Number of set bits.
    #[must_use]
    pub fn count(&self) -> u64 {
        self.words
            .par_iter()
            .with_min_len(4096)
            .map(|w| u64::from(w.load(Relaxed).count_ones()))
            .sum()
    }
}

/// Set the bit of every vertex in `queue` (bits already set stay set).
///
/// # Panics
///
/// When a queued vertex is outside the bitmap.
pub fn queue_to_bitmap(queue: &[u32], bitmap: &FrontierBitmap) {
    queue
        .par_iter()
        .with_min_len(1024)
        .for_each(|&v| bitmap.set(v));
}

/// The set vertices of `bitmap` in increasing order.
#[must_use]
pub fn bitmap_to_queue(bitmap: &FrontierBitmap) -> Vec<u32> {
    bitmap
        .words
        .par_iter()
        .enumerate()
        .with_min_len(1024)
        .flat_map_iter(|(i, w)| {
            let mut bits = w.load(Relaxed);
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    i as u32 * 32 + b
                })
            })
        })
        .collect()
}
