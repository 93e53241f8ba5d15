//! Batched searches: many independent BFS searches in passes of up to 64,
//! each pass one search over 64-bit lane words (see
//! `vyre_driver::backend::BatchSources`). Distinct from a multi-source
//! search, which is one search starting from several vertices at once.

use std::time::Duration;

use vyre_driver::backend::{BATCH_LANES, BatchLayout, BatchSources, LaneCounts, SearchPosition};

use super::waves::{Pass, WavePlan};
use super::{ChainMode, Engine, EngineError, LevelTrace, TopologyChoice};

/// A batch of independent searches.
#[derive(Clone, Copy, Debug)]
pub struct BatchRequest<'a> {
    /// One search per entry, in this order (repeats are separate searches).
    /// More than 64 run in several passes.
    pub sources: &'a [u32],
    /// Keep every search's depth of every vertex (`n x sources` words on
    /// the device and the host); otherwise only each search's counts.
    pub keep_depths: bool,
    /// Topology choice for every wave of every pass.
    pub topology: TopologyChoice,
    /// Chaining of per-wave topologies.
    pub chaining: ChainMode,
}

impl<'a> BatchRequest<'a> {
    /// Searches from `sources`, counts only, the policy choosing everything.
    #[must_use]
    pub fn new(sources: &'a [u32]) -> Self {
        Self {
            sources,
            keep_depths: false,
            topology: TopologyChoice::Auto,
            chaining: ChainMode::Auto,
        }
    }
}

/// What one search of a batch found.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct LaneResult {
    /// Its source.
    pub source: u32,
    /// Vertices it reached, the source included.
    pub reached: u64,
    /// The sum of their depths (closeness is `(reached - 1) / depth_sum`).
    pub depth_sum: u64,
    /// The largest depth it reached (the source's eccentricity within its
    /// component).
    pub eccentricity: u32,
}

/// One pass of a batch: up to 64 searches run together.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTrace {
    /// Index in the request of the pass's first search.
    pub first: usize,
    /// Searches in the pass.
    pub lanes: u32,
    /// Every level of the pass, with the policy's choices.
    pub levels: Vec<LevelTrace>,
    /// Host wall time of the pass's waves.
    pub search_time: Duration,
}

/// The outcome of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchResult {
    /// One per requested source, in order.
    pub lanes: Vec<LaneResult>,
    /// With `keep_depths`: vertex-major, `depths[v * sources + i]` is search
    /// `i`'s depth of `v` (`u32::MAX` = unreached).
    pub depths: Option<Vec<u32>>,
    /// The passes, in order.
    pub passes: Vec<PassTrace>,
    /// Host wall time of every pass's waves together.
    pub search_time: Duration,
}

