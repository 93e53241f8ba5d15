//! What the `bfs` example prints.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use vyre::graph::{Graph, UNREACHED};
use vyre::measure::Measurement;
use vyre::{DeviceCapabilities, topology_name};

/// What the report says besides the measurements.
pub struct Context<'a> {
    pub device: &'a DeviceCapabilities,
    pub graph: &'a Graph,
    pub graph_name: &'a str,
    pub load_time: Duration,
    pub upload_time: Duration,
    pub forced: bool,
}

/// Topology sequence of one search, e.g. `sparse x2 > dense x3 > sparse`.
fn topology_sequence(levels: &[vyre::LevelTrace]) -> String {
    let mut runs: Vec<(&'static str, usize)> = Vec::new();
    for level in levels {
        let name = topology_name(level.topology);
        match runs.last_mut() {
            Some((last, count)) if *last == name => *count += 1,
            _ => runs.push((name, 1)),
        }
    }
    runs.iter()
        .map(|(name, count)| {
            if *count > 1 {
                format!("{name} x{count}")
            } else {
                (*name).to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
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
    println!("device   {} ({})", d.device_name, d.backend);
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

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The machine-readable summary (one JSON object).
pub fn json(ctx: &Context<'_>, m: &Measurement) -> String {
    let runs: Vec<String> = m
        .runs
        .iter()
        .map(|run| {
            let validation = match &run.validation {
                None => "null".to_string(),
                Some(Ok(())) => "true".to_string(),
                Some(Err(why)) => json_escape(why),
            };
            format!(
                "{{\"source\":{},\"seconds\":{},\"levels\":{},\"edges\":{},\"gteps\":{},\"valid\":{},\"topologies\":{}}}",
                run.source,
                run.time.as_secs_f64(),
                run.result.levels.len(),
                run.edges,
                run.teps / 1e9,
                validation,
                json_escape(&topology_sequence(&run.result.levels))
            )
        })
        .collect();
    format!(
        "{{\"device\":{},\"backend\":{},\"graph\":{},\"vertices\":{},\"stored_edges\":{},\"symmetric\":{},\"hmean_gteps\":{},\"all_valid\":{},\"runs\":[{}]}}",
        json_escape(&ctx.device.device_name),
        json_escape(ctx.device.backend.name()),
        json_escape(ctx.graph_name),
        ctx.graph.vertex_count(),
        ctx.graph.edge_count(),
        ctx.graph.is_symmetric(),
        m.hmean_teps / 1e9,
        m.all_valid(),
        runs.join(",")
    )
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
