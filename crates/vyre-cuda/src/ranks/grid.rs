//! The grid of every rank kernel of a level, sized in this one place.
//!
//! The engine's [`LaunchShape`] sizes one device's level from the whole
//! frontier; a rank's kernels see only the rank's share (its frontier
//! vertices and their edges, the pairs it received or sent, its owned
//! vertices), which only this backend knows. So each grid is sized here
//! from the rank's own items, at the command's width and within the
//! engine's most workgroups; the kernels stride over what a grid leaves.

use vyre_driver::backend::LaunchShape;

use super::state::RankState;
use crate::kernels::{LIGHT_DEGREE, Launch, hybrid_shared_bytes};

/// Which rank kernel a level launches.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Kernel {
    Expand,
    ExpandPieces,
    Merge,
    ClearSent,
    FrontierWords,
    Pull,
}

/// The grid of `kernel` on `rank` (none when it has nothing to do):
/// - `Expand`, `FrontierWords`: a lane per frontier vertex;
/// - `ExpandPieces`: a lane per frontier edge, so that the hubs' pieces
///   (at most 1024 edges each) spread over the grid; the kernel deals the
///   pieces evenly over whatever grid it gets, and blocks past them leave;
/// - `Merge`: a lane per received pair; `ClearSent`: per sent pair;
/// - `Pull`: a lane per owned vertex.
pub(crate) fn grid(kernel: Kernel, rank: &RankState, shape: &LaunchShape) -> Option<Launch> {
    let width = shape.workgroup_size_x;
    let (items, shared_bytes) = match kernel {
        Kernel::Expand | Kernel::FrontierWords => (rank.frontier_len, 0),
        Kernel::ExpandPieces => match rank.frontier_edges < u64::from(LIGHT_DEGREE) {
            true => (0, 0),
            false => (rank.frontier_edges, hybrid_shared_bytes(width)),
        },
        Kernel::Merge => (rank.pair_count, 0),
        Kernel::ClearSent => (rank.sent_pairs, 0),
        Kernel::Pull => (rank.owned() as u64, 0),
    };
    (items > 0).then(|| Launch {
        blocks: shape.workgroups_for_items(items),
        width,
        shared_bytes,
    })
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::WORK_PIECE_EDGES;

    use super::LIGHT_DEGREE;
    use crate::source::kernel_source;

    #[test]
    fn the_host_skips_pieces_by_the_kernels_own_thresholds() {
        let source = kernel_source();
        for define in [
            format!("#define VYRE_LIGHT_DEGREE {LIGHT_DEGREE}u"),
            format!("#define VYRE_PIECE_EDGES {WORK_PIECE_EDGES}u"),
        ] {
            assert!(source.contains(&define), "{define} is not in the kernels");
        }
    }
}
