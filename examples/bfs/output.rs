//! What the `bfs` example prints: a readable report or one JSON object.

use std::time::Duration;

use vyre::measure::{Measurement, SourceRun};
use vyre::{Device, LoadReport, topology_sequence};

use crate::load::{Loaded, shape};
use crate::progress::seconds;
use crate::trace;

/// What the report says besides the measurements.
pub struct Context<'a> {
    pub device: &'a Device,
    pub loaded: &'a Loaded,
    pub graph_name: &'a str,
    pub open_time: Duration,
    pub load_report: &'a LoadReport,
    pub validation_time: Duration,
}

fn verdict(run: &SourceRun) -> &str {
    match &run.validation {
        None => "not validated",
        Some(Ok(())) => "valid",
        Some(Err(_)) => "INVALID",
    }
}

/// A rate with its unit: `12.3 GTEPS`, `45.6 MTEPS`, `7.8 kTEPS`.
pub fn teps(rate: f64) -> String {
    let (scale, unit) = [(1e9, "GTEPS"), (1e6, "MTEPS"), (1e3, "kTEPS")]
        .into_iter()
        .find(|&(scale, _)| rate >= scale)
        .unwrap_or((1.0, "TEPS"));
    format!("{:.3} {unit}", rate / scale)
}

/// On a directed graph some sources reach almost nothing, and the harmonic
/// mean follows them: say so, with the way out.
fn directed_note(ctx: &Context<'_>, m: &Measurement) -> Option<String> {
    let graph = &ctx.loaded.graph;
    let most = m.runs.iter().map(|r| r.edges).max()?;
    let few = m.runs.iter().filter(|r| r.edges * 100 < most).count();
    (!graph.is_symmetric() && few > 0).then(|| {
        format!(
            "note: the graph is directed and {few} of {} sources reached under 1% of the edges the widest search did; the harmonic mean follows them. --symmetrize searches it undirected, as Graph500 does.",
            m.runs.len()
        )
    })
}

/// The report's first lines: device, backend, graph, phase times; with
/// `--trace` the device-wide barrier too.
pub fn print_header(ctx: &Context<'_>, show_trace: bool) {
    let caps = ctx.device.capabilities();
    let loaded = ctx.loaded;
    println!("device   {} ({})", caps.device_name, ctx.device.backend());
    println!("backend  {}", ctx.device.selection_reason());
    println!(
        "graph    {}: {}, {}; {}",
        ctx.graph_name,
        loaded.format,
        shape(&loaded.graph),
        loaded.numbering
    );
    println!("order    {}", ctx.load_report.order.reason);
    println!(
        "times    open {}, load {}, build {}, relabel {}, upload {}, validation {}",
        seconds(ctx.open_time),
        seconds(loaded.load_time),
        seconds(loaded.build_time),
        seconds(ctx.load_report.relabel_time),
        seconds(ctx.load_report.upload_time),
        seconds(ctx.validation_time)
    );
    if show_trace {
        let fused = if caps.can_fuse() {
            "fused waves allowed"
        } else {
            "no fused waves"
        };
        println!("barrier  {fused}: {}", caps.barrier_reason);
    }
}

/// The human-readable report.
pub fn print_human(ctx: &Context<'_>, m: &Measurement, show_trace: bool) {
    print_header(ctx, show_trace);
    println!(
        "{:>10} {:>7} {:>12} {:>14} {:>15}  {:<14} topologies",
        "source", "levels", "time", "edges", "rate", "validation"
    );
    for run in &m.runs {
        println!(
            "{:>10} {:>7} {:>12} {:>14} {:>15}  {:<14} {}",
            run.source,
            run.result.levels.len(),
            seconds(run.time),
            run.edges,
            teps(run.teps),
            verdict(run),
            topology_sequence(&run.result.levels)
        );
        if let Some(Err(why)) = &run.validation {
            println!("           {why}");
        }
    }
    println!(
        "harmonic mean {} over {} source(s); validation: {}",
        teps(m.hmean_teps),
        m.runs.len(),
        if m.runs.iter().all(|r| r.validation.is_none()) {
            "skipped"
        } else if m.all_valid() {
            "all passed"
        } else {
            "FAILED"
        }
    );
    if let Some(note) = directed_note(ctx, m) {
        println!("{note}");
    }
    if show_trace {
        for run in &m.runs {
            trace::print(run);
        }
    }
}

/// The machine-readable summary (one JSON object), every trace included.
pub fn json(ctx: &Context<'_>, m: &Measurement) -> String {
    let mut report = context_json(ctx);
    report["hmean_gteps"] = (m.hmean_teps / 1e9).into();
    report["all_valid"] = m.all_valid().into();
    report["runs"] = runs_json(m);
    report.to_string()
}

/// Every search of `m`, with its trace.
fn runs_json(m: &Measurement) -> serde_json::Value {
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
                "trace": trace::json(run),
            })
        })
        .collect();
    serde_json::Value::Array(runs)
}

/// The report's fields that do not depend on the searches.
pub fn context_json(ctx: &Context<'_>) -> serde_json::Value {
    let caps = ctx.device.capabilities();
    let graph = &ctx.loaded.graph;
    serde_json::json!({
        "device": caps.device_name,
        "backend": ctx.device.backend().name(),
        "backend_reason": ctx.device.selection_reason(),
        "device_wide_barrier": caps.can_fuse(),
        "barrier_reason": caps.barrier_reason,
        "graph": ctx.graph_name,
        "format": ctx.loaded.format,
        "numbering": ctx.loaded.numbering,
        "vertices": graph.vertex_count(),
        "stored_edges": graph.edge_count(),
        "symmetric": graph.is_symmetric(),
        "open_seconds": ctx.open_time.as_secs_f64(),
        "load_seconds": ctx.loaded.load_time.as_secs_f64(),
        "build_seconds": ctx.loaded.build_time.as_secs_f64(),
        "vertex_order": ctx.load_report.order.reason,
        "device_order": ctx.load_report.order.numbering.name(),
        "relabel_seconds": ctx.load_report.relabel_time.as_secs_f64(),
        "upload_seconds": ctx.load_report.upload_time.as_secs_f64(),
        "validation_seconds": ctx.validation_time.as_secs_f64(),
    })
}
