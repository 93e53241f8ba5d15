//! Where a chain's dispatch arguments (the first level's grid, every later
//! level's grid and the frontier conversion's, all written by the host) and
//! its two level-word buffers live: carved from the end of the layout's work
//! array (its slack of `WORK_RESERVE_WORDS` words holds them), each at an offset a storage
//! binding may start at, so that every byte the device holds is the layout's.
//! The kernels' own bound on the work array (n + n / SCAN_CAP + 1 words for a
//! chunked Sparse scan, 2 per piece) stays within what is left.

use vyre_wgsl_abi::control::LEVEL_WORDS_BYTES;

use crate::host_words::GRID_BYTES;

/// Byte ranges within the work buffer.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Carve {
    /// Bytes the kernels see as the work array (from offset 0).
    pub work_bytes: u64,
    /// Offset of the first level's dispatch arguments ([`GRID_BYTES`]).
    pub first_args: u64,
    /// Offset of every later level's dispatch arguments ([`GRID_BYTES`]).
    pub later_args: u64,
    /// Offsets of level words 0 and 1 ([`LEVEL_WORDS_BYTES`] each).
    pub level_words: [u64; 2],
    /// Offset of the frontier conversion's dispatch arguments
    /// ([`GRID_BYTES`]).
    pub conversion_args: u64,
}

impl Carve {
    /// The carve of a work buffer of `bytes` on a device whose storage
    /// bindings start at multiples of `alignment`.
    pub(crate) fn of(bytes: u64, alignment: u64) -> Self {
        let align = alignment.max(16);
        let below = |end: u64, size: u64| end.saturating_sub(size) / align * align;
        let level_1 = below(bytes, LEVEL_WORDS_BYTES);
        let level_0 = below(level_1, LEVEL_WORDS_BYTES);
        let later_args = below(level_0, GRID_BYTES);
        let first_args = below(later_args, GRID_BYTES);
        let conversion_args = below(first_args, GRID_BYTES);
        Self {
            work_bytes: conversion_args,
            first_args,
            later_args,
            level_words: [level_0, level_1],
            conversion_args,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_aligned_disjoint_and_leave_the_kernels_their_work_array() {
        for alignment in [1, 4, 16, 64, 256] {
            // Work arrays with 1024 words of slack, less than any layout has.
            for bytes in [4096u64, 4100, 1 << 20, (1 << 20) + 12] {
                let carve = Carve::of(bytes, alignment);
                let mut pieces = vec![
                    (carve.first_args, GRID_BYTES),
                    (carve.later_args, GRID_BYTES),
                    (carve.level_words[0], LEVEL_WORDS_BYTES),
                    (carve.level_words[1], LEVEL_WORDS_BYTES),
                    (carve.conversion_args, GRID_BYTES),
                ];
                pieces.sort_unstable();
                assert_eq!(pieces[0].0, carve.work_bytes);
                for pair in pieces.windows(2) {
                    assert!(
                        pair[0].0 + pair[0].1 <= pair[1].0,
                        "{alignment} {bytes}: {pieces:?}"
                    );
                }
                let (last, size) = pieces[4];
                assert!(last + size <= bytes);
                assert!(pieces.iter().all(|(at, _)| at % alignment.max(16) == 0));
                // Five pieces of at most one alignment each and their bytes.
                assert!(carve.work_bytes + 5 * alignment.max(16) + 112 >= bytes);
                assert!(bytes - carve.work_bytes <= 3072, "the slack holds it");
            }
        }
    }
}
