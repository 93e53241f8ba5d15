//! `--batch`: every source searched as one batch of independent searches
//! (64 per pass over the graph), with per-search reached counts, depth
//! sums, closeness and eccentricity; `--write-depths` writes one column per
//! source.

use std::io::Write as _;
use std::time::Duration;

use vyre::graph::UNREACHED;
use vyre::graph::bfs::{ParallelBfsOptions, parallel_bfs};
use vyre::{BatchRequest, BatchResult, Device, LaneResult, topology_name, topology_sequence};

use crate::args::Args;
use crate::files::Output;
use crate::load::Loaded;
use crate::progress::{Count, Phases, seconds};

/// What a batch run measured.
pub struct BatchRun {
    pub result: BatchResult,
    /// Median wall time of the batch over `--repeat` runs.
    pub time: Duration,
    /// Searches whose depths differed from the CPU's parallel BFS (`None`
    /// when not validated).
    pub mismatches: Option<Vec<u32>>,
}

/// Run the batch `--repeat` times (the median time is reported) and, unless
/// `--no-validate`, check every search's depths against the CPU's BFS.
pub fn run(
    args: &Args,
    device: &mut Device,
    loaded: &Loaded,
    sources: &[u32],
    depths_out: Option<&mut Output>,
    phases: &Phases,
) -> Result<BatchRun, String> {
    let validate = !args.no_validate;
    let request = BatchRequest {
        sources,
        keep_depths: validate || depths_out.is_some(),
        topology: args.topology,
        chaining: args.chain,
    };
    let repeats = args.repeat.max(1);
    let phase = phases.start("batch", Count::Items(u64::from(repeats)));
    let mut times = Vec::with_capacity(repeats as usize);
    let mut last = None;
    for done in 1..=repeats {
        let result = device.bfs_batch(&request).map_err(|e| e.to_string())?;
        times.push(result.search_time);
        last = Some(result);
        phase.set(u64::from(done));
    }
    let result = last.ok_or("the batch did not run. Fix: pass --repeat 1 or more.")?;
    times.sort_unstable();
    let time = times[times.len() / 2];
    phase.finish(&format!(
        "{} searches in {} pass(es), {repeats} timed run(s)",
        sources.len(),
        result.passes.len()
    ));
    if let (Some(out), Some(depths)) = (depths_out, result.depths.as_ref()) {
        write_columns(out, depths, sources.len())?;
    }
    let mismatches = if validate {
        let phase = phases.start("validate", Count::Items(sources.len() as u64));
        let bad = check_depths(loaded, sources, &result, &phase);
        phase.finish(&format!(
            "{} searches' depths against the CPU's BFS",
            sources.len()
        ));
        Some(bad)
    } else {
        None
    };
    Ok(BatchRun {
        result,
        time,
        mismatches,
    })
}

/// Searches whose batch depths differ from a CPU BFS from the same source.
fn check_depths(
    loaded: &Loaded,
    sources: &[u32],
    result: &BatchResult,
    phase: &crate::progress::Phase<'_>,
) -> Vec<u32> {
    let Some(depths) = result.depths.as_ref() else {
        return sources.to_vec();
    };
    let k = sources.len();
    let mut bad = Vec::new();
    for (j, &s) in sources.iter().enumerate() {
        let tree = parallel_bfs(&loaded.graph, &[s], ParallelBfsOptions::default());
        let same = tree
            .depths
            .iter()
            .enumerate()
            .all(|(v, &d)| depths[v * k + j] == d);
        if !same {
            bad.push(s);
        }
        phase.set(j as u64 + 1);
    }
    bad
}

/// One line per vertex, one depth per source in `--source` order,
/// separated by spaces (-1 = unreached).
fn write_columns(out: &mut Output, depths: &[u32], k: usize) -> Result<(), String> {
    let mut text = Vec::with_capacity(depths.len() * 3);
    for row in depths.chunks_exact(k.max(1)) {
        for (j, &d) in row.iter().enumerate() {
            let sep = if j == 0 { "" } else { " " };
            let written = if d == UNREACHED {
                write!(text, "{sep}-1")
            } else {
                write!(text, "{sep}{d}")
            };
            written.map_err(|e| e.to_string())?;
        }
        text.push(b'\n');
    }
    out.write(&text)
}

/// Closeness of one search: the reached vertices besides the source over
/// their depth sum (0 when it reached nothing).
pub fn closeness(lane: &LaneResult) -> f64 {
    if lane.depth_sum == 0 {
        0.0
    } else {
        (lane.reached - 1) as f64 / lane.depth_sum as f64
    }
}

/// The readable report of a batch.
pub fn print_human(run: &BatchRun, show_trace: bool) {
    let r = &run.result;
    println!(
        "batch    {} searches in {} pass(es): {} (median)",
        r.lanes.len(),
        r.passes.len(),
        seconds(run.time)
    );
    for (i, pass) in r.passes.iter().enumerate() {
        println!(
            "pass {i}   searches {}..{}: {} levels, {}, {}",
            pass.first,
            pass.first + pass.lanes as usize,
            pass.levels.len(),
            seconds(pass.search_time),
            topology_sequence(&pass.levels)
        );
        if show_trace {
            for level in &pass.levels {
                println!(
                    "  level {:>4}  {:<11} frontier {:>10}  found {:>10}  edges {:>12}",
                    level.level,
                    topology_name(level.topology),
                    level.frontier_in,
                    level.frontier_out,
                    level.edges_examined
                );
            }
        }
    }
    println!(
        "{:>10} {:>10} {:>14} {:>12} {:>10}",
        "source", "reached", "depth sum", "eccentricity", "closeness"
    );
    for lane in &r.lanes {
        println!(
            "{:>10} {:>10} {:>14} {:>12} {:>10.6}",
            lane.source,
            lane.reached,
            lane.depth_sum,
            lane.eccentricity,
            closeness(lane)
        );
    }
    match &run.mismatches {
        None => println!("depths   not validated"),
        Some(bad) if bad.is_empty() => println!("depths   every search equals the CPU's BFS"),
        Some(bad) => println!("depths   DIFFER from the CPU's BFS for sources {bad:?}"),
    }
}

/// The batch part of `--json`.
pub fn json(run: &BatchRun) -> serde_json::Value {
    let r = &run.result;
    serde_json::json!({
        "batch_seconds": run.time.as_secs_f64(),
        "passes": r.passes.iter().map(|p| serde_json::json!({
            "first": p.first,
            "searches": p.lanes,
            "levels": p.levels.len(),
            "seconds": p.search_time.as_secs_f64(),
            "topologies": topology_sequence(&p.levels),
        })).collect::<Vec<_>>(),
        "searches": r.lanes.iter().map(|l| serde_json::json!({
            "source": l.source,
            "reached": l.reached,
            "depth_sum": l.depth_sum,
            "eccentricity": l.eccentricity,
            "closeness": closeness(l),
        })).collect::<Vec<_>>(),
        "depths_valid": run.mismatches.as_ref().map(Vec::is_empty),
    })
}
