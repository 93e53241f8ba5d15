//! Counter-based randomness: any edge's random numbers can be recomputed
//! from `(seed, index)` alone, which lets generators run in parallel and be
//! read twice by the builder without storing edges.

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function.
#[must_use]
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix(u64);

impl SplitMix {
    /// The stream `stream` of `seed`; streams `0, 1, ...` each own a
    /// disjoint window of 32 draws of one SplitMix64 sequence per seed.
    pub(crate) fn stream(seed: u64, stream: u64) -> Self {
        Self(
            mix(seed ^ 0x005E_ED0F_5EED).wrapping_add(stream.wrapping_mul(32).wrapping_mul(GOLDEN)),
        )
    }

    /// Next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// A number in `0..bound` (multiply-shift; bias below 2^-32 per draw).
    pub(crate) fn below(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }
}

/// A seeded bijection of `0..2^bits` that scatters neighbouring ids, used to
/// relabel generated vertices so that no id carries structure (Graph500's
/// vertex permutation, without storing a table).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relabel {
    mask: u64,
    shift: u32,
    mul: [u64; 2],
    add: u64,
}

impl Relabel {
    /// The bijection of `0..2^bits` for `seed`; `bits <= 32`.
    pub(crate) fn new(bits: u32, seed: u64) -> Self {
        let mut rng = SplitMix::stream(seed, u64::MAX);
        Self {
            mask: (1u64 << bits) - 1,
            shift: (bits / 2).max(1),
            // Odd multipliers are invertible modulo any power of two.
            mul: [rng.next_u64() | 1, rng.next_u64() | 1],
            add: rng.next_u64(),
        }
    }

    /// The new id of `x`. Each step (odd multiply, add, xor with a right
    /// shift of itself, all modulo `2^bits`) is invertible, so the whole is.
    pub(crate) fn apply(&self, x: u64) -> u64 {
        let mut x = x.wrapping_mul(self.mul[0]) & self.mask;
        x ^= x >> self.shift;
        x = x.wrapping_mul(self.mul[1]).wrapping_add(self.add) & self.mask;
        x ^= x >> self.shift;
        x.wrapping_mul(self.mul[0]) & self.mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relabel_is_a_bijection() {
        for bits in [0, 1, 2, 5, 10, 16] {
            for seed in [0, 7] {
                let r = Relabel::new(bits, seed);
                let mut seen = vec![false; 1 << bits];
                for x in 0..1u64 << bits {
                    let y = r.apply(x) as usize;
                    assert!(!seen[y], "bits {bits}: {y} hit twice");
                    seen[y] = true;
                }
            }
        }
    }

    #[test]
    fn relabel_moves_ids() {
        let r = Relabel::new(20, 3);
        let fixed = (0..1u64 << 20).filter(|&x| r.apply(x) == x).count();
        assert!(fixed < 100, "{fixed} fixed points");
    }

    #[test]
    fn below_stays_below() {
        let mut rng = SplitMix::stream(1, 2);
        assert!((0..10_000).all(|_| rng.below(7) < 7));
    }
}
