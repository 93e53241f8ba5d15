//! What the `bfs` example prints.

use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use vyre::graph::{Graph, UNREACHED};
use vyre::measure::Measurement;
use vyre::{BackendKind, DeviceCapabilities, topology_name, topology_sequence};

/// What the report says besides the measurements.
pub struct Context<'a> {
    pub device: &'a DeviceCapabilities,
    pub backend: BackendKind,
    pub graph: &'a Graph,
    pub graph_name: &'a str,
    pub load_time: Duration,
    pub upload_time: Duration,
    pub forced: bool,
}

fn verdict(run: &vyre::measure::SourceRun) -> &str {
    match &run.validation {
        None => "not validated",
        Some(Ok(())) => "valid",
        Some(Err(_)) => "INVALID",
    }
}

/// The human-readable report.
pub fn print_human(ctx: &Context<'_>, m: &Measurement, trace: bool) {
    let d = ctx.device;
    println!("device   {} ({})", d.device_name, ctx.backend);
    println!(
        "graph    {}: {} vertices, {} stored edges ({}), built/loaded in {:.2?}, uploaded in {:.2?}",
        ctx.graph_name,
        ctx.graph.vertex_count(),
        ctx.graph.edge_count(),
        if ctx.graph.is_symmetric() {
            "undirected"
        } else {
            "directed"
        },
        ctx.load_time,
        ctx.upload_time
    );
    println!(
        "{:>10} {:>7} {:>12} {:>14} {:>9}  {:<14} topologies",
        "source", "levels", "time", "edges", "GTEPS", "validation"
    );
    for run in &m.runs {
        println!(
            "{:>10} {:>7} {:>12.3?} {:>14} {:>9.3}  {:<14} {}",
            run.source,
            run.result.levels.len(),
            run.time,
            run.edges,
            run.teps / 1e9,
            verdict(run),
            topology_sequence(&run.result.levels)
        );
        if let Some(Err(why)) = &run.validation {
            println!("           {why}");
        }
    }
    println!(
        "harmonic-mean {:.3} GTEPS over {} source(s); validation: {}",
        m.hmean_teps / 1e9,
        m.runs.len(),
        if m.runs.iter().all(|r| r.validation.is_none()) {
            "skipped"
        } else if m.all_valid() {
            "all passed"
        } else {
            "FAILED"
        }
    );
    if trace {
        for run in &m.runs {
            print_trace(run, ctx.forced);
        }
    }
}

fn print_trace(run: &vyre::measure::SourceRun, forced: bool) {
    println!("\ntrace of source {}:", run.source);
    println!(
        "{:>6} {:>4} {:<12} {:>11} {:>11} {:>13} {:>11} {:>11}  explanation",
        "level", "cmd", "topology", "frontier", "found", "edges seen", "device", "cmd wall"
    );
    let mut last_command = u32::MAX;
    for level in &run.result.levels {
        let device = level
            .device_ns
            .map_or_else(|| "-".to_string(), |ns| format!("{:.1}us", ns as f64 / 1e3));
        let (wall, explanation) = if level.command == last_command {
            (String::new(), "")
        } else {
            let wall = format!("{:.1}us", level.command_wall_ns as f64 / 1e3);
            (wall, level.explanation.as_str())
        };
        last_command = level.command;
        println!(
            "{:>6} {:>4} {:<12} {:>11} {:>11} {:>13} {:>11} {:>11}  {}",
            level.level,
            level.command,
            topology_name(level.topology),
            level.frontier_in,
            level.frontier_out,
            level.edges_examined,
            device,
            wall,
            if forced && explanation.is_empty() {
                ""
            } else {
                explanation
            }
        );
    }
}

/// The machine-readable summary (one JSON object).
pub fn json(ctx: &Context<'_>, m: &Measurement) -> String {
    let runs: Vec<serde_json::Value> = m
        .runs
        .iter()
        .map(|run| {
            let valid = match &run.validation {
                None => serde_json::Value::Null,
                Some(Ok(())) => serde_json::Value::Bool(true),
                Some(Err(why)) => serde_json::Value::String(why.clone()),
            };
            serde_json::json!({
                "source": run.source,
                "seconds": run.time.as_secs_f64(),
                "levels": run.result.levels.len(),
                "edges": run.edges,
                "gteps": run.teps / 1e9,
                "valid": valid,
                "topologies": topology_sequence(&run.result.levels),
            })
        })
        .collect();
    serde_json::json!({
        "device": ctx.device.device_name,
        "backend": ctx.backend.name(),
        "graph": ctx.graph_name,
        "vertices": ctx.graph.vertex_count(),
        "stored_edges": ctx.graph.edge_count(),
        "symmetric": ctx.graph.is_symmetric(),
        "hmean_gteps": m.hmean_teps / 1e9,
        "all_valid": m.all_valid(),
        "runs": runs,
    })
    .to_string()
}

/// One line per vertex: its depth, or -1 when unreached.
pub fn write_depths(path: &Path, depths: &[u32]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| {
        format!(
            "cannot create {}: {e}. Fix: pass a writable path to --write-depths.",
            path.display()
        )
    })?;
    let mut out = std::io::BufWriter::new(file);
    let fail = |e: std::io::Error| {
        format!(
            "writing {} failed: {e}. Fix: check free disk space.",
            path.display()
        )
    };
    for &d in depths {
        if d == UNREACHED {
            writeln!(out, "-1").map_err(fail)?;
        } else {
            writeln!(out, "{d}").map_err(fail)?;
        }
    }
    out.flush().map_err(fail)
}
