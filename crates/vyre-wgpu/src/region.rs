//! The search state's buffers as regions of a few large buffers.
//!
//! wgpu tracks every buffer a dispatch binds and orders read-write buffers
//! with a barrier per buffer on every dispatch, so a chained level's host
//! cost grows with the read-write buffers its bind group holds. Carving the
//! state (control words, depths, parents, frontiers, work array, records)
//! from one buffer leaves wgpu one buffer to track and order per dispatch
//! where it had eleven (docs/BENCHMARKS.md has the measurements). The graph's
//! edges stay in buffers of their own: they are only read, which costs no
//! barrier.

use std::num::NonZeroU64;

/// Offsets of regions are multiples of this and of the device's storage
/// offset alignment: a query set resolves only to 256-byte offsets.
const REGION_ALIGN: u64 = 256;

/// A byte range of a device buffer, bound and cleared as if it were a buffer
/// of its own.
#[derive(Clone, Debug)]
pub(crate) struct Region {
    pub buffer: wgpu::Buffer,
    pub offset: u64,
    pub size: u64,
}

impl Region {
    /// The buffer and byte offset of byte `at` of the region.
    pub(crate) fn at(&self, at: u64) -> (&wgpu::Buffer, u64) {
        (&self.buffer, self.offset + at)
    }

    /// The region as a binding of exactly its size.
    pub(crate) fn binding(&self) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: &self.buffer,
            offset: self.offset,
            size: NonZeroU64::new(self.size),
        })
    }

    /// Clear `bytes` bytes from byte `at` (the rest of the region for
    /// `None`).
    pub(crate) fn clear(&self, encoder: &mut wgpu::CommandEncoder, at: u64, bytes: Option<u64>) {
        let bytes = bytes.unwrap_or(self.size.saturating_sub(at));
        encoder.clear_buffer(&self.buffer, self.offset + at, Some(bytes));
    }
}

/// Where each region of a carving lies: its arena and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub arena: usize,
    pub offset: u64,
}

/// Regions packed into arenas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Carving {
    /// Each region's place.
    pub places: Vec<Place>,
    /// Each region's size: as asked, but the last less the alignment gaps.
    pub sizes: Vec<u64>,
    /// Each arena's size; together exactly the sizes asked for.
    pub arenas: Vec<u64>,
}

/// Why regions could not be carved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CarveError {
    /// Region `0` is larger than the largest buffer.
    TooLarge(usize),
    /// The alignment gaps (`0` bytes) exceed what the last region can give.
    GapsExceedSlack(u64),
}

/// Regions of `sizes` bytes (multiples of 4) packed in order into arenas of
/// at most `max_buffer` bytes, at offsets aligned to `align` (raised to
/// [`REGION_ALIGN`]). The last region gives up to `slack` of its bytes to
/// the gaps alignment leaves, so the arenas hold exactly the bytes asked for.
pub(crate) fn carve(
    sizes: &[u64],
    align: u64,
    max_buffer: u64,
    slack: u64,
) -> Result<Carving, CarveError> {
    let align = align.max(REGION_ALIGN);
    let mut places = Vec::with_capacity(sizes.len());
    let mut arenas: Vec<u64> = Vec::new();
    let mut sizes = sizes.to_vec();
    let mut gaps = 0;
    let last = sizes.len().saturating_sub(1);
    for (i, size) in sizes.iter_mut().enumerate() {
        if *size > max_buffer {
            return Err(CarveError::TooLarge(i));
        }
        let open = arenas
            .last()
            .map(|&used| (used, used.div_ceil(align) * align));
        let gap = open.map_or(0, |(used, at)| at - used);
        // The last region shrinks by every gap: its own too where it stays
        // in the open arena.
        let shrink = |gap: u64| if i == last { gaps + gap } else { 0 };
        let stays = open.filter(|&(_, at)| at + size.saturating_sub(shrink(gap)) <= max_buffer);
        let taken = shrink(if stays.is_some() { gap } else { 0 });
        if taken > slack.min(*size) {
            return Err(CarveError::GapsExceedSlack(taken));
        }
        *size -= taken;
        match stays {
            Some((_, at)) => {
                gaps += gap;
                places.push(Place {
                    arena: arenas.len() - 1,
                    offset: at,
                });
                if let Some(used) = arenas.last_mut() {
                    *used = at + *size;
                }
            }
            None => {
                places.push(Place {
                    arena: arenas.len(),
                    offset: 0,
                });
                arenas.push(*size);
            }
        }
    }
    Ok(Carving {
        places,
        sizes,
        arenas,
    })
}

#[cfg(test)]
mod tests {
    use super::{CarveError, Place, carve};

    fn place(arena: usize, offset: u64) -> Place {
        Place { arena, offset }
    }

    #[test]
    fn regions_pack_in_order_and_the_last_gives_up_the_gaps() {
        let carving = carve(&[4, 1000, 4096], 16, 1 << 20, 4096).unwrap();
        assert_eq!(carving.places, [place(0, 0), place(0, 256), place(0, 1280)]);
        // 252 + 24 bytes of gaps come out of the last region.
        assert_eq!(carving.sizes, [4, 1000, 4096 - 276]);
        assert_eq!(carving.arenas, [4 + 1000 + 4096]);
    }

    #[test]
    fn a_region_that_does_not_fit_opens_a_new_arena() {
        let carving = carve(&[600, 600, 400], 256, 1024, 1024).unwrap();
        assert_eq!(carving.places, [place(0, 0), place(1, 0), place(1, 768)]);
        assert_eq!(carving.sizes, [600, 600, 400 - 168]);
        assert_eq!(carving.arenas, [600, 1000]);
    }

    #[test]
    fn a_last_region_in_an_arena_of_its_own_still_gives_up_the_gaps() {
        let carving = carve(&[100, 100, 1000], 256, 1024, 1024).unwrap();
        assert_eq!(carving.places, [place(0, 0), place(0, 256), place(1, 0)]);
        assert_eq!(carving.sizes, [100, 100, 1000 - 156]);
        assert_eq!(carving.arenas.iter().sum::<u64>(), 1200);
    }

    #[test]
    fn a_region_larger_than_any_buffer_is_named() {
        assert_eq!(
            carve(&[4, 2048, 4], 256, 1024, 1024),
            Err(CarveError::TooLarge(1))
        );
    }

    #[test]
    fn gaps_beyond_the_slack_are_refused() {
        assert_eq!(
            carve(&[4, 4, 4096], 256, 1 << 20, 100),
            Err(CarveError::GapsExceedSlack(504))
        );
    }

    #[test]
    fn regions_never_overlap_and_arenas_hold_exactly_the_bytes() {
        let sizes = [
            4u64, 36_000_004, 36_000_004, 1_125_000, 16, 16, 260, 8_000_000,
        ];
        for max in [50_000_000, 1 << 40] {
            let carving = carve(&sizes, 64, max, 4096).unwrap();
            let asked: u64 = sizes.iter().sum();
            assert_eq!(carving.arenas.iter().sum::<u64>(), asked);
            let regions: Vec<_> = carving.places.iter().zip(&carving.sizes).collect();
            for (i, (a, sa)) in regions.iter().enumerate() {
                assert_eq!(a.offset % 256, 0);
                assert!(a.offset + *sa <= carving.arenas[a.arena], "{a:?}");
                for (b, sb) in &regions[i + 1..] {
                    let apart = a.arena != b.arena
                        || a.offset + *sa <= b.offset
                        || b.offset + *sb <= a.offset;
                    assert!(apart, "{a:?} {b:?}");
                }
            }
        }
    }
}
