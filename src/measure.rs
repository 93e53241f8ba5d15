//! Timed searches with Graph500 counting and validation: what the `bfs`
//! example and `cargo xtask bench` report.

use std::time::Duration;

use vyre_graph::Graph;
use vyre_graph::teps::{harmonic_mean, searched_edges};
use vyre_graph::validate::validate_bfs;
use vyre_runtime::{ChainMode, SearchRequest, SearchResult, TopologyChoice};

use crate::{Device, VyreError};

/// How to run a measurement.
#[derive(Clone, Copy, Debug)]
pub struct MeasureRequest<'a> {
    /// One search per source.
    pub sources: &'a [u32],
    /// Topology choice for every search.
    pub topology: TopologyChoice,
    /// Chaining for every search.
    pub chaining: ChainMode,
    /// Run the five Graph500 checks on every result.
    pub validate: bool,
    /// Timed repetitions per source (the median is reported); at least 1.
    /// One untimed search from the first source runs before them, so that
    /// what a backend builds on first use (pipelines, kernels) is not timed.
    pub repeats: u32,
}

/// One source's measurement.
#[derive(Clone, Debug)]
pub struct SourceRun {
    /// The source.
    pub source: u32,
    /// Median search time over the repetitions.
    pub time: Duration,
    /// Every repetition's search time, shortest first.
    pub times: Vec<Duration>,
    /// Every repetition's device time (`SearchResult::device_time`), in the
    /// order of `times`, so that entry `i` of each is the same search.
    pub device_times: Vec<Option<Duration>>,
    /// Undirected edges in the searched component (Graph500 counting).
    pub edges: u64,
    /// `edges / time`.
    pub teps: f64,
    /// `None` when not validated, else the validation outcome.
    pub validation: Option<Result<(), String>>,
    /// The last repetition's result (depths, parents, trace).
    pub result: SearchResult,
}

/// Measurements of every source.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// One entry per source, in order.
    pub runs: Vec<SourceRun>,
    /// Harmonic mean of the per-source TEPS (Graph500's summary).
    pub hmean_teps: f64,
}

impl Measurement {
    /// Whether every validated result passed.
    #[must_use]
    pub fn all_valid(&self) -> bool {
        self.runs
            .iter()
            .all(|r| !matches!(r.validation, Some(Err(_))))
    }
}

/// A step of [`measure_with`], for progress displays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureEvent {
    /// The searches (every repetition) of `done` of `of` sources finished.
    Searched {
        /// Sources searched so far.
        done: usize,
        /// Sources in all.
        of: usize,
    },
    /// The Graph500 checks of `done` of `of` results finished.
    Validated {
        /// Results checked so far.
        done: usize,
        /// Results in all.
        of: usize,
    },
}

/// Search `graph` (already loaded on `device`) from every source.
///
/// # Errors
///
/// [`VyreError`] when a search fails.
pub fn measure(
    device: &mut Device,
    graph: &Graph,
    request: &MeasureRequest<'_>,
) -> Result<Measurement, VyreError> {
    measure_with(device, graph, request, &mut |_| {})
}

/// [`measure`], telling `observe` as each search and each validation
/// finishes. Every search runs before the first validation, so the two
/// phases can be shown (and timed) apart.
///
/// # Errors
///
/// [`VyreError`] when a search fails.
pub fn measure_with(
    device: &mut Device,
    graph: &Graph,
    request: &MeasureRequest<'_>,
    observe: &mut dyn FnMut(MeasureEvent),
) -> Result<Measurement, VyreError> {
    let of = request.sources.len();
    let mut searched = Vec::with_capacity(of);
    if let Some(&first) = request.sources.first() {
        device.search(&SearchRequest {
            sources: &[first],
            topology: request.topology,
            chaining: request.chaining,
        })?;
    }
    for (i, &source) in request.sources.iter().enumerate() {
        let sources = [source];
        let search = SearchRequest {
            sources: &sources,
            topology: request.topology,
            chaining: request.chaining,
        };
        let mut timed = Vec::new();
        let mut last = None;
        for _ in 0..request.repeats.max(1) {
            let result = device.search(&search)?;
            timed.push((result.search_time, result.device_time()));
            last = Some(result);
        }
        let result = last.expect("at least one repetition ran");
        timed.sort_unstable_by_key(|&(wall, _)| wall);
        let (times, device_times): (Vec<Duration>, Vec<Option<Duration>>) =
            timed.into_iter().unzip();
        searched.push((source, times, device_times, result));
        observe(MeasureEvent::Searched { done: i + 1, of });
    }
    let mut runs = Vec::with_capacity(of);
    for (i, (source, times, device_times, result)) in searched.into_iter().enumerate() {
        let time = times[times.len() / 2];
        let edges = searched_edges(graph, &result.depths);
        let validation = request.validate.then(|| {
            let checked = validate_bfs(graph, &[source], &result.depths, &result.parents)
                .map(|_| ())
                .map_err(|e| e.to_string());
            observe(MeasureEvent::Validated { done: i + 1, of });
            checked
        });
        runs.push(SourceRun {
            source,
            time,
            times,
            device_times,
            edges,
            teps: edges as f64 / time.as_secs_f64().max(1e-12),
            validation,
            result,
        });
    }
    let teps: Vec<f64> = runs.iter().map(|r| r.teps).collect();
    Ok(Measurement {
        hmean_teps: harmonic_mean(&teps),
        runs,
    })
}
