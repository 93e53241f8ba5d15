//! The kernels' entry points and the WGSL files each is built from (the
//! files are concatenated in order), as both backends build them: wgpu
//! compiles the text, vyre-spirv compiles it to SPIR-V.

use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

/// One compute entry point.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, PartialOrd, Ord)]
pub enum Kernel {
    /// The empty kernel that times launch overhead.
    Noop,
    /// Every vertex unreached.
    ResetState,
    /// The sources at depth 0.
    SeedSources,
    /// Frontier queue to bitmap.
    QueueToBitmap,
    /// Frontier bitmap to queue.
    BitmapToQueue,
    /// WarpSparseFrontier's level.
    WarpSparse,
    /// SparseFrontier's chunk scan.
    SparseScan,
    /// SparseFrontier's level.
    Sparse,
    /// HybridFrontier's level.
    Hybrid,
    /// HybridFrontier's heavy-vertex pieces.
    HybridPieces,
    /// DenseFrontier's level.
    Dense,
    /// DenseFrontier's clearing of the next bitmap.
    DenseClearNext,
    /// BlockDenseFrontier's level.
    BlockDense,
    /// FusedWave: many levels in one persistent launch (and the
    /// co-residency probe).
    Fused,
    /// Batch: the words' bitmap form to the queue form.
    BatchToQueue,
    /// Batch: the end of a top-down level (lane counts, kept depths, the
    /// expanded frontier's words cleared).
    BatchPushEnd,
    /// Batch: WarpSparseFrontier's level.
    BatchWarpSparse,
    /// Batch: SparseFrontier's chunk scan.
    BatchSparseScan,
    /// Batch: SparseFrontier's level.
    BatchSparse,
    /// Batch: HybridFrontier's level.
    BatchHybrid,
    /// Batch: HybridFrontier's heavy-vertex pieces.
    BatchHybridPieces,
    /// Batch: DenseFrontier's level.
    BatchDense,
    /// Batch: BlockDenseFrontier's level.
    BatchBlockDense,
}

/// A module: the files one or more entry points are built from.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, PartialOrd, Ord)]
pub enum Module {
    /// `noop.wgsl` alone.
    Noop,
    /// The search-start kernels.
    SearchStart,
    /// Frontier conversions.
    Convert,
    /// WarpSparseFrontier.
    WarpSparse,
    /// SparseFrontier.
    Sparse,
    /// HybridFrontier.
    Hybrid,
    /// DenseFrontier.
    Dense,
    /// BlockDenseFrontier.
    BlockDense,
    /// FusedWave.
    Fused,
    /// A batch pass's frontier bookkeeping.
    BatchFrontier,
    /// A batch pass's WarpSparseFrontier (`warp_sparse.wgsl`).
    BatchWarpSparse,
    /// A batch pass's SparseFrontier (`sparse.wgsl`).
    BatchSparse,
    /// A batch pass's HybridFrontier (`hybrid.wgsl`).
    BatchHybrid,
    /// A batch pass's bottom-up levels.
    BatchPull,
}

/// Files every per-wave module of a search starts with, in order.
pub const PER_WAVE_PRELUDE: [&str; 5] = [
    "base.wgsl",
    "common.wgsl",
    "visit.wgsl",
    "level_sizing.wgsl",
    "chain.wgsl",
];

/// Files every module of a batch pass starts with: the search's prelude
/// with the batch's visits (`batch.wgsl`) instead of the search's, so that
/// the top-down kernel files serve both.
pub const BATCH_PRELUDE: [&str; 5] = [
    "base.wgsl",
    "common.wgsl",
    "batch.wgsl",
    "level_sizing.wgsl",
    "chain.wgsl",
];

macro_rules! files {
    ($prelude:ident; $($file:literal),*) => {
        &[
            $prelude[0],
            $prelude[1],
            $prelude[2],
            $prelude[3],
            $prelude[4],
            $($file),*
        ]
    };
}

