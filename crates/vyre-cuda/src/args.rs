//! The host side of what kernels share with the host: the argument block
//! every kernel takes and the level record kernels write into mapped host
//! memory, each defined once here. [`shared_struct!`] makes the Rust struct
//! and the list of its fields from one declaration, and [`layout_asserts`]
//! turns that list into `static_assert`s on the C structs of
//! `shaders/cuda/common.cuh`, compiled with the kernels: a field that moves
//! on either side fails the NVRTC compile.

use std::fmt::Write;

use cudarc::driver::DeviceRepr;
use vyre_driver::backend::{CONTROL_BYTES, LEVEL_RECORD_BYTES};

/// Where the fields of a `#[repr(C)]` struct lie, and the C struct it
/// mirrors.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The C struct's name in `common.cuh`.
    pub c_name: &'static str,
    /// `size_of` the Rust struct.
    pub size: usize,
    /// `(name, offset, size)` of every field, in declaration order.
    pub fields: &'static [(&'static str, usize, usize)],
}

impl Layout {
    /// Whether the fields follow each other without gaps and fill the struct
    /// exactly, so that listing them lists all of it.
    const fn is_packed(&self) -> bool {
        let mut end = 0;
        let mut i = 0;
        while i < self.fields.len() {
            if self.fields[i].1 != end {
                return false;
            }
            end += self.fields[i].2;
            i += 1;
        }
        end == self.size
    }
}

