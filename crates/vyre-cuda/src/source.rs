//! The CUDA C source of every kernel, and the entry points it defines.

use crate::args::layout_asserts;

/// The kernel files of `shaders/cuda`, in the order they are joined into one
/// NVRTC program (later files use what earlier ones define; nothing is
/// `#include`d, so no include paths are needed).
const PARTS: [(&str, &str); 11] = [
    (
        "common.cuh",
        include_str!("../../../shaders/cuda/common.cuh"),
    ),
    (
        "cluster.cuh",
        include_str!("../../../shaders/cuda/cluster.cuh"),
    ),
    ("search.cu", include_str!("../../../shaders/cuda/search.cu")),
    (
        "top_down.cu",
        include_str!("../../../shaders/cuda/top_down.cu"),
    ),
    (
        "bottom_up.cu",
        include_str!("../../../shaders/cuda/bottom_up.cu"),
    ),
    ("fused.cu", include_str!("../../../shaders/cuda/fused.cu")),
    (
        "fused_local_timing.cuh",
        include_str!("../../../shaders/cuda/fused_local_timing.cuh"),
    ),
    (
        "fused_local.cu",
        include_str!("../../../shaders/cuda/fused_local.cu"),
    ),
    ("batch.cu", include_str!("../../../shaders/cuda/batch.cu")),
    (
        "batch_fused.cu",
        include_str!("../../../shaders/cuda/batch_fused.cu"),
    ),
    ("ranks.cu", include_str!("../../../shaders/cuda/ranks.cu")),
];

/// Every `extern "C" __global__` entry point of the program.
pub const KERNEL_NAMES: [&str; 28] = [
    "vyre_noop",
    "vyre_init_search",
    "vyre_seed_sources",
    "vyre_queue_to_bitmap",
    "vyre_bitmap_to_queue",
    "vyre_warp_sparse",
    "vyre_sparse",
    "vyre_hybrid",
    "vyre_dense",
    "vyre_block_dense",
    "vyre_fused",
    "vyre_fused_cluster",
    "vyre_batch_init",
    "vyre_batch_seed",
    "vyre_batch_words_to_queue",
    "vyre_batch_push",
    "vyre_batch_push_pieces",
    "vyre_batch_pull",
    "vyre_batch_warp_pull",
    "vyre_batch_fused",
    "vyre_rank_init",
    "vyre_rank_seed",
    "vyre_rank_expand",
    "vyre_rank_expand_pieces",
    "vyre_rank_merge",
    "vyre_rank_clear_sent",
    "vyre_rank_frontier_words",
    "vyre_rank_pull",
];

/// The whole program: every file of `shaders/cuda` joined, each preceded by
/// a `#line` directive so NVRTC's messages name the real file and line, and
/// after `common.cuh` the `static_assert`s that its shared structs match
/// their Rust mirrors (generated from `args.rs`).
#[must_use]
pub fn kernel_source() -> String {
    let mut source = String::new();
    let mut part = |name: &str, text: &str| {
        source.push_str(&format!("#line 1 \"{name}\"\n"));
        source.push_str(text);
        if !text.ends_with('\n') {
            source.push('\n');
        }
    };
    for (i, (name, text)) in PARTS.into_iter().enumerate() {
        part(name, text);
        if i == 0 {
            part("args.rs (generated)", &layout_asserts());
        }
    }
    source
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_point_is_defined_once_in_the_source() {
        let source = kernel_source();
        for name in KERNEL_NAMES {
            let defined = source
                .lines()
                .filter(|l| {
                    l.starts_with("extern \"C\" __global__") && l.contains(&format!(" {name}("))
                })
                .count();
            assert_eq!(defined, 1, "{name} should be defined exactly once");
        }
        let kernels = source
            .lines()
            .filter(|l| l.starts_with("extern \"C\" __global__"))
            .count();
        assert_eq!(
            kernels,
            KERNEL_NAMES.len(),
            "a kernel is missing from KERNEL_NAMES"
        );
    }

    #[test]
    fn files_are_joined_with_line_directives() {
        let source = kernel_source();
        assert!(source.starts_with("#line 1 \"common.cuh\"\n"));
        assert!(source.contains("#line 1 \"fused.cu\"\n"));
        let asserts = source
            .find("#line 1 \"args.rs (generated)\"\n")
            .expect("layout asserts");
        assert!(asserts > source.find("struct VyreArgs {").expect("VyreArgs"));
        assert!(asserts < source.find("#line 1 \"search.cu\"").expect("search.cu"));
    }
}