/// Every file under `shaders/wgsl/` a module uses, with its text.
const SOURCES: [(&str, &str); 19] = [
    ("base.wgsl", include_str!("../../../shaders/wgsl/base.wgsl")),
    (
        "common.wgsl",
        include_str!("../../../shaders/wgsl/common.wgsl"),
    ),
    (
        "visit.wgsl",
        include_str!("../../../shaders/wgsl/visit.wgsl"),
    ),
    (
        "batch.wgsl",
        include_str!("../../../shaders/wgsl/batch.wgsl"),
    ),
    (
        "batch_frontier.wgsl",
        include_str!("../../../shaders/wgsl/batch_frontier.wgsl"),
    ),
    (
        "batch_pull.wgsl",
        include_str!("../../../shaders/wgsl/batch_pull.wgsl"),
    ),
    (
        "level_sizing.wgsl",
        include_str!("../../../shaders/wgsl/level_sizing.wgsl"),
    ),
    (
        "chain.wgsl",
        include_str!("../../../shaders/wgsl/chain.wgsl"),
    ),
    ("noop.wgsl", include_str!("../../../shaders/wgsl/noop.wgsl")),
    (
        "search_start.wgsl",
        include_str!("../../../shaders/wgsl/search_start.wgsl"),
    ),
    (
        "convert.wgsl",
        include_str!("../../../shaders/wgsl/convert.wgsl"),
    ),
    (
        "warp_sparse.wgsl",
        include_str!("../../../shaders/wgsl/warp_sparse.wgsl"),
    ),
    (
        "sparse.wgsl",
        include_str!("../../../shaders/wgsl/sparse.wgsl"),
    ),
    (
        "hybrid.wgsl",
        include_str!("../../../shaders/wgsl/hybrid.wgsl"),
    ),
    (
        "bottom_up.wgsl",
        include_str!("../../../shaders/wgsl/bottom_up.wgsl"),
    ),
    (
        "dense.wgsl",
        include_str!("../../../shaders/wgsl/dense.wgsl"),
    ),
    (
        "block_dense.wgsl",
        include_str!("../../../shaders/wgsl/block_dense.wgsl"),
    ),
    (
        "fused.wgsl",
        include_str!("../../../shaders/wgsl/fused.wgsl"),
    ),
    (
        "fused_local.wgsl",
        include_str!("../../../shaders/wgsl/fused_local.wgsl"),
    ),
];

/// The text of `shaders/wgsl/<file>` as this build includes it (`None` for
/// a file no module uses).
#[must_use]
pub fn source_file(file: &str) -> Option<&'static str> {
    SOURCES
        .iter()
        .find(|(name, _)| *name == file)
        .map(|(_, text)| *text)
}

impl Module {
    /// Every module, in a fixed order.
    pub const ALL: [Self; 14] = [
        Self::Noop,
        Self::SearchStart,
        Self::Convert,
        Self::WarpSparse,
        Self::Sparse,
        Self::Hybrid,
        Self::Dense,
        Self::BlockDense,
        Self::Fused,
        Self::BatchFrontier,
        Self::BatchWarpSparse,
        Self::BatchSparse,
        Self::BatchHybrid,
        Self::BatchPull,
    ];

    /// Files under `shaders/wgsl/` the module is built from, in order.
    #[must_use]
    pub fn files(self) -> &'static [&'static str] {
        match self {
            Self::Noop => &["noop.wgsl"],
            Self::SearchStart => files!(PER_WAVE_PRELUDE; "search_start.wgsl"),
            Self::Convert => files!(PER_WAVE_PRELUDE; "convert.wgsl"),
            Self::WarpSparse => files!(PER_WAVE_PRELUDE; "warp_sparse.wgsl"),
            Self::Sparse => files!(PER_WAVE_PRELUDE; "sparse.wgsl"),
            Self::Hybrid => files!(PER_WAVE_PRELUDE; "hybrid.wgsl"),
            Self::Dense => files!(PER_WAVE_PRELUDE; "bottom_up.wgsl", "dense.wgsl"),
            Self::BlockDense => files!(PER_WAVE_PRELUDE; "bottom_up.wgsl", "block_dense.wgsl"),
            Self::Fused => &["base.wgsl", "fused.wgsl", "fused_local.wgsl"],
            Self::BatchFrontier => files!(BATCH_PRELUDE; "batch_frontier.wgsl"),
            Self::BatchWarpSparse => files!(BATCH_PRELUDE; "warp_sparse.wgsl"),
            Self::BatchSparse => files!(BATCH_PRELUDE; "sparse.wgsl"),
            Self::BatchHybrid => files!(BATCH_PRELUDE; "hybrid.wgsl"),
            Self::BatchPull => files!(BATCH_PRELUDE; "batch_pull.wgsl"),
        }
    }

    /// The module's WGSL: its files joined by newlines.
    #[must_use]
    pub fn source(self) -> String {
        self.files()
            .iter()
            .map(|file| source_file(file).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Its entry points.
    #[must_use]
    pub fn kernels(self) -> &'static [Kernel] {
        match self {
            Self::Noop => &[Kernel::Noop],
            Self::SearchStart => &[Kernel::ResetState, Kernel::SeedSources],
            Self::Convert => &[Kernel::QueueToBitmap, Kernel::BitmapToQueue],
            Self::WarpSparse => &[Kernel::WarpSparse],
            Self::Sparse => &[Kernel::SparseScan, Kernel::Sparse],
            Self::Hybrid => &[Kernel::Hybrid, Kernel::HybridPieces],
            Self::Dense => &[Kernel::Dense, Kernel::DenseClearNext],
            Self::BlockDense => &[Kernel::BlockDense],
            Self::Fused => &[Kernel::Fused],
            Self::BatchFrontier => &[Kernel::BatchToQueue, Kernel::BatchPushEnd],
            Self::BatchWarpSparse => &[Kernel::BatchWarpSparse],
            Self::BatchSparse => &[Kernel::BatchSparseScan, Kernel::BatchSparse],
            Self::BatchHybrid => &[Kernel::BatchHybrid, Kernel::BatchHybridPieces],
            Self::BatchPull => &[Kernel::BatchDense, Kernel::BatchBlockDense],
        }
    }
}

