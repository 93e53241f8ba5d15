//! SVG charts of a benchmark run, drawn from its `bench.json`: GTEPS per
//! backend beside the PyTorch and GAP baselines, and time per level on the
//! grid by variant.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde_json::Value;

/// One bar: its row label, the series it belongs to (its colour), a value.
struct Bar {
    label: String,
    series: String,
    value: f64,
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Horizontal bars on a logarithmic axis, one row each, coloured by series.
fn draw(path: &Path, title: &str, axis: &str, bars: &[Bar]) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("drawing {}: {e}", path.display());
    let low = bars.iter().map(|b| b.value).fold(f64::INFINITY, f64::min);
    let high = bars.iter().map(|b| b.value).fold(low, f64::max);
    let height = 120 + 26 * bars.len() as u32;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(330)
        // Room on the right for the legend; one segment per bar (a range
        // of n integers has n + 1 segments).
        .build_cartesian_2d(
            (low / 2.0..high * 30.0).log_scale(),
            (0..bars.len().saturating_sub(1)).into_segmented(),
        )
        .map_err(|e| fail(&e))?;
    // The first bar on top: bar i sits in segment n - 1 - i.
    let row = |i: usize| bars.len() - 1 - i;
    let label = |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < bars.len() => bars[row(*i)].label.clone(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .x_desc(axis)
        .y_labels(bars.len())
        .y_label_formatter(&label)
        .x_labels(8)
        .x_label_formatter(&|x| format!("{x}"))
        .disable_y_mesh()
        .draw()
        .map_err(|e| fail(&e))?;
    let mut series: Vec<&str> = Vec::new();
    for bar in bars {
        if !series.contains(&bar.series.as_str()) {
            series.push(&bar.series);
        }
    }
    let colour = |name: &str| PALETTE[series.iter().position(|&s| s == name).unwrap_or(0) % 6];
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let mut rect = Rectangle::new(
                [
                    (low / 2.0, SegmentValue::Exact(row(i))),
                    (b.value, SegmentValue::Exact(row(i) + 1)),
                ],
                colour(&b.series).filled(),
            );
            rect.set_margin(3, 3, 0, 0);
            rect
        }))
        .map_err(|e| fail(&e))?;
    for &name in &series {
        let fill = colour(name).filled();
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, SegmentValue<usize>)>>())
            .map_err(|e| fail(&e))?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], fill));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

