//! Rows of the benchmark and the two report files.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use vyre::Device;
use vyre::graph::Graph;
use vyre::measure::Measurement;

use super::charts::write_charts;
use super::export::Baseline;
use super::spread::{self, Spread};
use crate::clock::{ClockRange, cell};

/// Device-to-device copy bandwidth measured on the H200 (GPU.md), bytes/s.
const MEASURED_COPY_BANDWIDTH: f64 = 4.3e12;

/// One backend × variant on one graph.
pub struct Row {
    graph: String,
    vertices: u32,
    edges: u64,
    backend: String,
    variant: String,
    outcome: Result<Summary, String>,
}

struct Summary {
    median_ms: f64,
    /// Shortest and longest single search of any source and repetition.
    min_ms: f64,
    max_ms: f64,
    hmean_gteps: f64,
    levels: usize,
    per_level_us: f64,
    /// Device time per level of one search (the first source's last), where
    /// every command was timed on the device.
    device_per_level_us: Option<f64>,
    topologies: String,
    valid: Option<bool>,
    floor_us: f64,
    /// The SM clock while the variant ran (warm-up, timed searches and
    /// validation), per GPU; empty when not sampled.
    clock: Vec<ClockRange>,
    /// How single searches differ between sources and repetitions.
    spread: Option<Spread>,
}

/// The median of `values` (NaN for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Device µs per level of the median search of `run` (the search whose
/// wall time is the median's, so that both columns describe one search);
/// `None` where a command of it was not timed.
fn device_per_level_us(run: &vyre::measure::SourceRun) -> Option<f64> {
    median_device_per_level_us(&run.device_times, run.result.levels.len())
}

/// Device µs per level of the middle entry of `device_times` (in the order
/// of the wall times) over a search of `levels` levels.
fn median_device_per_level_us(device_times: &[Option<Duration>], levels: usize) -> Option<f64> {
    let device = (*device_times.get(device_times.len() / 2)?)?;
    (levels > 0).then(|| device.as_secs_f64() * 1e6 / levels as f64)
}

/// The shortest (`f64::min`) or longest (`f64::max`) single search of `m`.
fn extreme(m: &Measurement, pick: fn(f64, f64) -> f64) -> f64 {
    m.runs
        .iter()
        .flat_map(|r| r.times.iter().map(Duration::as_secs_f64))
        .reduce(pick)
        .unwrap_or(f64::NAN)
}

impl Row {
    pub fn new(spec: &str, graph: &Graph, device: &Device, variant: &str, m: &Measurement) -> Self {
        let first = &m.runs[0];
        let levels = first.result.levels.len();
        let median_s = median(m.runs.iter().map(|r| r.time.as_secs_f64()).collect());
        // Fewest bytes a level-synchronous search must move: every edge it
        // examined (4 B) plus one pass over offsets (8 B), depth and parent
        // (4 B each) per vertex.
        let examined: u64 = first.result.levels.iter().map(|l| l.edges_examined).sum();
        let bytes = examined as f64 * 4.0 + f64::from(graph.vertex_count()) * 16.0;
        let valid = if m.runs.iter().all(|r| r.validation.is_none()) {
            None
        } else {
            Some(m.all_valid())
        };
        Self {
            graph: spec.into(),
            vertices: graph.vertex_count(),
            edges: graph.edge_count(),
            backend: device.backend().name().into(),
            variant: variant.into(),
            outcome: Ok(Summary {
                median_ms: median_s * 1e3,
                min_ms: extreme(m, f64::min) * 1e3,
                max_ms: extreme(m, f64::max) * 1e3,
                hmean_gteps: m.hmean_teps / 1e9,
                levels,
                per_level_us: median_s * 1e6 / levels.max(1) as f64,
                device_per_level_us: device_per_level_us(first),
                topologies: vyre::topology_sequence(&first.result.levels),
                valid,
                floor_us: bytes / MEASURED_COPY_BANDWIDTH * 1e6,
                clock: Vec::new(),
                spread: Spread::of(m.runs.iter().map(|r| (r.source, r.times.as_slice()))),
            }),
        }
    }

