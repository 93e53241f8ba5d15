//! `cargo xtask bench-batch`: one batch of sampled sources against the same
//! sources searched one at a time, on the same backend in the same run. Every
//! lane's reached count, depth sum and eccentricity is checked against its
//! single search; the report gives medians with min and max over the
//! repetitions, the batch's levels and its device time per level.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use vyre::graph::spec::GraphSpec;
use vyre::graph::teps::sample_sources;
use vyre::{BackendChoice, BatchRequest, BatchResult, Device, OpenRequest};

use crate::clock::{ClockLog, ClockRange, cell};

/// Flags of `xtask bench-batch`.
#[derive(clap::Args)]
pub struct Args {
    /// Backends to compare (each must open).
    #[arg(long, value_delimiter = ',', default_value = "cuda,wgpu")]
    backends: Vec<String>,
    /// Graphs: generator specs or files.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "kron:22,kron:24,grid:3000x3000"
    )]
    graphs: Vec<String>,
    /// Sources of the batch (sampled among vertices with edges).
    #[arg(long, default_value_t = 64)]
    sources: usize,
    /// Timed repetitions of the batch and of the single searches.
    #[arg(long, default_value_t = 3)]
    repeats: u32,
    /// Directory for batch.md.
    #[arg(long, default_value = "target/bench-batch")]
    out: PathBuf,
    /// Commit the binaries were built from (recorded in the report).
    #[arg(long, default_value = "unknown")]
    commit: String,
}

/// Median, min and max of some durations, in ms.
struct Spread {
    median: f64,
    min: f64,
    max: f64,
}

impl Spread {
    fn of(samples: &[Duration]) -> Self {
        let ms: Vec<f64> = samples.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        Self {
            min: ms.iter().copied().reduce(f64::min).unwrap_or(f64::NAN),
            max: ms.iter().copied().reduce(f64::max).unwrap_or(f64::NAN),
            median: crate::bench::median(ms),
        }
    }

    fn cell(&self) -> String {
        format!("{:.3} ({:.3}–{:.3})", self.median, self.min, self.max)
    }
}

/// One graph on one backend.
struct Row {
    graph: String,
    backend: String,
    batch: Spread,
    singles: Spread,
    levels: usize,
    device_us_per_level: Option<f64>,
    topologies: String,
    checked: Result<(), String>,
    /// The SM clock while the row ran (warm-ups included), per GPU.
    clock: Vec<ClockRange>,
}

/// Each lane's totals against its single search's depths.
fn check_lanes(batch: &BatchResult, singles: &[Vec<u32>]) -> Result<(), String> {
    for (lane, depths) in batch.lanes.iter().zip(singles) {
        let reached: Vec<u32> = depths.iter().copied().filter(|&d| d != u32::MAX).collect();
        let sum: u64 = reached.iter().map(|&d| u64::from(d)).sum();
        let ecc = reached.iter().copied().max().unwrap_or(0);
        if (lane.reached, lane.depth_sum, lane.eccentricity) != (reached.len() as u64, sum, ecc) {
            return Err(format!(
                "source {}: batch reached {} (sum {}, eccentricity {}), single search {} ({sum}, {ecc})",
                lane.source,
                lane.reached,
                lane.depth_sum,
                lane.eccentricity,
                reached.len()
            ));
        }
    }
    Ok(())
}