/// A `#[repr(C)]` struct shared with the kernels, and its [`Layout`]
/// (`Self::LAYOUT`), from one list of fields.
macro_rules! shared_struct {
    (
        $(#[$meta:meta])*
        $name:ident mirrors $c_name:literal {
            $($(#[$field_meta:meta])* $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
        pub(crate) struct $name {
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $name {
            /// Where every field lies, for the kernels' `static_assert`s.
            pub(crate) const LAYOUT: Layout = Layout {
                c_name: $c_name,
                size: std::mem::size_of::<$name>(),
                fields: &[$((
                    stringify!($field),
                    std::mem::offset_of!($name, $field),
                    std::mem::size_of::<$ty>(),
                )),*],
            };
        }

        const _: () = assert!($name::LAYOUT.is_packed(), "shared structs have no padding");
    };
}

shared_struct! {
    /// `VyreArgs`: device pointers and per-launch scalars.
    KernelArgs mirrors "VyreArgs" {
        out_offsets: u64,
        out_targets: u64,
        in_offsets: u64,
        in_targets: u64,
        depth: u64,
        parent: u64,
        queue_in: u64,
        queue_out: u64,
        bitmap_in: u64,
        bitmap_out: u64,
        control: u64,
        /// Mapped host memory: the level records the host reads.
        history: u64,
        /// Device memory of the same size, where the fused kernel keeps its
        /// records while it runs (copied to `history` as it exits).
        level_log: u64,
        work: u64,
        /// Mapped host memory: a word the host sets when a command passes
        /// its deadline; kernels that wait for other blocks stop then.
        abort_flag: u64,
        band_max_frontier_edges: u64,
        /// Frontier vertices above which a chain runs no later level (a
        /// `u32` count, widened so the block stays packed).
        band_max_frontier_vertices: u64,
        work_words: u64,
        vertex_count: u32,
        level: u32,
        history_index: u32,
        epoch: u32,
        max_levels: u32,
        aux: u32,
        /// Largest out-degree of the graph, saturated at `u32::MAX`: below
        /// `VYRE_LIGHT_DEGREE` (32) the fused kernel needs no heavy-vertex
        /// pieces.
        max_out_degree: u32,
        /// Edges a thread of an edge-balanced level is given (the command's
        /// `LevelSizing::edges_per_lane`); 0 for the other topologies.
        edges_per_lane: u32,
        /// A batch pass: the lanes that have reached each vertex (0 for a
        /// single search, as are the batch fields below).
        seen: u64,
        /// The frontier words this level expands.
        words_in: u64,
        /// The next frontier's words.
        words_out: u64,
        /// `BATCH_LANES` counters per level of the command.
        lane_counts: u64,
        /// Kept depths, vertex-major, or 0.
        lane_depths: u64,
        lane_mask: u64,
        lanes: u32,
        /// Vertices from here on have no in-edges: bottom-up levels only
        /// write their (empty) next-frontier words. Relabelling by degree
        /// puts a power-law graph's isolated vertices there.
        in_edge_end: u32,
        /// Mapped host memory where a search's per-wave levels write when
        /// they started and ended (two `u64` per history entry), and a fused
        /// launch when it did (entry 0); 0 where the host times the command
        /// with events (batch passes).
        level_times: u64,
    }
}

shared_struct! {
    /// `VyreLevelRecord`: one level of a command, as the kernels record it.
    DeviceRecord mirrors "VyreLevelRecord" {
        level: u32,
        frontier_in: u32,
        frontier_out: u32,
        /// The command that wrote the record, stored last.
        epoch: u32,
        frontier_out_edges: u64,
        edges_examined: u64,
    }
}

shared_struct! {
    /// `VyreRankArgs`: one rank's buffers and scalars (`ranks.cu`).
    RankArgs mirrors "VyreRankArgs" {
        out_offsets: u64,
        out_targets: u64,
        in_offsets: u64,
        in_targets: u64,
        depth: u64,
        parent: u64,
        queue_in: u64,
        queue_out: u64,
        /// `RANK_COUNTS` words: the level's counts, then the frontier length.
        counts: u64,
        sent: u64,
        outbox: u64,
        outbox_len: u64,
        outbox_start: u64,
        starts: u64,
        pairs: u64,
        bitmap: u64,
        block: u64,
        work: u64,
        pair_count: u64,
        work_words: u64,
        range_start: u32,
        range_end: u32,
        ranks: u32,
        level: u32,
    }
}

const _: () = assert!(std::mem::size_of::<DeviceRecord>() as u64 == LEVEL_RECORD_BYTES);

// SAFETY: `KernelArgs` is `repr(C)`, plain integers with no padding (checked
// above), and matches `VyreArgs` field for field (the static_asserts of
// `layout_asserts`, compiled with the kernels), so its bytes are a valid
// kernel parameter.
unsafe impl DeviceRepr for KernelArgs {}

// SAFETY: as for `KernelArgs`: `repr(C)` integers without padding, matching
// `VyreRankArgs` field for field (asserted when the kernels compile).
unsafe impl DeviceRepr for RankArgs {}

/// `u32` words of the control block.
pub(crate) const CONTROL_WORDS: usize = (CONTROL_BYTES / 4) as usize;

/// The layouts the kernels check.
const SHARED: [Layout; 3] = [KernelArgs::LAYOUT, DeviceRecord::LAYOUT, RankArgs::LAYOUT];

/// `VYRE_OFFSETOF(T, f)`, a constant expression on every NVRTC: the
/// `__builtin_offsetof` builtin exists from NVRTC 13.4; earlier front ends
/// evaluate the classic null-pointer form at compile time through
/// `__INTADDR__`. `VYRE_OFFSETOF_INTADDR` forces the second form, so a test
/// can compile both on one NVRTC.
const OFFSETOF_MACRO: &str = "\
#if !defined(VYRE_OFFSETOF_INTADDR) && (__CUDACC_VER_MAJOR__ > 13 || (__CUDACC_VER_MAJOR__ == 13 && __CUDACC_VER_MINOR__ >= 4))
#define VYRE_OFFSETOF(T, f) __builtin_offsetof(T, f)
#else
#define VYRE_OFFSETOF(T, f) ((unsigned long long)__INTADDR__(&(((T *)0)->f)))
#endif
";

/// C `static_assert`s that each struct of `layouts` has the size and field
/// offsets of its Rust mirror.
pub(crate) fn layout_asserts_of(layouts: &[Layout]) -> String {
    let mut out = String::from(OFFSETOF_MACRO);
    for layout in layouts {
        let c = layout.c_name;
        let _ = writeln!(
            out,
            "static_assert(sizeof({c}) == {}, \"{c} is {} bytes in crates/vyre-cuda/src/args.rs\");",
            layout.size, layout.size
        );
        for (field, offset, _) in layout.fields {
            let _ = writeln!(
                out,
                "static_assert(VYRE_OFFSETOF({c}, {field}) == {offset}, \"{c}.{field} is at byte {offset} in crates/vyre-cuda/src/args.rs\");"
            );
        }
    }
    out
}

/// The `static_assert`s of every struct shared with the kernels, compiled
/// after `common.cuh`.
pub(crate) fn layout_asserts() -> String {
    layout_asserts_of(&SHARED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_of_both_structs_is_asserted() {
        let asserts = layout_asserts();
        for layout in SHARED {
            for (field, offset, _) in layout.fields {
                let line = format!(
                    "static_assert(VYRE_OFFSETOF({}, {field}) == {offset},",
                    layout.c_name
                );
                assert!(asserts.contains(&line), "{line}");
            }
        }
        assert_eq!(
            asserts
                .lines()
                .filter(|l| l.starts_with("static_assert"))
                .count(),
            3 + KernelArgs::LAYOUT.fields.len()
                + DeviceRecord::LAYOUT.fields.len()
                + RankArgs::LAYOUT.fields.len()
        );
        assert!(asserts.contains("static_assert(sizeof(VyreArgs) == 240,"));
        assert!(asserts.contains("static_assert(sizeof(VyreLevelRecord) == 32,"));
        assert!(asserts.contains("static_assert(sizeof(VyreRankArgs) == 176,"));
    }

    #[test]
    fn layouts_with_a_gap_or_a_missing_field_are_not_packed() {
        assert!(KernelArgs::LAYOUT.is_packed() && DeviceRecord::LAYOUT.is_packed());
        assert!(RankArgs::LAYOUT.is_packed());
        let gap = Layout {
            c_name: "X",
            size: 16,
            fields: &[("a", 0, 4), ("b", 8, 8)],
        };
        assert!(!gap.is_packed());
        let short = Layout {
            c_name: "X",
            size: 16,
            fields: &[("a", 0, 8)],
        };
        assert!(!short.is_packed());
    }
}
