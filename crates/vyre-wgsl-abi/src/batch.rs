//! What a batch pass's kernels (`shaders/wgsl/batch*.wgsl`) and their host
//! agree on: the control words `begin_batch` writes, the state it seeds,
//! the dispatches each level records, where the lane counts are read back,
//! and how kept depths are stored.

use vyre_driver::backend::{
    BATCH_LANES, BackendError, BatchLayout, BatchSources, DeviceLayout, FrontierForm, LaneCounts,
    WaveCommand, frontier_form_of,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

use crate::kernels::Kernel;
use crate::level_steps::{CommandPlan, GraphFacts};
use crate::records::readback_bytes;

/// Lanes in use, low half (`batch.wgsl`'s `C_BATCH_MASK_LO`).
pub const C_BATCH_MASK_LO: usize = 32;
/// Lanes in use, high half.
pub const C_BATCH_MASK_HI: usize = 33;
/// Lanes of the pass: kept depths per vertex.
pub const C_BATCH_LANES: usize = 34;
/// 1 when the pass keeps depths.
pub const C_BATCH_KEEP: usize = 35;
/// First word of the kept depths in the tallies: after the lane counts of
/// a command's levels.
pub const C_BATCH_DEPTHS_AT: usize = 36;
/// Words `begin_batch` writes from [`C_BATCH_MASK_LO`] on; no command
/// rewrites them.
pub const BATCH_WORDS: usize = 5;

const _: () = {
    assert!(C_BATCH_MASK_LO >= crate::control::HOST_WORDS);
    assert!(C_BATCH_DEPTHS_AT == C_BATCH_MASK_LO + BATCH_WORDS - 1);
    assert!((C_BATCH_MASK_LO + BATCH_WORDS) as u64 * 4 <= vyre_driver::backend::CONTROL_BYTES);
};

/// Bytes of one level's lane counts.
pub const LANE_COUNT_BYTES: u64 = BATCH_LANES as u64 * 4;

/// The batch words of a pass from `sources` with `layout`.
#[must_use]
pub fn batch_words(sources: &BatchSources, layout: &BatchLayout) -> [u32; BATCH_WORDS] {
    let mask = sources.lane_mask();
    [
        mask as u32,
        (mask >> 32) as u32,
        sources.lanes(),
        u32::from(layout.keep_depths),
        depths_at(layout),
    ]
}

/// Bytes of the tallies buffer: the layout's lane history, then its kept
/// depths.
#[must_use]
pub fn tallies_bytes(layout: &BatchLayout) -> u64 {
    layout.lane_history_bytes() + layout.depth_bytes()
}

/// Index of the first kept depth in the tallies.
#[must_use]
pub fn depths_at(layout: &BatchLayout) -> u32 {
    u32::try_from(layout.lane_history_bytes() / 4).unwrap_or(u32::MAX)
}

/// Check that `layout` is a batch layout for `sources` over the uploaded
/// `graph` layout: same vertices, the sources' lanes, and a lane history
/// for the longest command.
///
/// # Errors
///
/// An `InvalidRequest` error naming the mismatch.
pub fn check_batch_layout(
    layout: &BatchLayout,
    sources: &BatchSources,
    graph: &DeviceLayout,
) -> Result<(), BackendError> {
    let mismatch = |what: String| {
        Err(BackendError::new(format!(
            "the batch layout does not fit this pass: {what}. Fix: build the BatchLayout from the uploaded graph's DeviceLayout and the pass's BatchSources."
        )))
    };
    if layout.vertex_count != graph.vertex_count {
        return mismatch(format!(
            "it has {} vertices, the uploaded graph {}",
            layout.vertex_count, graph.vertex_count
        ));
    }
    if layout.lanes != sources.lanes() {
        return mismatch(format!(
            "it has {} lanes, the sources {}",
            layout.lanes,
            sources.lanes()
        ));
    }
    if layout.max_levels_per_command != graph.max_levels_per_command {
        return mismatch(format!(
            "its lane history holds {} levels a command, the graph's layout {}",
            layout.max_levels_per_command, graph.max_levels_per_command
        ));
    }
    Ok(())
}

/// Check that a pass with `layout` keeps depths and `len` words hold them.
///
/// # Errors
///
/// An `InvalidRequest` error saying which.
pub fn check_depth_output(layout: &BatchLayout, len: usize) -> Result<(), BackendError> {
    if !layout.keep_depths {
        return Err(BackendError::new(
            "this batch pass keeps no depths. Fix: begin the batch with keep_depths (BatchLayout::keep_depths).",
        ));
    }
    let expected = u64::from(layout.vertex_count) * u64::from(layout.lanes);
    if len as u64 != expected {
        return Err(BackendError::new(format!(
            "the output holds {len} words but the pass has {expected} (vertices x lanes). Fix: pass a slice of vertex_count x lanes words."
        )));
    }
    Ok(())
}

/// What `begin_batch` puts on the device after clearing the batch state and
/// the stamps: the first queue, each source's lane word (in the seen words
/// and word array 0), and the tallies' words holding the sources' kept
/// depths (depth 0, stored as 1).
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct BatchSeeds {
    /// The distinct sources, in order of first appearance (queue 0).
    pub queue: Vec<u32>,
    /// Each distinct source with the lanes that start on it.
    pub words: Vec<(u32, u64)>,
    /// Indices into the tallies of each lane's depth of its source (when
    /// kept).
    pub depth_slots: Vec<u64>,
}

impl BatchSeeds {
    /// The seeds of a pass from `sources` with `layout`.
    #[must_use]
    pub fn of(sources: &BatchSources, layout: &BatchLayout) -> Self {
        let mut seeds = Self::default();
        let lanes = u64::from(sources.lanes());
        let first = u64::from(depths_at(layout));
        for (j, &s) in sources.ids().iter().enumerate() {
            let bit = 1u64 << j;
            match seeds.words.iter_mut().find(|(v, _)| *v == s) {
                Some((_, mask)) => *mask |= bit,
                None => {
                    seeds.queue.push(s);
                    seeds.words.push((s, bit));
                }
            }
            if layout.keep_depths {
                seeds
                    .depth_slots
                    .push(first + u64::from(s) * lanes + j as u64);
            }
        }
        seeds
    }
}

/// Kept depths as the kernels store them (depth + 1, 0 = unreached) to
/// the contract's (`u32::MAX` = unreached).
pub fn decode_depths(words: &mut [u32]) {
    for w in words {
        *w = w.wrapping_sub(1);
    }
}

/// Levels whose lane counts a command's epilogue copies to staging, after
/// the level records of its `levels` levels: as many as fit in a staging
/// buffer of `staging_bytes`, leaving its last word (the abort word of a
/// fused launch) alone. The host reads the counts of any later level that
/// ran separately.
#[must_use]
pub fn lane_levels_in_staging(levels: u32, staging_bytes: u64) -> u32 {
    let room = staging_bytes.saturating_sub(readback_bytes(levels) + 4);
    u32::try_from(room / LANE_COUNT_BYTES)
        .unwrap_or(u32::MAX)
        .min(levels)
}

/// The lane counts of the first `ran` levels of a command: those in
/// `staged` (the words its epilogue copied to staging after the level
/// records), the rest read by `read` (from the byte offset of the first
/// missing level in the tallies, into the words given).
///
/// # Errors
///
/// `read`'s error.
pub fn lane_counts_read(
    ran: u32,
    staged: &[u32],
    read: impl FnOnce(u64, &mut [u32]) -> Result<(), BackendError>,
) -> Result<Vec<LaneCounts>, BackendError> {
    let mut counts = lane_counts_of(staged);
    counts.truncate(ran as usize);
    let have = counts.len() as u64;
    if have < u64::from(ran) {
        let mut rest = vec![0u32; (u64::from(ran) - have) as usize * BATCH_LANES as usize];
        read(have * LANE_COUNT_BYTES, &mut rest)?;
        counts.extend(lane_counts_of(&rest));
    }
    Ok(counts)
}

/// Bytes of lane counts a command of which `staged` levels' counts came
/// with the records and `ran` levels ran reads back in all.
#[must_use]
pub fn lane_readback_bytes(ran: u32, staged: u32) -> u64 {
    u64::from(ran.max(staged)) * LANE_COUNT_BYTES
}

/// The lane counts of consecutive levels in `words` (64 a level).
#[must_use]
pub fn lane_counts_of(words: &[u32]) -> Vec<LaneCounts> {
    words
        .chunks_exact(BATCH_LANES as usize)
        .map(|level| {
            let mut counts = [0u32; BATCH_LANES as usize];
            counts.copy_from_slice(level);
            counts
        })
        .collect()
}

impl CommandPlan {
    /// The plan of a checked `command` of a batch pass: the search's
    /// dispatches in their batch forms, each top-down level ending with
    /// [`Kernel::BatchPushEnd`], and the bitmap-to-queue conversion as
    /// [`Kernel::BatchToQueue`] (queue to bitmap needs none: the words are
    /// the bitmap form). These backends have no batch persistent kernel
    /// (they report no `batch_fused_wave`).
    ///
    /// # Errors
    ///
    /// An `InvalidRequest` error for a `FusedWave` command; otherwise as
    /// [`CommandPlan::of`].
    pub fn of_batch(command: &WaveCommand, graph: GraphFacts) -> Result<Self, BackendError> {
        if command.topology == T::FusedWave {
            return Err(BackendError::new(
                "a batch pass was sent a FusedWave command, but this backend has no batch persistent kernel (capabilities().batch_fused_wave is false). Fix: check batch commands with WaveCommand::check_batch; let the policy choose or force a per-wave topology.",
            ));
        }
        let search = Self::of(command, graph)?;
        let top_down = frontier_form_of(command.topology) == FrontierForm::Queue;
        let level = |kernels: Vec<Kernel>| -> Vec<Kernel> {
            if kernels.is_empty() {
                return kernels;
            }
            let mut level: Vec<Kernel> =
                kernels.into_iter().filter_map(Kernel::batch_form).collect();
            if top_down {
                level.push(Kernel::BatchPushEnd);
            }
            level
        };
        Ok(Self {
            conversion: search.conversion.and_then(Kernel::batch_form),
            first: level(search.first),
            later: level(search.later),
            later_grid: search.later_grid,
            words: search.words,
        })
    }
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{BackendErrorKind, LaunchShape, LevelSizing, SearchPosition};
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;

    fn command(topology: T, form: FrontierForm, max_levels: u32) -> WaveCommand {
        WaveCommand {
            topology,
            position: SearchPosition {
                level: 2,
                frontier_len: 10,
                frontier_edges: 40,
                form,
                buffer: 1,
            },
            max_levels,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: 64,
                dispatch_grid: [4, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: 64,
                },
            },
            band_max_frontier_edges: u64::MAX,
            band_max_frontier_vertices: u32::MAX,
        }
    }

    const HEAVY: GraphFacts = GraphFacts {
        vertex_count: 5000,
        edge_count: 40_000,
        max_out_degree: 3000,
        min_out_degree: 1,
        in_edge_end: 5000,
    };

    #[test]
    fn top_down_levels_end_with_their_bookkeeping_and_bottom_up_ones_do_not() {
        use Kernel as K;
        let plan =
            |t, form, levels| CommandPlan::of_batch(&command(t, form, levels), HEAVY).unwrap();
        let hybrid = plan(T::HybridFrontier, FrontierForm::Bitmap, 3);
        assert_eq!(hybrid.conversion, Some(K::BatchToQueue));
        let pieces = vec![K::BatchHybrid, K::BatchHybridPieces, K::BatchPushEnd];
        assert_eq!((&hybrid.first, &hybrid.later), (&pieces, &pieces));
        // No batch FusedWave here: a typed refusal, not a substitute.
        let err = CommandPlan::of_batch(&command(T::FusedWave, FrontierForm::Queue, 3), HEAVY)
            .unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
        assert!(err.message().contains("Fix:"), "{err}");
        let warp = plan(T::WarpSparseFrontier, FrontierForm::Queue, 1);
        assert_eq!(warp.first, [K::BatchWarpSparse, K::BatchPushEnd]);
        assert!(warp.later.is_empty());
        // Bottom-up levels need no conversion and no clearing.
        let dense = plan(T::DenseFrontier, FrontierForm::Queue, 2);
        assert_eq!(dense.conversion, None);
        assert_eq!(
            (&dense.first, &dense.later),
            (&vec![K::BatchDense], &vec![K::BatchDense])
        );
        let block = plan(T::BlockDenseFrontier, FrontierForm::Bitmap, 1);
        assert_eq!(block.first, [K::BatchBlockDense]);
        let sparse = plan(T::SparseFrontier, FrontierForm::Queue, 2);
        assert_eq!(
            sparse.later,
            [K::BatchSparseScan, K::BatchSparse, K::BatchPushEnd]
        );
    }

    #[test]
    fn seeds_give_each_distinct_source_its_lanes_and_each_lane_its_depth_slot() {
        let g = build_graph(6, &[(0, 1), (2, 3)], BuildOptions::UNDIRECTED).unwrap();
        let sources = BatchSources::new(&[4, 1, 4, 0], &g).unwrap();
        let layout = BatchLayout {
            vertex_count: 6,
            lanes: 4,
            keep_depths: true,
            max_levels_per_command: 8,
        };
        let seeds = BatchSeeds::of(&sources, &layout);
        assert_eq!(seeds.queue, [4, 1, 0]);
        assert_eq!(seeds.words, [(4, 0b101), (1, 0b10), (0, 0b1000)]);
        // Depths follow 8 levels of 64 lane counts.
        assert_eq!(seeds.depth_slots, [512 + 16, 512 + 5, 512 + 18, 512 + 3]);
        assert_eq!(tallies_bytes(&layout), 8 * 256 + 6 * 4 * 4);
        let counts_only = BatchLayout {
            keep_depths: false,
            ..layout
        };
        assert!(
            BatchSeeds::of(&sources, &counts_only)
                .depth_slots
                .is_empty()
        );
        assert_eq!(tallies_bytes(&counts_only), 8 * 256);
        assert_eq!(batch_words(&sources, &layout), [0b1111, 0, 4, 1, 512]);
        let mut stored = [0, 1, 5];
        decode_depths(&mut stored);
        assert_eq!(stored, [u32::MAX, 0, 4]);
    }

    #[test]
    fn a_batch_layout_for_another_pass_is_refused() {
        let g = build_graph(6, &[(0, 1)], BuildOptions::UNDIRECTED).unwrap();
        let caps_layout = DeviceLayout {
            max_out_degree: 1,
            vertex_count: 6,
            edge_count: 2,
            offset_bytes: 4,
            out_edges: vyre_driver::backend::EdgeSegments {
                edges_per_segment: 2,
                segment_count: 1,
                edge_count: 2,
            },
            in_edges: None,
            max_levels_per_command: 8,
            readback_staging: true,
        };
        let sources = BatchSources::new(&[0, 1], &g).unwrap();
        let good = BatchLayout {
            vertex_count: 6,
            lanes: 2,
            keep_depths: false,
            max_levels_per_command: 8,
        };
        assert!(check_batch_layout(&good, &sources, &caps_layout).is_ok());
        for bad in [
            BatchLayout { lanes: 3, ..good },
            BatchLayout {
                vertex_count: 7,
                ..good
            },
            BatchLayout {
                max_levels_per_command: 4,
                ..good
            },
        ] {
            let err = check_batch_layout(&bad, &sources, &caps_layout).unwrap_err();
            assert!(err.message().contains("Fix:"), "{err}");
        }
    }

    #[test]
    fn lane_counts_fill_staging_after_the_records_and_spare_the_last_word() {
        // 1 level: 32 bytes of records, 256 of counts, 4 spared.
        assert_eq!(lane_levels_in_staging(1, 292), 1);
        assert_eq!(lane_levels_in_staging(1, 291), 0);
        // 32 KiB of staging after 256 records (4112 bytes) and the spared
        // word hold 111 levels' counts.
        assert_eq!(lane_levels_in_staging(256, 32 << 10), 111);
        assert_eq!(lane_levels_in_staging(100, 32 << 10), 100);
        let words: Vec<u32> = (0..128).collect();
        let counts = lane_counts_of(&words);
        assert_eq!((counts.len(), counts[1][0], counts[1][63]), (2, 64, 127));
        // One level ran of two staged; three ran of two staged.
        let one = lane_counts_read(1, &words, |_, _| panic!("nothing to read")).unwrap();
        assert_eq!(one, counts[..1]);
        let three = lane_counts_read(3, &words, |at, rest| {
            assert_eq!((at, rest.len()), (512, 64));
            rest.fill(7);
            Ok(())
        })
        .unwrap();
        assert_eq!((three.len(), three[1][5], three[2][63]), (3, 69, 7));
        assert_eq!(lane_readback_bytes(1, 2), 512);
        assert_eq!(lane_readback_bytes(3, 2), 768);
    }
}
