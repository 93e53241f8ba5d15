//! Reading a command's level records back into a report: which levels ran,
//! by the rule the kernels follow (`begin_level` in `chain.wgsl`, the level
//! loop of `fused.wgsl`).

use vyre_driver::backend::{BackendError, LevelRecord, WaveCommand};

use crate::control::{RECORD_BASE_WORDS, RECORD_WORDS};

/// Bytes of the history the host reads back for `levels` levels: the two
/// timestamps, then one 16-byte record per level.
#[must_use]
pub fn readback_bytes(levels: u32) -> u64 {
    4 * u64::from(RECORD_BASE_WORDS + RECORD_WORDS * levels)
}

/// A backend running these kernels tells which grid each level of its last
/// command ran with (the records' workgroup counts): the command's launch
/// grid, then what the engine's rule gave each later level on the device.
/// Tests hold the grids to the engine's rule through it.
pub trait LevelGrids {
    /// Workgroups each level of the last command ran with, in order.
    fn last_level_grids(&self) -> &[u32];
}

/// The levels a command ran, read from its records.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct LevelsRun {
    /// One record per level that ran (no device time: the backend adds
    /// what it measured).
    pub levels: Vec<LevelRecord>,
    /// Workgroups each of those levels ran with.
    pub grids: Vec<u32>,
}

impl LevelsRun {
    /// Give a one-level command's device time, `device_ns`, to its level:
    /// the device timed that level alone. Chained levels are timed together,
    /// so theirs stay `None`.
    pub fn time_a_lone_level(&mut self, command: &WaveCommand, device_ns: Option<u64>) {
        if let ([only], 1) = (self.levels.as_mut_slice(), command.max_levels) {
            only.device_ns = device_ns;
        }
    }
}

/// The levels `records` (the words after [`RECORD_BASE_WORDS`], one record
/// of [`RECORD_WORDS`] per level recorded) say ran: the first always; each
/// later one while the level before it found vertices within the band
/// ([`WaveCommand::ends_after`]).
///
/// # Errors
///
/// A `Device` error when a level that should have run recorded no
/// workgroups.
pub fn levels_run(command: &WaveCommand, records: &[u32]) -> Result<LevelsRun, BackendError> {
    let mut run = LevelsRun::default();
    let mut frontier_in = command.position.frontier_len;
    for (k, r) in (0u32..).zip(records.chunks_exact(RECORD_WORDS as usize)) {
        let [found, edges, examined, grid] = [r[0], r[1], r[2], r[3]];
        if grid == 0 {
            return Err(BackendError::device(format!(
                "level {k} of a {:?} command should have run but recorded no workgroups. Fix: this is a bug in the kernels or the driver; report it with the graph, the topology and the device.",
                command.topology
            )));
        }
        run.levels.push(LevelRecord {
            level: command.position.level + k,
            frontier_in,
            frontier_out: found,
            frontier_out_edges: u64::from(edges),
            edges_examined: u64::from(examined),
            device_ns: None,
        });
        run.grids.push(grid);
        if command.ends_after(found, u64::from(edges)) {
            break;
        }
        frontier_in = found;
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{FrontierForm, LaunchShape, LevelSizing, SearchPosition};
    use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;

    use super::*;

    fn command(band: u64) -> WaveCommand {
        WaveCommand {
            topology: T::SparseFrontier,
            position: SearchPosition {
                level: 5,
                frontier_len: 3,
                frontier_edges: 9,
                form: FrontierForm::Queue,
                buffer: 0,
            },
            max_levels: 4,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: 64,
                dispatch_grid: [1, 1, 1],
                slots_per_lane: 1,
                later: LevelSizing {
                    edges_per_lane: 4,
                    max_workgroups: 8,
                },
            },
            band_max_frontier_edges: band,
            band_max_frontier_vertices: u32::MAX,
        }
    }

    #[test]
    fn levels_run_until_the_frontier_empties_or_leaves_the_band() {
        // Level 0 finds 4 (20 edges), level 1 finds 7 (50 edges), level 2
        // finds nothing; level 3 never ran.
        let records = [4, 20, 9, 1, 7, 50, 20, 2, 0, 0, 50, 3, 0, 0, 0, 0];
        let run = levels_run(&command(u64::MAX), &records).unwrap();
        assert_eq!(run.grids, [1, 2, 3]);
        let got: Vec<_> = run
            .levels
            .iter()
            .map(|l| (l.level, l.frontier_in, l.frontier_out, l.edges_examined))
            .collect();
        assert_eq!(got, [(5, 3, 4, 9), (6, 4, 7, 20), (7, 7, 0, 50)]);
        // A band of 40 out-edges stops after level 1.
        let banded = levels_run(&command(40), &records).unwrap();
        assert_eq!(banded.levels.len(), 2);
        assert_eq!(readback_bytes(4), 16 + 64);
    }

    #[test]
    fn only_a_one_level_command_times_its_level() {
        let records = [4, 20, 9, 1, 0, 0, 20, 2];
        let mut chained = levels_run(&command(u64::MAX), &records).unwrap();
        chained.time_a_lone_level(&command(u64::MAX), Some(700));
        assert!(chained.levels.iter().all(|l| l.device_ns.is_none()));
        // A chain that stopped after one of its levels is still a chain.
        let mut stopped = levels_run(&command(u64::MAX), &records[..4]).unwrap();
        stopped.time_a_lone_level(&command(u64::MAX), Some(700));
        assert_eq!(stopped.levels[0].device_ns, None);
        let one = WaveCommand {
            max_levels: 1,
            ..command(u64::MAX)
        };
        let mut alone = levels_run(&one, &records[..4]).unwrap();
        alone.time_a_lone_level(&one, Some(700));
        assert_eq!(alone.levels[0].device_ns, Some(700));
    }

    #[test]
    fn a_level_that_should_have_run_without_workgroups_is_an_error() {
        let records = [4, 20, 9, 1, 7, 50, 20, 0];
        let err = levels_run(&command(u64::MAX), &records).unwrap_err();
        assert!(err.message().contains("level 1"), "{err}");
        assert!(err.message().contains("Fix:"), "{err}");
    }
}
