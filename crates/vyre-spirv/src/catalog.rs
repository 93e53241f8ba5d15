//! Which SPIR-V modules exist: every kernel entry point of `shaders/wgsl/`,
//! built from the files vyre-wgpu builds it from, at each width a backend
//! may launch it with.

/// Workgroup widths every per-wave kernel is written at: the powers of two
/// up to 256 the engine's grid sizing picks from (it prefers 256 and halves
/// only when a device's limits or a huge slot count require it).
pub const KERNEL_WIDTHS: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// Kernels that always run as one invocation (`@workgroup_size(1)`).
pub const SINGLE_WIDTH: [u32; 1] = [1];

/// Width of the device-wide barrier probe.
pub const PROBE_WIDTH: u32 = 256;

/// One compute entry point and the widths it is written at.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Entry {
    /// The WGSL function name (also the SPIR-V entry point name).
    pub name: &'static str,
    /// Workgroup widths (the `WG` override) it is generated at.
    pub widths: &'static [u32],
}

/// One WGSL module: the files concatenated (in order, joined by a newline)
/// and the entry points compiled from them.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct ModuleSource {
    /// Files under `shaders/wgsl/`, in the order they are concatenated.
    pub files: &'static [&'static str],
    /// Entry points of the module.
    pub entries: &'static [Entry],
}

/// Prepended to every per-wave module, as `crates/vyre-wgpu/src/kernels.rs`
/// does.
const PRELUDE: [&str; 3] = ["common.wgsl", "level_sizing.wgsl", "chain.wgsl"];

macro_rules! with_prelude {
    ($($file:literal),+) => {
        &[PRELUDE[0], PRELUDE[1], PRELUDE[2], $($file),+]
    };
}

const fn entry(name: &'static str, widths: &'static [u32]) -> Entry {
    Entry { name, widths }
}

/// Every module written to `shaders/spirv/`.
pub const CATALOG: [ModuleSource; 9] = [
    ModuleSource {
        files: with_prelude!("noop.wgsl"),
        entries: &[entry("noop", &SINGLE_WIDTH)],
    },
    ModuleSource {
        files: with_prelude!("search_start.wgsl"),
        entries: &[
            entry("reset_state", &KERNEL_WIDTHS),
            entry("seed_sources", &KERNEL_WIDTHS),
        ],
    },
    ModuleSource {
        files: with_prelude!("convert.wgsl"),
        entries: &[
            entry("queue_to_bitmap", &KERNEL_WIDTHS),
            entry("bitmap_to_queue", &KERNEL_WIDTHS),
        ],
    },
    ModuleSource {
        files: with_prelude!("warp_sparse.wgsl"),
        entries: &[entry("warp_sparse", &KERNEL_WIDTHS)],
    },
    ModuleSource {
        files: with_prelude!("sparse.wgsl"),
        entries: &[
            entry("sparse_scan", &KERNEL_WIDTHS),
            entry("sparse", &KERNEL_WIDTHS),
        ],
    },
    ModuleSource {
        files: with_prelude!("hybrid.wgsl"),
        entries: &[
            entry("hybrid", &KERNEL_WIDTHS),
            entry("hybrid_pieces", &KERNEL_WIDTHS),
        ],
    },
    ModuleSource {
        files: with_prelude!("bottom_up.wgsl", "dense.wgsl"),
        entries: &[
            entry("dense", &KERNEL_WIDTHS),
            entry("dense_clear_next", &KERNEL_WIDTHS),
        ],
    },
    ModuleSource {
        files: with_prelude!("bottom_up.wgsl", "block_dense.wgsl"),
        entries: &[entry("block_dense", &KERNEL_WIDTHS)],
    },
    ModuleSource {
        files: &["probe.wgsl"],
        entries: &[entry("probe_barrier", &[PROBE_WIDTH])],
    },
];
