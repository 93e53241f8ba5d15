//! A fused launch as both WGSL backends run it: its plan (the frontier
//! conversion, then `fused.wgsl` for every level; the command words with
//! the fused words set) and what its status words say when it ends.

use vyre_driver::backend::{BackendError, WaveCommand};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

use crate::control::{
    C_ABORTED, C_FAILED, C_HEAVY, C_MAX_LEVELS, C_MODE, C_SPIN_LIMIT, FUSED_SPIN_LIMIT,
    FUSED_STATUS, MODE_LEVELS, command_words,
};
use crate::kernels::Kernel;
use crate::level_steps::{CommandPlan, GraphFacts, conversion, later_grid};

/// Bytes of a fused launch's status words ([`FUSED_STATUS`]), read back
/// after its level records.
pub const STATUS_BYTES: u64 = 4 * (FUSED_STATUS.end - FUSED_STATUS.start) as u64;

impl CommandPlan {
    /// The plan of a checked `FusedWave` `command` on `graph`: its first
    /// level is the whole launch, no later level dispatches anything.
    ///
    /// # Errors
    ///
    /// A `Device` error for a per-wave command (a bug in the backend that
    /// sent it here).
    pub fn of_fused(command: &WaveCommand, graph: GraphFacts) -> Result<Self, BackendError> {
        if command.topology != T::FusedWave {
            return Err(BackendError::device(format!(
                "a {:?} command reached the fused launch. Fix: this is a bug in the backend; report it.",
                command.topology
            )));
        }
        let mut words = command_words(command, false, false);
        words[C_MAX_LEVELS] = command.max_levels;
        words[C_MODE] = MODE_LEVELS;
        words[C_HEAVY] = u32::from(graph.has_heavy_vertices());
        words[C_SPIN_LIMIT] = FUSED_SPIN_LIMIT;
        Ok(Self {
            conversion: conversion(command.position.form, command.topology),
            first: vec![Kernel::Fused],
            later: Vec::new(),
            later_grid: later_grid(command),
            words,
        })
    }
}

/// Check the status words ([`FUSED_STATUS`], in order) of a fused launch of
/// `workgroups` workgroups that ended.
///
/// # Errors
///
/// A `Device` error when a workgroup gave up waiting at a grid barrier:
/// the launch's levels are void.
pub fn check_status(status: &[u32], workgroups: u64) -> Result<(), BackendError> {
    let word = |w: usize| status.get(w - FUSED_STATUS.start).copied().unwrap_or(0);
    if word(C_FAILED) == 0 {
        return Ok(());
    }
    let why = if word(C_ABORTED) != 0 {
        "the host aborted it"
    } else {
        "they were not all resident, or a wait ran past its bound"
    };
    Err(BackendError::device(format!(
        "a fused launch of {workgroups} workgroups stopped: a workgroup gave up waiting for the others at a grid barrier ({why}); the search's state on the device is void. Fix: force a per-wave topology, and report the device with its barrier verdict (capabilities().barrier_reason)."
    )))
}

#[cfg(test)]
pub(crate) mod tests {
    use vyre_driver::backend::{
        BackendErrorKind, FrontierForm, LaunchShape, LevelSizing, SearchPosition,
    };

    use super::*;
    use crate::control::{C_ARRIVALS, C_CUR_COUNT};

    /// A command at depth 3 from a frontier of 7 vertices on 12 workgroups
    /// of 256, with a band of 1000 edges and up to 64 levels.
    pub(crate) fn command(topology: T, form: FrontierForm) -> WaveCommand {
        WaveCommand {
            topology,
            position: SearchPosition {
                level: 3,
                frontier_len: 7,
                frontier_edges: 20,
                form,
                buffer: 1,
            },
            max_levels: 64,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: 256,
                dispatch_grid: [12, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: 12,
                },
            },
            band_max_frontier_edges: 1000,
            band_max_frontier_vertices: u32::MAX,
        }
    }

    const HEAVY: GraphFacts = GraphFacts {
        vertex_count: 100,
        edge_count: 5000,
        max_out_degree: 3000,
        min_out_degree: 1,
        in_edge_end: 100,
    };

    #[test]
    fn a_fused_plan_is_one_launch_with_the_fused_words() {
        let plan = CommandPlan::of_fused(&command(T::FusedWave, FrontierForm::Queue), HEAVY)
            .expect("a fused plan");
        assert_eq!(plan.conversion, None);
        assert_eq!(
            (plan.first.as_slice(), plan.later.len()),
            (&[Kernel::Fused][..], 0)
        );
        let w = plan.words;
        assert_eq!(
            (
                w[C_CUR_COUNT],
                w[C_MAX_LEVELS],
                w[C_MODE],
                w[C_HEAVY],
                w[C_SPIN_LIMIT]
            ),
            (7, 64, MODE_LEVELS, 1, FUSED_SPIN_LIMIT)
        );
        let light = GraphFacts {
            max_out_degree: 3,
            ..HEAVY
        };
        let from_bitmap =
            CommandPlan::of_fused(&command(T::FusedWave, FrontierForm::Bitmap), light).unwrap();
        assert_eq!(from_bitmap.conversion, Some(Kernel::BitmapToQueue));
        assert_eq!(from_bitmap.words[C_HEAVY], 0);
        let err = CommandPlan::of_fused(&command(T::SparseFrontier, FrontierForm::Queue), HEAVY)
            .unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::Device);
        assert!(err.message().contains("Fix:"), "{err}");
    }

    #[test]
    fn a_launch_whose_workgroup_gave_up_is_a_typed_error() {
        let mut status = [0u32; 12];
        status[C_ARRIVALS - FUSED_STATUS.start] = 90;
        assert!(check_status(&status, 64).is_ok());
        status[C_FAILED - FUSED_STATUS.start] = 1;
        let err = check_status(&status, 64).unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::Device);
        let text = err.message();
        assert!(
            text.contains("64 workgroups")
                && text.contains("gave up waiting")
                && text.contains("Fix:"),
            "{text}"
        );
        status[C_ABORTED - FUSED_STATUS.start] = 1;
        let text = check_status(&status, 64).unwrap_err().message().to_string();
        assert!(text.contains("the host aborted it"), "{text}");
        assert_eq!(STATUS_BYTES, 48);
    }
}
