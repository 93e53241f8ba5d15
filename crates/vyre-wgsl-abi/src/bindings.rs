//! What each binding of the kernels' one bind group (descriptor set) holds
//! for frontier set `d` (`shaders/wgsl/base.wgsl`, `common.wgsl`,
//! `fused.wgsl`): both backends build their groups from [`state_binding`].

/// Edge-segment bindings each kernel declares per direction.
pub const EDGE_SEGMENT_BINDINGS: u32 = 8;
/// First binding of the out-edge segments (in-edge segments follow).
pub const FIRST_SEGMENT_BINDING: u32 = 10;
/// Binding of the level history.
pub const HISTORY_BINDING: u32 = FIRST_SEGMENT_BINDING + 2 * EDGE_SEGMENT_BINDINGS;
/// Binding of the level words of this frontier set.
pub const THIS_LEVEL_BINDING: u32 = HISTORY_BINDING + 1;
/// Binding of the level words of the other frontier set.
pub const NEXT_LEVEL_BINDING: u32 = THIS_LEVEL_BINDING + 1;
/// Storage buffers every per-wave kernel binds: 10 state buffers (the work
/// array included), both edge directions, the level history and both sets'
/// level words.
pub const STORAGE_BINDINGS: u32 = NEXT_LEVEL_BINDING + 1;
/// Binding of the host words the fused kernel polls while it waits (the
/// abort word, in host-visible memory); bound only where a backend runs
/// the fused kernel.
pub const HOST_WORDS_BINDING: u32 = STORAGE_BINDINGS;
/// Bytes of a host-words buffer of its own (the fused kernel reads only
/// its last word, the abort word).
pub const HOST_WORDS_BYTES: u64 = 16;
/// Bindings of the fused kernel's layout: the per-wave ones and the host
/// words.
pub const FUSED_STORAGE_BINDINGS: u32 = HOST_WORDS_BINDING + 1;

/// Which buffer a binding holds.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Buffer {
    /// The control block.
    Control,
    /// Row offsets of the out-edges.
    OutOffsets,
    /// Row offsets of the in-edges (the out-edges' when the graph is
    /// symmetric).
    InOffsets,
    /// Depth per vertex.
    Depth,
    /// Parent per vertex.
    Parent,
    /// Frontier queue 0 or 1.
    Queue(u32),
    /// Frontier bitmap 0 or 1.
    Bitmap(u32),
    /// The work array.
    Work,
    /// Out-edge segment `i` (segment 0 where the graph has fewer).
    OutSegment(u32),
    /// In-edge segment `i` (the out-edges' when the graph is symmetric).
    InSegment(u32),
    /// The level history.
    History,
    /// Level words 0 or 1.
    LevelWords(u32),
    /// The host words (the abort word).
    HostWords,
}

/// Whether the kernels only read `binding`.
#[must_use]
pub fn read_only(binding: u32) -> bool {
    matches!(binding, 1 | 2) || (FIRST_SEGMENT_BINDING..HISTORY_BINDING).contains(&binding)
}

/// The buffer binding `binding` holds in the group of frontier set `d`: it
/// reads set `d` and writes set `1 - d`.
#[must_use]
pub fn state_binding(binding: u32, d: u32) -> Buffer {
    let d = d & 1;
    let other = 1 - d;
    match binding {
        0 => Buffer::Control,
        1 => Buffer::OutOffsets,
        2 => Buffer::InOffsets,
        3 => Buffer::Depth,
        4 => Buffer::Parent,
        5 => Buffer::Queue(d),
        6 => Buffer::Queue(other),
        7 => Buffer::Bitmap(d),
        8 => Buffer::Bitmap(other),
        9 => Buffer::Work,
        b if b < FIRST_SEGMENT_BINDING + EDGE_SEGMENT_BINDINGS => {
            Buffer::OutSegment(b - FIRST_SEGMENT_BINDING)
        }
        b if b < HISTORY_BINDING => {
            Buffer::InSegment(b - FIRST_SEGMENT_BINDING - EDGE_SEGMENT_BINDINGS)
        }
        HISTORY_BINDING => Buffer::History,
        THIS_LEVEL_BINDING => Buffer::LevelWords(d),
        NEXT_LEVEL_BINDING => Buffer::LevelWords(other),
        _ => Buffer::HostWords,
    }
}

