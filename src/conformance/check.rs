//! Running one case on one device and judging the result.

use std::time::Duration;

use vyre_graph::validate::validate_bfs;
use vyre_runtime::{BatchRequest, ChainMode, EngineError, SearchRequest, TopologyChoice};

use super::Case;
use crate::{Device, Topology, VyreError, topology_name};

/// Every mode conformance runs: the policy's choice, then each topology
/// forced.
#[must_use]
pub fn modes() -> Vec<TopologyChoice> {
    std::iter::once(TopologyChoice::Auto)
        .chain(Topology::ALL.into_iter().map(TopologyChoice::Forced))
        .collect()
}

/// How one search of one case came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Depths equal the reference and every Graph500 check passed.
    Pass,
    /// A depth differs from the reference.
    DepthMismatch {
        /// First vertex that differs.
        vertex: u32,
        /// Reference depth.
        expected: u32,
        /// Device depth.
        got: u32,
    },
    /// A Graph500 check failed.
    Invalid(String),
    /// The device cannot run the forced topology (not a failure).
    Unsupported(String),
    /// The search failed.
    Error(String),
}

impl Verdict {
    /// Whether this verdict is a conformance failure.
    #[must_use]
    pub fn is_failure(&self) -> bool {
        matches!(
            self,
            Self::DepthMismatch { .. } | Self::Invalid(_) | Self::Error(_)
        )
    }
}

/// One search's outcome.
#[derive(Clone, Debug)]
pub struct CaseOutcome {
    /// Case name.
    pub case: String,
    /// `auto` or the forced topology's short name.
    pub mode: String,
    /// Sources of the search.
    pub sources: Vec<u32>,
    /// Verdict.
    pub verdict: Verdict,
    /// Levels the search ran.
    pub levels: usize,
    /// Topologies the search used, in order, without repeats.
    pub topologies: Vec<Topology>,
    /// Search time.
    pub time: Duration,
}

/// Run every source set of `case` on `device` in `mode` (the case's graph
/// must be loaded already) and judge each result.
pub fn check_case(device: &mut Device, case: &Case, mode: TopologyChoice) -> Vec<CaseOutcome> {
    let mode_name = mode_name(mode);
    case.sources
        .iter()
        .enumerate()
        .map(|(index, sources)| {
            let mut request = SearchRequest::new(sources);
            request.topology = mode;
            let mut outcome = CaseOutcome {
                case: case.name.clone(),
                mode: mode_name.clone(),
                sources: sources.clone(),
                verdict: Verdict::Pass,
                levels: 0,
                topologies: Vec::new(),
                time: Duration::ZERO,
            };
            match device.search(&request) {
                Ok(result) => {
                    outcome.levels = result.levels.len();
                    outcome.time = result.search_time;
                    for level in &result.levels {
                        if outcome.topologies.last() != Some(&level.topology) {
                            outcome.topologies.push(level.topology);
                        }
                    }
                    outcome.verdict = judge(case, index, &result.depths, &result.parents);
                }
                Err(VyreError::Engine(e @ EngineError::TopologyUnavailable { .. })) => {
                    outcome.verdict = Verdict::Unsupported(e.to_string());
                }
                Err(e) => outcome.verdict = Verdict::Error(e.to_string()),
            }
            outcome
        })
        .collect()
}

fn judge(case: &Case, index: usize, depths: &[u32], parents: &[u32]) -> Verdict {
    let expected = case.expected(index);
    if depths.len() != expected.depths.len() {
        return Verdict::Error(format!(
            "{} depths for {} vertices",
            depths.len(),
            expected.depths.len()
        ));
    }
    if let Some(v) = (0..depths.len()).find(|&v| depths[v] != expected.depths[v]) {
        return Verdict::DepthMismatch {
            vertex: v as u32,
            expected: expected.depths[v],
            got: depths[v],
        };
    }
    match validate_bfs(&case.graph, &case.sources[index], depths, parents) {
        Ok(_) => Verdict::Pass,
        Err(e) => Verdict::Invalid(e.to_string()),
    }
}

/// Run `case`'s batch sources as one batch (two passes when there are more
/// than 64) on `device` in `mode`, keeping every depth, and judge every
/// search against its reference BFS: depths, then the reached count, depth
/// sum and eccentricity the batch derived from its per-level counts.
pub fn check_batch(device: &mut Device, case: &Case, mode: TopologyChoice) -> CaseOutcome {
    let mut outcome = CaseOutcome {
        case: case.name.clone(),
        mode: mode_name(mode),
        sources: case.batch_sources.clone(),
        verdict: Verdict::Pass,
        levels: 0,
        topologies: Vec::new(),
        time: Duration::ZERO,
    };
    if case.batch_sources.is_empty() {
        return outcome;
    }
    let request = BatchRequest {
        sources: &case.batch_sources,
        keep_depths: true,
        topology: mode,
        chaining: ChainMode::Auto,
    };
    match device.bfs_batch(&request) {
        Ok(result) => {
            outcome.time = result.search_time;
            for level in result.passes.iter().flat_map(|p| &p.levels) {
                outcome.levels += 1;
                if outcome.topologies.last() != Some(&level.topology) {
                    outcome.topologies.push(level.topology);
                }
            }
            outcome.verdict = judge_batch(case, &result);
        }
        Err(VyreError::Engine(e @ EngineError::TopologyUnavailable { .. })) => {
            outcome.verdict = Verdict::Unsupported(e.to_string());
        }
        Err(e) => outcome.verdict = Verdict::Error(e.to_string()),
    }
    outcome
}

fn judge_batch(case: &Case, result: &vyre_runtime::BatchResult) -> Verdict {
    let k = case.batch_sources.len();
    let Some(depths) = result.depths.as_ref() else {
        return Verdict::Error("the batch kept no depths".into());
    };
    for (j, expected) in case.batch_expected().iter().enumerate() {
        if let Some(v) = (0..expected.len()).find(|&v| depths[v * k + j] != expected[v]) {
            return Verdict::DepthMismatch {
                vertex: v as u32,
                expected: expected[v],
                got: depths[v * k + j],
            };
        }
        let reached: Vec<u64> = expected
            .iter()
            .filter(|&&d| d != u32::MAX)
            .map(|&d| u64::from(d))
            .collect();
        let lane = result.lanes[j];
        let totals = (
            reached.len() as u64,
            reached.iter().sum::<u64>(),
            reached.iter().copied().max().unwrap_or(0),
        );
        if (lane.reached, lane.depth_sum, u64::from(lane.eccentricity)) != totals {
            return Verdict::Invalid(format!(
                "search {j} from {}: reached/depth sum/eccentricity {:?}, expected {totals:?}",
                lane.source,
                (lane.reached, lane.depth_sum, lane.eccentricity)
            ));
        }
    }
    Verdict::Pass
}

fn mode_name(mode: TopologyChoice) -> String {
    match mode {
        TopologyChoice::Auto => "auto".to_string(),
        TopologyChoice::Forced(t) => topology_name(t).to_string(),
    }
}
