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
}

/// Files every per-wave module starts with, in order.
pub const PER_WAVE_PRELUDE: [&str; 4] = [
    "base.wgsl",
    "common.wgsl",
    "level_sizing.wgsl",
    "chain.wgsl",
];

macro_rules! files {
    ($($file:literal),*) => {
        &[
            PER_WAVE_PRELUDE[0],
            PER_WAVE_PRELUDE[1],
            PER_WAVE_PRELUDE[2],
            PER_WAVE_PRELUDE[3],
            $($file),*
        ]
    };
}

/// Every file under `shaders/wgsl/` a module uses, with its text.
const SOURCES: [(&str, &str); 14] = [
    ("base.wgsl", include_str!("../../../shaders/wgsl/base.wgsl")),
    (
        "common.wgsl",
        include_str!("../../../shaders/wgsl/common.wgsl"),
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
    pub const ALL: [Self; 9] = [
        Self::Noop,
        Self::SearchStart,
        Self::Convert,
        Self::WarpSparse,
        Self::Sparse,
        Self::Hybrid,
        Self::Dense,
        Self::BlockDense,
        Self::Fused,
    ];

    /// Files under `shaders/wgsl/` the module is built from, in order.
    #[must_use]
    pub fn files(self) -> &'static [&'static str] {
        match self {
            Self::Noop => &["noop.wgsl"],
            Self::SearchStart => files!("search_start.wgsl"),
            Self::Convert => files!("convert.wgsl"),
            Self::WarpSparse => files!("warp_sparse.wgsl"),
            Self::Sparse => files!("sparse.wgsl"),
            Self::Hybrid => files!("hybrid.wgsl"),
            Self::Dense => files!("bottom_up.wgsl", "dense.wgsl"),
            Self::BlockDense => files!("bottom_up.wgsl", "block_dense.wgsl"),
            Self::Fused => &["base.wgsl", "fused.wgsl"],
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
        }
    }

    /// The WGSL function name (also the SPIR-V entry point).
    #[must_use]
    pub fn entry_point(self) -> &'static str {
        match self {
            Self::Noop => "noop",
            Self::ResetState => "reset_state",
            Self::SeedSources => "seed_sources",
            Self::QueueToBitmap => "queue_to_bitmap",
            Self::BitmapToQueue => "bitmap_to_queue",
            Self::WarpSparse => "warp_sparse",
            Self::SparseScan => "sparse_scan",
            Self::Sparse => "sparse",
            Self::Hybrid => "hybrid",
            Self::HybridPieces => "hybrid_pieces",
            Self::Dense => "dense",
            Self::DenseClearNext => "dense_clear_next",
            Self::BlockDense => "block_dense",
            Self::Fused => "fused",
        }
    }

    /// Whether it binds nothing (so it is built without the state layout).
    #[must_use]
    pub fn binds_nothing(self) -> bool {
        self == Self::Noop
    }

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
}