/// Binding of a batch pass's tallies (the host words' binding in the
/// fused kernel's layout).
pub const TALLIES_BINDING: u32 = HOST_WORDS_BINDING;
/// Storage buffers a batch pass's kernels bind: the per-wave ones (a
/// search's parents and bitmaps replaced by batch state) and the tallies.
pub const BATCH_STORAGE_BINDINGS: u32 = TALLIES_BINDING + 1;

/// Which buffer of a batch pass a binding holds in its kernels' group
/// (`shaders/wgsl/batch.wgsl`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum BatchBuffer {
    /// Lanes that have reached each vertex (two u32 per vertex), where a
    /// search binds its parents.
    Seen,
    /// Frontier word array 0 or 1, where a search binds its bitmaps.
    Words(u32),
    /// The lane counts of each level of a command (64 words a level),
    /// then the kept depths (depth + 1, 0 = unreached).
    Tallies,
}

/// What a binding of a batch kernel's group holds.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum BatchBinding {
    /// Batch state.
    Batch(BatchBuffer),
    /// What the search's group of the same frontier set holds there.
    Search(Buffer),
}

/// What binding `binding` holds in a batch kernel's group of frontier set
/// `d`: batch state, or what a search's group holds (reading word array
/// `d` and writing `1 - d`, as a search reads bitmap `d`).
#[must_use]
pub fn batch_state_binding(binding: u32, d: u32) -> BatchBinding {
    let d = d & 1;
    match binding {
        4 => BatchBinding::Batch(BatchBuffer::Seen),
        7 => BatchBinding::Batch(BatchBuffer::Words(d)),
        8 => BatchBinding::Batch(BatchBuffer::Words(1 - d)),
        TALLIES_BINDING => BatchBinding::Batch(BatchBuffer::Tallies),
        other => BatchBinding::Search(state_binding(other, d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_holds_one_buffer_and_sets_mirror_each_other() {
        assert_eq!(STORAGE_BINDINGS, 29);
        for binding in 0..FUSED_STORAGE_BINDINGS {
            let (zero, one) = (state_binding(binding, 0), state_binding(binding, 1));
            match (zero, one) {
                (Buffer::Queue(a), Buffer::Queue(b))
                | (Buffer::Bitmap(a), Buffer::Bitmap(b))
                | (Buffer::LevelWords(a), Buffer::LevelWords(b)) => assert_eq!(a, 1 - b),
                (a, b) => assert_eq!(a, b, "binding {binding}"),
            }
        }
        assert_eq!(state_binding(17, 0), Buffer::OutSegment(7));
        assert_eq!(state_binding(18, 0), Buffer::InSegment(0));
        assert_eq!(state_binding(HISTORY_BINDING, 1), Buffer::History);
        assert_eq!(state_binding(HOST_WORDS_BINDING, 0), Buffer::HostWords);
        assert_eq!(state_binding(THIS_LEVEL_BINDING, 0), Buffer::LevelWords(0));
        assert_eq!(state_binding(NEXT_LEVEL_BINDING, 0), Buffer::LevelWords(1));
        assert!(read_only(1) && read_only(25) && !read_only(26) && !read_only(9));
    }

    #[test]
    fn a_batch_group_replaces_only_what_a_search_binds_for_parents_and_bitmaps() {
        use BatchBinding::Batch;
        assert_eq!(batch_state_binding(7, 0), Batch(BatchBuffer::Words(0)));
        assert_eq!(batch_state_binding(8, 0), Batch(BatchBuffer::Words(1)));
        assert_eq!(batch_state_binding(7, 1), Batch(BatchBuffer::Words(1)));
        assert_eq!(batch_state_binding(8, 1), Batch(BatchBuffer::Words(0)));
        assert_eq!(batch_state_binding(4, 1), Batch(BatchBuffer::Seen));
        assert_eq!(batch_state_binding(29, 0), Batch(BatchBuffer::Tallies));
        for binding in 0..BATCH_STORAGE_BINDINGS {
            if let BatchBinding::Search(search) = batch_state_binding(binding, 1) {
                assert_eq!(search, state_binding(binding, 1));
                assert!(!matches!(
                    search,
                    Buffer::Parent | Buffer::Bitmap(_) | Buffer::HostWords
                ));
            }
        }
        // A search's per-wave kernels bind 29, the fused one and a batch
        // pass's 30: within lavapipe's 32 storage buffers a stage.
        assert_eq!(BATCH_STORAGE_BINDINGS, 30);
    }
}