    /// The row with the SM clock its variant ran at.
    pub fn with_clock(mut self, clock: Vec<ClockRange>) -> Self {
        if let Ok(s) = &mut self.outcome {
            s.clock = clock;
        }
        self
    }

    pub fn failed(spec: &str, graph: &Graph, device: &Device, variant: &str, why: &str) -> Self {
        Self {
            graph: spec.into(),
            vertices: graph.vertex_count(),
            edges: graph.edge_count(),
            backend: device.backend().name().into(),
            variant: variant.into(),
            outcome: Err(why.into()),
        }
    }

    pub fn one_line(&self) -> String {
        match &self.outcome {
            Ok(s) => format!(
                "{} {} {}: {:.3} ms, {:.2} GTEPS, {} levels, {:.2} us/level (device {}), {}, SM MHz {}",
                self.graph,
                self.backend,
                self.variant,
                s.median_ms,
                s.hmean_gteps,
                s.levels,
                s.per_level_us,
                device_cell(s.device_per_level_us),
                s.topologies,
                cell(&s.clock)
            ),
            Err(why) => format!(
                "{} {} {}: FAILED {why}",
                self.graph, self.backend, self.variant
            ),
        }
    }
}

/// A device time per level for the report, `-` where none was timed.
fn device_cell(us: Option<f64>) -> String {
    us.map_or_else(|| "-".into(), |us| format!("{us:.2}"))
}

/// Now, in UTC, to the minute.
pub fn date() -> String {
    std::process::Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d %H:%M UTC")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Write `bench.md` (tables), `bench.json` (every row and baseline) and the
/// SVG charts into `out`.
pub fn write_reports(
    out: &Path,
    commit: &str,
    devices: &[Device],
    unavailable: &[String],
    notes: &[String],
    rows: &[Row],
    baselines: &[Baseline],
) -> Result<(), String> {
    let mut md = String::new();
    let date = date();
    let _ = writeln!(md, "commit {commit}, run {date}");
    for d in devices {
        let c = d.capabilities();
        let _ = writeln!(
            md,
            "- {}: {} (launch overhead {:.1} us calibrated, resident workgroups {}; barrier: {})",
            d.backend(),
            c.device_name,
            c.launch_overhead_ns / 1e3,
            c.resident_workgroups,
            c.barrier_reason
        );
    }
    for why in unavailable {
        let _ = writeln!(md, "- not measured: {why}");
    }
    for note in notes {
        let _ = writeln!(md, "- {note}");
    }
    let _ = writeln!(
        md,
        "\n| graph | vertices | stored edges | backend | variant | median ms | min ms | max ms | hmean GTEPS | levels | us/level | device us/level | floor us | valid | SM MHz min/median/max | topologies |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    let mut json = Vec::new();
    for r in rows {
        match &r.outcome {
            Ok(s) => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.2} | {} | {:.2} | {} | {:.1} | {} | {} | {} |",
                    r.graph,
                    r.vertices,
                    r.edges,
                    r.backend,
                    r.variant,
                    s.median_ms,
                    s.min_ms,
                    s.max_ms,
                    s.hmean_gteps,
                    s.levels,
                    s.per_level_us,
                    device_cell(s.device_per_level_us),
                    s.floor_us,
                    s.valid.map_or("-", |v| if v { "yes" } else { "NO" }),
                    cell(&s.clock),
                    s.topologies
                );
                json.push(serde_json::json!({
                    "graph": r.graph,
                    "vertices": r.vertices,
                    "edges": r.edges,
                    "backend": r.backend,
                    "variant": r.variant,
                    "median_ms": s.median_ms,
                    "min_ms": s.min_ms,
                    "max_ms": s.max_ms,
                    "hmean_gteps": s.hmean_gteps,
                    "levels": s.levels,
                    "per_level_us": s.per_level_us,
                    "device_per_level_us": s.device_per_level_us,
                    "floor_us": s.floor_us,
                    "valid": s.valid,
                    "topologies": s.topologies,
                    "spread": s.spread.as_ref().map(Spread::json),
                    "sm_clock_mhz": s.clock.iter().map(|c| serde_json::json!({
                        "gpu": c.gpu,
                        "min": c.min_mhz,
                        "median": c.median_mhz,
                        "max": c.max_mhz,
                        "samples": c.samples,
                    })).collect::<Vec<_>>(),
                }));
            }
            Err(why) => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | failed: {} | | | | | | | | | | |",
                    r.graph,
                    r.vertices,
                    r.edges,
                    r.backend,
                    r.variant,
                    why.replace('|', "/")
                );
                json.push(serde_json::json!({
                    "graph": r.graph,
                    "backend": r.backend,
                    "variant": r.variant,
                    "error": why,
                }));
            }
        }
    }
    let spreads = rows.iter().filter_map(|r| {
        let s = r.outcome.as_ref().ok()?.spread.as_ref()?;
        Some((
            [r.graph.as_str(), r.backend.as_str(), r.variant.as_str()],
            s,
        ))
    });
    let _ = writeln!(
        md,
        "\nSpread of single searches (each source's median, and its repetitions):\n\n{}",
        spread::table(spreads)
    );
    let _ = writeln!(md, "\n{}", auto_vs_best(rows));
    if !baselines.is_empty() {
        let _ = writeln!(
            md,
            "\nBaselines, same run (PyTorch: benches/pytorch_bfs.py, level-synchronous; GAP: its own generator at the same scale, rate over this run's undirected edge count):\n\n| baseline | graph | median ms | hmean GTEPS | summary |\n|---|---|---|---|---|"
        );
        for b in baselines {
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.2} | `{}` |",
                b.tool,
                b.graph,
                b.median_seconds * 1e3,
                b.hmean_gteps,
                b.summary
            );
        }
    }
    let write = |name: &str, text: &str| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    let report = serde_json::json!({
        "commit": commit,
        "date": date,
        "rows": json,
        "baselines": baselines
            .iter()
            .map(|b| serde_json::json!({
                "tool": b.tool,
                "graph": b.graph,
                "median_ms": b.median_seconds * 1e3,
                "hmean_gteps": b.hmean_gteps,
            }))
            .collect::<Vec<_>>(),
    });
    for chart in write_charts(out, &report)? {
        let name = chart.file_name().unwrap_or_default().to_string_lossy();
        let _ = writeln!(md, "\n![{name}]({name})");
    }
    write("bench.md", &md)?;
    write("bench.json", &report.to_string())?;
    println!("{md}");
    Ok(())
}

