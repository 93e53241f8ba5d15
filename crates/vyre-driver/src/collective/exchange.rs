//! [`ExchangeKind`]: how ranks share a level's frontier.

use crate::backend::{FrontierForm, frontier_form_of};
use crate::megakernel_execution::MegakernelExecutionTopology;

/// How the ranks of a partitioned device exchange a level's frontier.
///
/// Owner-computes ties the exchange to the direction: a top-down level
/// (queue topologies) sends each discovered vertex with its parent to its
/// owner, per-destination lists through an all-to-all, which moves 8 bytes
/// per discovery; a bottom-up level (bitmap topologies) needs the whole
/// frontier on every rank, each rank's owned bitmap words through an
/// all-gather, which moves `n / 8` bytes whatever the frontier. The seed
/// policy's density picks the topology, so it picks the exchange too, and
/// with the same threshold: dense frontiers go bitmap.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum ExchangeKind {
    /// Per-destination `(vertex, parent)` lists, all-to-all.
    Lists,
    /// Owned frontier bitmap words, all-gather.
    Bitmap,
}

impl ExchangeKind {
    /// The exchange a level of `topology` uses (the one place this is
    /// decided).
    #[must_use]
    pub fn of(topology: MegakernelExecutionTopology) -> Self {
        match frontier_form_of(topology) {
            FrontierForm::Queue => Self::Lists,
            FrontierForm::Bitmap => Self::Bitmap,
        }
    }

    /// Short name for traces: `lists` or `bitmap`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Lists => "lists",
            Self::Bitmap => "bitmap",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MegakernelExecutionTopology as T;

    #[test]
    fn queue_topologies_send_lists_and_bitmap_topologies_gather_bitmaps() {
        for t in [
            T::WarpSparseFrontier,
            T::SparseFrontier,
            T::HybridFrontier,
            T::FusedWave,
        ] {
            assert_eq!(ExchangeKind::of(t), ExchangeKind::Lists, "{t:?}");
        }
        for t in [T::DenseFrontier, T::BlockDenseFrontier] {
            assert_eq!(ExchangeKind::of(t), ExchangeKind::Bitmap, "{t:?}");
        }
        assert_eq!(ExchangeKind::Lists.name(), "lists");
        assert_eq!(ExchangeKind::Bitmap.name(), "bitmap");
    }
}