fn measure(device: &mut Device, spec: &str, sources: &[u32], repeats: u32) -> Result<Row, String> {
    let err = |e: vyre::VyreError| e.to_string();
    // Untimed warm-up of both paths (pipelines, first-use allocations).
    device.bfs_batch(&BatchRequest::new(sources)).map_err(err)?;
    device.bfs(sources[0]).map_err(err)?;
    let mut batch_times = Vec::new();
    let mut single_times = Vec::new();
    let mut last = None;
    let mut single_depths = Vec::new();
    for _ in 0..repeats.max(1) {
        let result = device.bfs_batch(&BatchRequest::new(sources)).map_err(err)?;
        batch_times.push(result.search_time);
        last = Some(result);
        let mut searched = Duration::ZERO;
        single_depths.clear();
        for &s in sources {
            let one = device.bfs(s).map_err(err)?;
            searched += one.search_time;
            single_depths.push(one.depths);
        }
        single_times.push(searched);
    }
    let batch = last.expect("at least one repetition");
    let levels: Vec<_> = batch.passes.iter().flat_map(|p| p.levels.iter()).collect();
    let device_ns: Option<u64> = levels.iter().map(|l| l.device_ns).sum();
    Ok(Row {
        graph: spec.to_string(),
        backend: device.backend().to_string(),
        batch: Spread::of(&batch_times),
        singles: Spread::of(&single_times),
        levels: levels.len(),
        device_us_per_level: device_ns.map(|ns| ns as f64 / 1e3 / levels.len().max(1) as f64),
        topologies: batch
            .passes
            .iter()
            .map(|p| vyre::topology_sequence(&p.levels))
            .collect::<Vec<_>>()
            .join(" | "),
        checked: check_lanes(&batch, &single_depths),
        clock: Vec::new(),
    })
}

pub fn run(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut devices = Vec::new();
    for name in &args.backends {
        let choice: BackendChoice = name.parse()?;
        match vyre::open(&OpenRequest::new(choice)) {
            Ok(device) => devices.push(device),
            Err(e) => eprintln!("bench-batch: {name} unavailable: {e}"),
        }
    }
    if devices.is_empty() {
        return Err("no backend opened".into());
    }
    let mut rows = Vec::new();
    let clocks = ClockLog::start();
    for spec_text in &args.graphs {
        let spec: GraphSpec = spec_text.parse().map_err(|e| format!("{e}"))?;
        let graph = Arc::new(spec.build().map_err(|e| e.to_string())?);
        let sources = sample_sources(&graph, args.sources, 1);
        for device in &mut devices {
            device.load(Arc::clone(&graph)).map_err(|e| e.to_string())?;
            let (measured, clock) =
                clocks.around(|| measure(device, spec_text, &sources, args.repeats));
            match measured {
                Ok(row) => {
                    let row = Row { clock, ..row };
                    eprintln!(
                        "bench-batch: {spec_text} {}: batch {} ms, {} singles {} ms, {}",
                        row.backend,
                        row.batch.cell(),
                        sources.len(),
                        row.singles.cell(),
                        if row.checked.is_ok() {
                            "lanes match"
                        } else {
                            "LANES DIFFER"
                        }
                    );
                    rows.push(row);
                }
                Err(e) => eprintln!("bench-batch: {spec_text} {}: failed: {e}", device.backend()),
            }
        }
    }
    let report = report(args, &devices, &rows, clocks.unavailable.as_deref());
    let path = args.out.join("batch.md");
    std::fs::write(&path, &report).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    print!("{report}");
    if let Some(row) = rows.iter().find(|r| r.checked.is_err()) {
        return Err(format!(
            "{} on {}: {}",
            row.graph,
            row.backend,
            row.checked.as_ref().unwrap_err()
        ));
    }
    Ok(())
}

fn report(args: &Args, devices: &[Device], rows: &[Row], no_clock: Option<&str>) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "commit {}, run {}", args.commit, crate::bench::date());
    for d in devices {
        let _ = writeln!(md, "- {}", d.selection_reason());
    }
    if let Some(why) = no_clock {
        let _ = writeln!(md, "- SM clock not recorded: {why}");
    }
    let _ = writeln!(
        md,
        "\n{} sources, {} repetitions; ms: median (min–max) of the batch's search time and of the sum of the single searches' times\n",
        args.sources, args.repeats
    );
    md.push_str("| graph | backend | batch ms | singles ms | speed-up | batch levels | device µs/level | lanes | SM MHz min/median/max | topologies |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1}× | {} | {} | {} | {} | {} |",
            r.graph,
            r.backend,
            r.batch.cell(),
            r.singles.cell(),
            r.singles.median / r.batch.median.max(1e-9),
            r.levels,
            r.device_us_per_level
                .map_or("-".to_string(), |us| format!("{us:.1}")),
            match &r.checked {
                Ok(()) => "match".to_string(),
                Err(e) => format!("DIFFER: {e}"),
            },
            cell(&r.clock),
            r.topologies
        );
    }
    md
}