/// Per graph and backend: the policy's time against the best forced
/// topology's, measured in the same run.
fn auto_vs_best(rows: &[Row]) -> String {
    let mut out = String::from(
        "| graph | backend | auto ms | best forced | best ms | auto / best |\n|---|---|---|---|---|---|\n",
    );
    let mut keys: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r.graph.as_str(), r.backend.as_str()))
        .collect();
    keys.dedup();
    for (graph, backend) in keys {
        let of = |r: &&Row| r.graph == graph && r.backend == backend;
        let time = |r: &Row| r.outcome.as_ref().ok().map(|s| s.median_ms);
        let auto = rows
            .iter()
            .filter(of)
            .find(|r| r.variant == "auto")
            .and_then(time);
        let best = rows
            .iter()
            .filter(of)
            .filter(|r| r.variant.starts_with("forced") || r.variant.contains(", "))
            .filter_map(|r| time(r).map(|t| (t, r.variant.as_str())))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let (Some(auto), Some((best, name))) = (auto, best) {
            let _ = writeln!(
                out,
                "| {graph} | {backend} | {auto:.3} | {name} | {best:.3} | {:.2} |",
                auto / best
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::median_device_per_level_us as per_level;

    fn us(u: u64) -> Option<Duration> {
        Some(Duration::from_micros(u))
    }

    #[test]
    fn the_device_column_is_the_median_searchs() {
        assert_eq!(per_level(&[us(10), us(40), us(90)], 10), Some(4.0));
        assert_eq!(
            per_level(&[us(10), us(20), us(30), us(1000)], 10),
            Some(3.0)
        );
    }

    #[test]
    fn an_untimed_median_search_or_no_level_leaves_the_column_empty() {
        assert_eq!(per_level(&[us(10), None, us(30)], 10), None);
        assert_eq!(per_level(&[us(10)], 0), None);
        assert_eq!(per_level(&[], 10), None);
    }
}