/// The policy's rate per graph and backend, then each baseline's.
fn gteps_bars(report: &Value) -> Vec<Bar> {
    let rows = report["rows"].as_array().map_or(&[][..], Vec::as_slice);
    let baselines = report["baselines"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let mut graphs: Vec<String> = rows.iter().map(|r| text(r, "graph")).collect();
    graphs.dedup();
    let mut bars = Vec::new();
    for graph in graphs {
        let auto = rows
            .iter()
            .filter(|r| text(r, "graph") == graph && text(r, "variant") == "auto");
        let measured = baselines.iter().filter(|b| text(b, "graph") == graph);
        for (series, value) in auto
            .map(|r| (format!("vyre {}", text(r, "backend")), &r["hmean_gteps"]))
            .chain(measured.map(|b| (text(b, "tool"), &b["hmean_gteps"])))
        {
            if let Some(value) = value.as_f64().filter(|&v| v > 0.0) {
                bars.push(Bar {
                    label: format!("{graph}  {series}"),
                    series,
                    value,
                });
            }
        }
    }
    bars
}

/// Microseconds per level of every variant on the grid graphs.
fn per_level_bars(report: &Value) -> Vec<Bar> {
    let rows = report["rows"].as_array().map_or(&[][..], Vec::as_slice);
    rows.iter()
        .filter(|r| text(r, "graph").starts_with("grid"))
        .filter_map(|r| {
            let value = r["per_level_us"].as_f64().filter(|&v| v > 0.0)?;
            Some(Bar {
                label: format!("{} {}", text(r, "backend"), text(r, "variant")),
                series: text(r, "backend"),
                value,
            })
        })
        .collect()
}

/// Draw `gteps.svg` and `per_level.svg` into `out` from a `bench.json`
/// report; a chart without data is left out. Returns the files written.
pub fn write_charts(out: &Path, report: &Value) -> Result<Vec<PathBuf>, String> {
    let place = format!(
        "{}, commit {}",
        text(report, "date"),
        text(report, "commit")
    );
    let mut written = Vec::new();
    let gteps = gteps_bars(report);
    if !gteps.is_empty() {
        let path = out.join("gteps.svg");
        let title = format!("BFS rate, harmonic mean over sources ({place})");
        draw(
            &path,
            &title,
            "GTEPS (Graph500 counting, log scale)",
            &gteps,
        )?;
        written.push(path);
    }
    let per_level = per_level_bars(report);
    if !per_level.is_empty() {
        let graph = report["rows"]
            .as_array()
            .and_then(|rows| {
                rows.iter()
                    .map(|r| text(r, "graph"))
                    .find(|g| g.starts_with("grid"))
            })
            .unwrap_or_default();
        let path = out.join("per_level.svg");
        let title = format!("{graph}: time per BFS level by variant ({place})");
        draw(
            &path,
            &title,
            "µs per level (median search / levels, log scale)",
            &per_level,
        )?;
        written.push(path);
    }
    Ok(written)
}

/// `xtask bench --charts-from FILE`: redraw the charts of a saved report.
pub fn charts_from(report: &Path, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(report)
        .map_err(|e| format!("cannot read {}: {e}", report.display()))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a bench.json report: {e}", report.display()))?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for path in write_charts(out, &value)? {
        eprintln!("bench: wrote {}", path.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Value {
        serde_json::json!({
            "commit": "abc1234",
            "date": "2026-12-01 09:00 UTC",
            "rows": [
                {"graph": "kron:22", "backend": "cuda", "variant": "auto", "hmean_gteps": 128.1, "per_level_us": 77.0},
                {"graph": "kron:22", "backend": "cuda", "variant": "forced sparse", "hmean_gteps": 22.3, "per_level_us": 412.8},
                {"graph": "kron:22", "backend": "wgpu", "variant": "auto", "hmean_gteps": 23.0, "per_level_us": 408.4},
                {"graph": "grid:3000x3000", "backend": "cuda", "variant": "auto", "hmean_gteps": 0.56, "per_level_us": 5.37},
                {"graph": "grid:3000x3000", "backend": "wgpu", "variant": "sparse, one launch per level", "hmean_gteps": 0.03, "per_level_us": 113.56},
                {"graph": "grid:3000x3000", "backend": "wgpu", "variant": "forced fused", "error": "no barrier"},
            ],
            "baselines": [
                {"tool": "PyTorch", "graph": "kron:22", "hmean_gteps": 6.77},
                {"tool": "GAP", "graph": "kron:22", "hmean_gteps": 0.9},
            ],
        })
    }

    #[test]
    fn rate_bars_are_the_auto_rows_then_the_baselines_per_graph() {
        let bars = gteps_bars(&report());
        let seen: Vec<(&str, &str, f64)> = bars
            .iter()
            .map(|b| (b.label.as_str(), b.series.as_str(), b.value))
            .collect();
        assert_eq!(
            seen,
            [
                ("kron:22  vyre cuda", "vyre cuda", 128.1),
                ("kron:22  vyre wgpu", "vyre wgpu", 23.0),
                ("kron:22  PyTorch", "PyTorch", 6.77),
                ("kron:22  GAP", "GAP", 0.9),
                ("grid:3000x3000  vyre cuda", "vyre cuda", 0.56),
            ]
        );
    }

    #[test]
    fn per_level_bars_cover_every_measured_grid_variant() {
        let bars = per_level_bars(&report());
        let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
        assert_eq!(labels, ["cuda auto", "wgpu sparse, one launch per level"]);
    }

    #[test]
    fn charts_are_svg_files_naming_every_bar() {
        let out = std::env::temp_dir().join(format!("vyre-charts-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let written = write_charts(&out, &report()).unwrap();
        assert_eq!(written, [out.join("gteps.svg"), out.join("per_level.svg")]);
        let svg = std::fs::read_to_string(&written[0]).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for label in ["kron:22  vyre cuda", "kron:22  PyTorch", "kron:22  GAP"] {
            assert!(svg.contains(label), "{label}");
        }
        assert!(svg.contains("commit abc1234"));
        std::fs::remove_dir_all(&out).unwrap();
    }
}
