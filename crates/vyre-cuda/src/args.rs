//! The host side of what kernels share with the host: the argument block
//! every kernel takes, and the control block and level records they write.
//! Layouts mirror `shaders/cuda/common.cuh`.

use cudarc::driver::DeviceRepr;
use vyre_driver::backend::{BackendError, CONTROL_BYTES, LEVEL_RECORD_BYTES, LevelRecord};

/// `VyreArgs` of `common.cuh`: device pointers and per-launch scalars.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub(crate) struct KernelArgs {
    pub out_offsets: u64,
    pub out_targets: u64,
    pub in_offsets: u64,
    pub in_targets: u64,
    pub depth: u64,
    pub parent: u64,
    pub queue_in: u64,
    pub queue_out: u64,
    pub bitmap_in: u64,
    pub bitmap_out: u64,
    pub control: u64,
    pub history: u64,
    pub band_max_frontier_edges: u64,
    pub vertex_count: u32,
    pub level: u32,
    pub history_index: u32,
    pub epoch: u32,
    pub max_levels: u32,
    pub aux: u32,
}

// The kernels static_assert the same size.
const _: () = assert!(std::mem::size_of::<KernelArgs>() == 128);
const _: () = assert!(std::mem::align_of::<KernelArgs>() == 8);

// SAFETY: `KernelArgs` is `repr(C)`, plain integers with no padding (13
// u64 then 6 u32 = 128 bytes, asserted above), and matches `VyreArgs`
// field for field, so its bytes are a valid kernel parameter.
unsafe impl DeviceRepr for KernelArgs {}

/// `u32` words of the control block.
pub(crate) const CONTROL_WORDS: usize = (CONTROL_BYTES / 4) as usize;
/// `u32` words of one level record.
pub(crate) const RECORD_WORDS: usize = (LEVEL_RECORD_BYTES / 4) as usize;

/// Word index of `VyreControl::cur_len`.
pub(crate) const CUR_LEN_WORD: usize = 15;
/// Word index of `VyreControl::levels_run`.
pub(crate) const LEVELS_RUN_WORD: usize = 16;

/// What the control block says after a command.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct ControlState {
    /// Vertices in the current frontier.
    pub cur_len: u32,
    /// Levels the command recorded.
    pub levels_run: u32,
}

impl ControlState {
    pub(crate) fn decode(words: &[u32]) -> Self {
        Self {
            cur_len: words[CUR_LEN_WORD],
            levels_run: words[LEVELS_RUN_WORD],
        }
    }
}

/// Decode `count` level records from history words, checking that each was
/// written by the command numbered `epoch`.
pub(crate) fn decode_records(
    words: &[u32],
    count: usize,
    epoch: u32,
) -> Result<Vec<LevelRecord>, BackendError> {
    let wide = |lo: u32, hi: u32| u64::from(lo) | (u64::from(hi) << 32);
    let mut levels = Vec::with_capacity(count);
    for (index, r) in words.chunks_exact(RECORD_WORDS).take(count).enumerate() {
        if r[3] != epoch {
            return Err(BackendError::device(format!(
                "level record {index} of this command was not written by it (epoch {} instead of {epoch}): a kernel did not finish its level. Fix: this is a bug in the vyre CUDA kernels; run with compute-sanitizer and report it.",
                r[3]
            )));
        }
        levels.push(LevelRecord {
            level: r[0],
            frontier_in: r[1],
            frontier_out: r[2],
            frontier_out_edges: wide(r[4], r[5]),
            edges_examined: wide(r[6], r[7]),
            device_ns: None,
        });
    }
    if levels.len() != count {
        return Err(BackendError::device(format!(
            "expected {count} level records but only {} were read back. Fix: this is a bug in the vyre CUDA backend; report it.",
            levels.len()
        )));
    }
    Ok(levels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_decode_little_endian_halves() {
        let words = [
            7,
            10,
            20,
            3,
            0x0000_0005,
            0x0000_0001,
            0xffff_ffff,
            0, // record 0
            8,
            20,
            0,
            3,
            0,
            0,
            9,
            0, // record 1
        ];
        let levels = decode_records(&words, 2, 3).unwrap();
        assert_eq!(levels[0].level, 7);
        assert_eq!(levels[0].frontier_in, 10);
        assert_eq!(levels[0].frontier_out, 20);
        assert_eq!(levels[0].frontier_out_edges, (1u64 << 32) + 5);
        assert_eq!(levels[0].edges_examined, 0xffff_ffff);
        assert_eq!(levels[1].level, 8);
        assert_eq!(levels[1].edges_examined, 9);
        assert_eq!(levels[1].device_ns, None);
    }

    #[test]
    fn a_record_of_another_command_is_an_error() {
        let words = [1, 1, 1, 4, 0, 0, 0, 0];
        let err = decode_records(&words, 1, 5).unwrap_err();
        assert!(err.message().contains("epoch 4 instead of 5"), "{err}");
        assert!(decode_records(&words, 2, 4).is_err(), "too few words");
    }

    #[test]
    fn control_words_match_the_kernel_layout() {
        // common.cuh: out_edges[3] and examined[3] (48 bytes), next_len[3]
        // (12 bytes), then cur_len at byte 60 and levels_run at byte 64.
        assert_eq!(CUR_LEN_WORD * 4, 60);
        assert_eq!(LEVELS_RUN_WORD * 4, 64);
        let mut words = [0u32; CONTROL_WORDS];
        words[CUR_LEN_WORD] = 11;
        words[LEVELS_RUN_WORD] = 2;
        assert_eq!(
            ControlState::decode(&words),
            ControlState {
                cur_len: 11,
                levels_run: 2
            }
        );
    }
}
