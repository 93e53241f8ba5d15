//! What a caller asks of a search and what it gets back.

use std::sync::Arc;
use std::time::Duration;

use vyre_driver::collective::ExchangeKind;
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;

/// Which topology each wave runs with.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum TopologyChoice {
    /// The policy picks per wave from measured telemetry.
    #[default]
    Auto,
    /// Every wave runs this topology (for conformance tests and benchmarks).
    Forced(MegakernelExecutionTopology),
}

/// Whether per-wave topologies may be chained: several levels recorded in
/// one submission, each sized on the device, read back once.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum ChainMode {
    /// Chain when launch and readback dominate the level time (see
    /// [`crate::plan::chain`]).
    #[default]
    Auto,
    /// One level per command.
    Off,
    /// Always chain this many levels (at least 1) per command.
    Levels(u32),
}

/// One search.
#[derive(Clone, Copy, Debug)]
pub struct SearchRequest<'a> {
    /// Vertices at depth 0 (one for a plain BFS; duplicates are ignored).
    pub sources: &'a [u32],
    /// Topology choice.
    pub topology: TopologyChoice,
    /// Chaining of per-wave topologies.
    pub chaining: ChainMode,
}

impl<'a> SearchRequest<'a> {
    /// A search from `sources` with the policy choosing everything.
    #[must_use]
    pub fn new(sources: &'a [u32]) -> Self {
        Self {
            sources,
            topology: TopologyChoice::Auto,
            chaining: ChainMode::Auto,
        }
    }
}

/// One level of a search as it ran.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelTrace {
    /// Depth of the frontier this level expanded.
    pub level: u32,
    /// Index of the command (launch, chain or fused launch) that ran it.
    pub command: u32,
    /// Levels that command ran.
    pub command_levels: u32,
    /// Topology the level ran with.
    pub topology: MegakernelExecutionTopology,
    /// How the ranks of a partitioned device exchanged the level's
    /// frontier (`None` on a single device).
    pub exchange: Option<ExchangeKind>,
    /// The policy's `stable_explanation()` for the command, or
    /// `forced|topology=...` when the caller forced the topology; shared by
    /// the command's levels (a fused command records a thousand).
    pub explanation: Arc<str>,
    /// Vertices in the frontier.
    pub frontier_in: u32,
    /// Vertices discovered.
    pub frontier_out: u32,
    /// Edges the kernel examined.
    pub edges_examined: u64,
    /// Device time of this level, when the device timed it alone.
    pub device_ns: Option<u64>,
    /// Device time of the whole command, ns, where the device timed it:
    /// from its first level's start to its last level's end (where a
    /// backend submits a long chain in segments, any wait for the host
    /// between segments included).
    pub command_device_ns: Option<u64>,
    /// Host wall time of the whole command, ns.
    pub command_wall_ns: u64,
}

/// The outcome of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// Depth per vertex (`u32::MAX` = unreached).
    pub depths: Vec<u32>,
    /// BFS-tree parent per vertex (a source is its own parent; `u32::MAX` =
    /// unreached).
    pub parents: Vec<u32>,
    /// Every level, in order.
    pub levels: Vec<LevelTrace>,
    /// Host wall time of the search from start to the frontier running out,
    /// excluding the final readback of depths and parents.
    pub search_time: Duration,
    /// Host wall time of reading depths and parents back.
    pub readback_time: Duration,
}

impl SearchResult {
    /// Device time of the search's commands, each counted once (what
    /// [`LevelTrace::command_device_ns`] says); `None` where a command was
    /// not timed, or no level ran.
    #[must_use]
    pub fn device_time(&self) -> Option<Duration> {
        let mut total_ns = 0u64;
        let mut command = None;
        for level in &self.levels {
            if command != Some(level.command) {
                total_ns = total_ns.saturating_add(level.command_device_ns?);
                command = Some(level.command);
            }
        }
        (!self.levels.is_empty()).then(|| Duration::from_nanos(total_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(command: u32, command_device_ns: Option<u64>) -> LevelTrace {
        LevelTrace {
            level: 0,
            command,
            command_levels: 1,
            topology: MegakernelExecutionTopology::WarpSparseFrontier,
            exchange: None,
            explanation: Arc::from(""),
            frontier_in: 1,
            frontier_out: 1,
            edges_examined: 1,
            device_ns: None,
            command_device_ns,
            command_wall_ns: 0,
        }
    }

    fn result(levels: Vec<LevelTrace>) -> SearchResult {
        SearchResult {
            depths: Vec::new(),
            parents: Vec::new(),
            levels,
            search_time: Duration::ZERO,
            readback_time: Duration::ZERO,
        }
    }

    #[test]
    fn each_commands_device_time_counts_once() {
        let levels = vec![
            level(0, Some(10_000)),
            level(0, Some(10_000)),
            level(1, Some(5_000)),
        ];
        assert_eq!(
            result(levels).device_time(),
            Some(Duration::from_nanos(15_000))
        );
    }

    #[test]
    fn an_untimed_command_or_no_level_leaves_no_device_time() {
        let levels = vec![level(0, Some(10_000)), level(1, None)];
        assert_eq!(result(levels).device_time(), None);
        assert_eq!(result(Vec::new()).device_time(), None);
    }
}