impl Engine {
    /// Run a batch of independent searches, 64 at a time.
    ///
    /// # Errors
    ///
    /// [`EngineError`] for a missing graph, bad sources, batch state that
    /// does not fit the memory budget (nothing allocated), a forced topology
    /// the device cannot run, or a backend failure.
    pub fn bfs_batch(&mut self, request: &BatchRequest<'_>) -> Result<BatchResult, EngineError> {
        let loaded = self.loaded.as_ref().ok_or(EngineError::NoGraph)?;
        let graph = &loaded.graph;
        let n = graph.vertex_count() as usize;
        let total = request.sources.len();
        let device_sources = loaded.device_ids(request.sources);
        let chunks: Vec<BatchSources> = device_sources
            .chunks(BATCH_LANES as usize)
            .map(|chunk| BatchSources::new(chunk, graph))
            .collect::<Result<_, _>>()?;
        if chunks.is_empty() {
            return Err(EngineError::NoSources);
        }
        let plan = WavePlan::new(
            self.backend.as_ref(),
            loaded,
            request.topology,
            request.chaining,
            Pass::Batch,
        )?;
        let mut depths = if request.keep_depths {
            Some(try_filled(n.saturating_mul(total))?)
        } else {
            None
        };
        let mut lanes = Vec::with_capacity(total);
        let mut passes = Vec::with_capacity(chunks.len());
        let mut search_time = Duration::ZERO;
        for (index, sources) in chunks.iter().enumerate() {
            let first = index * BATCH_LANES as usize;
            let layout = BatchLayout {
                vertex_count: graph.vertex_count(),
                lanes: sources.lanes(),
                keep_depths: request.keep_depths,
                max_levels_per_command: loaded.layout.max_levels_per_command,
            };
            let required = loaded
                .layout
                .total_bytes()
                .saturating_add(layout.total_bytes());
            if required > loaded.budget_bytes {
                return Err(EngineError::BatchMemory {
                    required_bytes: required,
                    budget_bytes: loaded.budget_bytes,
                    lanes: sources.lanes(),
                    keep_depths: request.keep_depths,
                });
            }
            self.backend.begin_batch(sources, &layout)?;
            let held = self.backend.allocated_bytes();
            if held > required {
                return Err(EngineError::ContractViolation(format!(
                    "the backend holds {held} bytes during a batch pass but the plan allows {required}"
                )));
            }
            let mut counts: Vec<LaneCounts> = Vec::new();
            let (levels, time) = plan.run(
                self.backend.as_mut(),
                loaded,
                SearchPosition::start_batch(sources),
                |backend, command| {
                    let report = backend.run_batch_wave(command)?;
                    counts.extend_from_slice(&report.lanes);
                    Ok(report.wave)
                },
            )?;
            if counts.len() != levels.len() {
                return Err(EngineError::ContractViolation(format!(
                    "a batch pass reported lane counts for {} levels but ran {}",
                    counts.len(),
                    levels.len()
                )));
            }
            lanes.extend(
                lane_results(sources, &counts)
                    .into_iter()
                    .map(|lane| LaneResult {
                        source: loaded.caller_id(lane.source),
                        ..lane
                    }),
            );
            if let Some(all) = depths.as_mut() {
                let k = sources.lanes() as usize;
                let mut pass = try_filled(n * k)?;
                self.backend.read_batch_depths(&mut pass)?;
                for (v, row) in pass.chunks_exact(k).enumerate() {
                    let v = loaded.caller_id(v as u32) as usize;
                    all[v * total + first..v * total + first + k].copy_from_slice(row);
                }
            }
            search_time += time;
            passes.push(PassTrace {
                first,
                lanes: sources.lanes(),
                levels,
                search_time: time,
            });
        }
        Ok(BatchResult {
            lanes,
            depths,
            passes,
            search_time,
        })
    }
}

/// Each lane's totals from its per-level discoveries: level `k`'s
/// discoveries lie at depth `k + 1`.
fn lane_results(sources: &BatchSources, counts: &[LaneCounts]) -> Vec<LaneResult> {
    sources
        .ids()
        .iter()
        .enumerate()
        .map(|(j, &source)| {
            let mut lane = LaneResult {
                source,
                reached: 1,
                ..LaneResult::default()
            };
            for (k, level) in counts.iter().enumerate() {
                let found = u64::from(level[j]);
                if found > 0 {
                    let depth = k as u32 + 1;
                    lane.reached += found;
                    lane.depth_sum += found * u64::from(depth);
                    lane.eccentricity = depth;
                }
            }
            lane
        })
        .collect()
}

/// `len` words of `u32::MAX`, or a typed error when the host cannot hold
/// them.
fn try_filled(len: usize) -> Result<Vec<u32>, EngineError> {
    let mut words = Vec::new();
    words
        .try_reserve_exact(len)
        .map_err(|_| EngineError::HostMemory {
            what: "the batch's depths",
            bytes: len as u64 * 4,
        })?;
    words.resize(len, u32::MAX);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;

    #[test]
    fn lane_totals_add_each_levels_discoveries_at_its_depth() {
        let g = build_graph(5, &[(0, 1)], BuildOptions::UNDIRECTED).unwrap();
        let sources = BatchSources::new(&[0, 4], &g).unwrap();
        let mut first = [0u32; 64];
        first[0] = 2;
        let mut second = [0u32; 64];
        second[0] = 3;
        let lanes = lane_results(&sources, &[first, second]);
        assert_eq!(
            lanes[0],
            LaneResult {
                source: 0,
                reached: 6,
                depth_sum: 2 + 6,
                eccentricity: 2
            }
        );
        // A lane that found nothing reached its source alone.
        assert_eq!(
            lanes[1],
            LaneResult {
                source: 4,
                reached: 1,
                depth_sum: 0,
                eccentricity: 0
            }
        );
    }
}
