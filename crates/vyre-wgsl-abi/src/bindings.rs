//! What each binding of the kernels' one bind group (descriptor set) holds
//! for frontier set `d` (`shaders/wgsl/base.wgsl`, `common.wgsl`,
//! `fused.wgsl`): both backends build their groups from [`state_binding`].

/// Edge-segment bindings each kernel declares per direction.
pub const EDGE_SEGMENT_BINDINGS: u32 = 8;
/// First binding of the out-edge segments (in-edge segments follow).
pub const FIRST_SEGMENT_BINDING: u32 = 10;
/// Binding of the level history.
pub const HISTORY_BINDING: u32 = FIRST_SEGMENT_BINDING + 2 * EDGE_SEGMENT_BINDINGS;
/// Binding of the next levels' dispatch arguments.
pub const NEXT_ARGS_BINDING: u32 = HISTORY_BINDING + 1;
/// Binding of the level words of this frontier set.
pub const THIS_LEVEL_BINDING: u32 = NEXT_ARGS_BINDING + 1;
/// Binding of the level words of the other frontier set.
pub const NEXT_LEVEL_BINDING: u32 = THIS_LEVEL_BINDING + 1;
/// Storage buffers every per-wave kernel binds: 10 state buffers (the work
/// array included), both edge directions, the level history, the next
/// levels' dispatch arguments and both sets' level words.
pub const STORAGE_BINDINGS: u32 = NEXT_LEVEL_BINDING + 1;
/// Binding of the host words the fused kernel polls while it waits (the
/// abort word, in host-visible memory); bound only where a backend runs
/// the fused kernel.
pub const HOST_WORDS_BINDING: u32 = STORAGE_BINDINGS;
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
    /// Dispatch arguments 0 or 1.
    Args(u32),
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
/// reads set `d`, writes set `1 - d`, grows the dispatch arguments `1 - d`
/// (level `k` runs on set `d` and is dispatched from arguments `d`).
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
        NEXT_ARGS_BINDING => Buffer::Args(other),
        THIS_LEVEL_BINDING => Buffer::LevelWords(d),
        NEXT_LEVEL_BINDING => Buffer::LevelWords(other),
        _ => Buffer::HostWords,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_holds_one_buffer_and_sets_mirror_each_other() {
        assert_eq!(STORAGE_BINDINGS, 30);
        for binding in 0..FUSED_STORAGE_BINDINGS {
            let (zero, one) = (state_binding(binding, 0), state_binding(binding, 1));
            match (zero, one) {
                (Buffer::Queue(a), Buffer::Queue(b))
                | (Buffer::Bitmap(a), Buffer::Bitmap(b))
                | (Buffer::Args(a), Buffer::Args(b))
                | (Buffer::LevelWords(a), Buffer::LevelWords(b)) => assert_eq!(a, 1 - b),
                (a, b) => assert_eq!(a, b, "binding {binding}"),
            }
        }
        assert_eq!(state_binding(17, 0), Buffer::OutSegment(7));
        assert_eq!(state_binding(18, 0), Buffer::InSegment(0));
        assert_eq!(state_binding(HISTORY_BINDING, 1), Buffer::History);
        assert_eq!(state_binding(HOST_WORDS_BINDING, 0), Buffer::HostWords);
        // The arguments a set's levels grow are the other set's.
        assert_eq!(state_binding(NEXT_ARGS_BINDING, 0), Buffer::Args(1));
        assert!(read_only(1) && read_only(25) && !read_only(26) && !read_only(9));
    }
}