impl Kernel {
    /// The module the entry point is in.
    #[must_use]
    pub fn module(self) -> Module {
        match self {
            Self::Noop => Module::Noop,
            Self::ResetState | Self::SeedSources => Module::SearchStart,
            Self::QueueToBitmap | Self::BitmapToQueue => Module::Convert,
            Self::WarpSparse => Module::WarpSparse,
            Self::SparseScan | Self::Sparse => Module::Sparse,
            Self::Hybrid | Self::HybridPieces => Module::Hybrid,
            Self::Dense | Self::DenseClearNext => Module::Dense,
            Self::BlockDense => Module::BlockDense,
            Self::Fused => Module::Fused,
            Self::BatchToQueue | Self::BatchPushEnd => Module::BatchFrontier,
            Self::BatchWarpSparse => Module::BatchWarpSparse,
            Self::BatchSparseScan | Self::BatchSparse => Module::BatchSparse,
            Self::BatchHybrid | Self::BatchHybridPieces => Module::BatchHybrid,
            Self::BatchDense | Self::BatchBlockDense => Module::BatchPull,
        }
    }

    /// The WGSL function name (also the SPIR-V entry point). A batch
    /// pass's top-down kernels are the search's functions, built with the
    /// batch's prelude.
    #[must_use]
    pub fn entry_point(self) -> &'static str {
        match self {
            Self::Noop => "noop",
            Self::ResetState => "reset_state",
            Self::SeedSources => "seed_sources",
            Self::QueueToBitmap => "queue_to_bitmap",
            Self::BitmapToQueue => "bitmap_to_queue",
            Self::WarpSparse | Self::BatchWarpSparse => "warp_sparse",
            Self::SparseScan | Self::BatchSparseScan => "sparse_scan",
            Self::Sparse | Self::BatchSparse => "sparse",
            Self::Hybrid | Self::BatchHybrid => "hybrid",
            Self::HybridPieces | Self::BatchHybridPieces => "hybrid_pieces",
            Self::Dense => "dense",
            Self::DenseClearNext => "dense_clear_next",
            Self::BlockDense => "block_dense",
            Self::Fused => "fused",
            Self::BatchToQueue => "batch_to_queue",
            Self::BatchPushEnd => "batch_push_end",
            Self::BatchDense => "batch_dense",
            Self::BatchBlockDense => "batch_block_dense",
        }
    }

    /// The kernel's name among all of them (the SPIR-V file's stem): the
    /// entry point, `batch_` before it for a batch pass's kernel.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::BatchWarpSparse => "batch_warp_sparse",
            Self::BatchSparseScan => "batch_sparse_scan",
            Self::BatchSparse => "batch_sparse",
            Self::BatchHybrid => "batch_hybrid",
            Self::BatchHybridPieces => "batch_hybrid_pieces",
            other => other.entry_point(),
        }
    }

    /// Whether it binds a batch pass's state (bind group 1) too.
    #[must_use]
    pub fn is_batch(self) -> bool {
        matches!(
            self.module(),
            Module::BatchFrontier
                | Module::BatchWarpSparse
                | Module::BatchSparse
                | Module::BatchHybrid
                | Module::BatchPull
        )
    }

    /// The batch pass's form of a search's per-wave kernel (`None` for the
    /// ones a batch pass does without: a queue needs no bitmap, and a
    /// bottom-up batch level writes every word itself).
    #[must_use]
    pub fn batch_form(self) -> Option<Self> {
        match self {
            Self::BitmapToQueue => Some(Self::BatchToQueue),
            Self::WarpSparse => Some(Self::BatchWarpSparse),
            Self::SparseScan => Some(Self::BatchSparseScan),
            Self::Sparse => Some(Self::BatchSparse),
            Self::Hybrid => Some(Self::BatchHybrid),
            Self::HybridPieces => Some(Self::BatchHybridPieces),
            Self::Dense => Some(Self::BatchDense),
            Self::BlockDense => Some(Self::BatchBlockDense),
            _ => None,
        }
    }

    /// Whether it binds nothing (so it is built without the state layout).
    #[must_use]
    pub fn binds_nothing(self) -> bool {
        self == Self::Noop
    }

    /// Every kernel a single search's per-wave commands dispatch at the
    /// command's width: the frontier conversions and each per-wave
    /// topology's level kernels (the search's start runs at its own width,
    /// the fused kernel at the one its probe verified).
    pub const PER_WAVE: [Self; 10] = [
        Self::QueueToBitmap,
        Self::BitmapToQueue,
        Self::WarpSparse,
        Self::SparseScan,
        Self::Sparse,
        Self::Hybrid,
        Self::HybridPieces,
        Self::Dense,
        Self::DenseClearNext,
        Self::BlockDense,
    ];

    /// The kernel that runs one level of a per-wave `topology` (`None` for
    /// `FusedWave`, which runs [`Kernel::Fused`] for many levels).
    #[must_use]
    pub fn for_topology(topology: MegakernelExecutionTopology) -> Option<Self> {
        match topology {
            MegakernelExecutionTopology::WarpSparseFrontier => Some(Self::WarpSparse),
            MegakernelExecutionTopology::SparseFrontier => Some(Self::Sparse),
            MegakernelExecutionTopology::HybridFrontier => Some(Self::Hybrid),
            MegakernelExecutionTopology::DenseFrontier => Some(Self::Dense),
            MegakernelExecutionTopology::BlockDenseFrontier => Some(Self::BlockDense),
            MegakernelExecutionTopology::FusedWave => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_is_in_its_module_and_every_file_is_included() {
        for module in Module::ALL {
            for &kernel in module.kernels() {
                assert_eq!(kernel.module(), module);
                assert!(
                    module
                        .source()
                        .contains(&format!("fn {}(", kernel.entry_point())),
                    "{kernel:?}"
                );
            }
            for file in module.files() {
                assert!(source_file(file).is_some(), "{file}");
            }
        }
        assert!(source_file("probe.wgsl").is_none());
    }

    #[test]
    fn the_per_wave_list_holds_every_kernel_a_search_dispatches_at_its_width() {
        let single: Vec<Kernel> = Module::ALL
            .iter()
            .flat_map(|m| m.kernels().iter().copied())
            .filter(|k| !k.is_batch())
            .collect();
        for kernel in single {
            let elsewhere = matches!(
                kernel,
                Kernel::Noop | Kernel::ResetState | Kernel::SeedSources | Kernel::Fused
            );
            assert_ne!(Kernel::PER_WAVE.contains(&kernel), elsewhere, "{kernel:?}");
        }
    }

    #[test]
    fn batch_kernels_have_names_of_their_own_and_bind_the_batch_state() {
        let all: Vec<Kernel> = Module::ALL
            .iter()
            .flat_map(|m| m.kernels().iter().copied())
            .collect();
        let mut names: Vec<&str> = all.iter().map(|k| k.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "{names:?}");
        for kernel in all {
            let batch_prelude = kernel.module().files().contains(&"batch.wgsl");
            assert_eq!(kernel.is_batch(), batch_prelude, "{kernel:?}");
            assert_eq!(kernel.is_batch(), kernel.name().starts_with("batch_"));
            if let Some(batch) = kernel.batch_form() {
                assert!(!kernel.is_batch() && batch.is_batch(), "{kernel:?}");
            }
        }
    }
}
