//! The side-by-side tables of `xtask compare`: one row per graph, backend
//! and bench variant, one column per build, its tries in order.

use std::path::Path;

use serde_json::Value;

/// One try of one build: the rows its `bench.json` holds, or why none.
pub struct Run {
    build: String,
    attempt: u32,
    rows: Result<Vec<Value>, String>,
}

impl Run {
    /// The run of `build`'s try `attempt`, read from its report.
    pub fn read(build: &str, attempt: u32, report: &Path) -> Self {
        match std::fs::read_to_string(report) {
            Ok(text) => Self::of_text(build, attempt, &text),
            Err(e) => Self {
                build: build.into(),
                attempt,
                rows: Err(format!("no report ({e})")),
            },
        }
    }

    /// The run of a report's text.
    pub fn of_text(build: &str, attempt: u32, text: &str) -> Self {
        Self {
            build: build.into(),
            attempt,
            rows: Self::rows_of(text),
        }
    }

    fn rows_of(text: &str) -> Result<Vec<Value>, String> {
        let report: Value = serde_json::from_str(text).map_err(|e| format!("bad report ({e})"))?;
        report["rows"]
            .as_array()
            .cloned()
            .ok_or_else(|| "a report without rows".into())
    }
}

/// A row's identity across builds.
fn key(row: &Value) -> [String; 3] {
    ["graph", "backend", "variant"].map(|k| row[k].as_str().unwrap_or("?").to_string())
}

/// One metric's cell of a row.
type Cell = fn(&Value) -> String;

fn per_level(row: &Value) -> String {
    let wall = format!("{:.2}", row["per_level_us"].as_f64().unwrap_or(f64::NAN));
    match row["device_per_level_us"].as_f64() {
        Some(device) => format!("{wall} ({device:.2})"),
        None => wall,
    }
}

fn millis(row: &Value) -> String {
    let ms = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
    format!(
        "{:.3} ({:.3}–{:.3})",
        ms("median_ms"),
        ms("min_ms"),
        ms("max_ms")
    )
}

fn gteps(row: &Value) -> String {
    format!("{:.2}", row["hmean_gteps"].as_f64().unwrap_or(f64::NAN))
}

/// `compare.md`'s tables: µs per level (wall, and device where timed),
/// median ms with min and max, and hmean GTEPS.
pub fn compare_md(runs: &[Run]) -> String {
    let mut builds: Vec<&str> = Vec::new();
    let mut keys: Vec<[String; 3]> = Vec::new();
    for run in runs {
        if !builds.contains(&run.build.as_str()) {
            builds.push(&run.build);
        }
        for row in run.rows.iter().flatten() {
            let k = key(row);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let mut md = String::new();
    for run in runs {
        if let Err(why) = &run.rows {
            md.push_str(&format!("- `{}` try {}: {why}\n", run.build, run.attempt));
        }
    }
    let tables: [(&str, Cell); 3] = [
        ("µs per level, wall (device); tries in order", per_level),
        ("median ms of a search (min–max); tries in order", millis),
        ("hmean GTEPS; tries in order", gteps),
    ];
    for (title, cell) in tables {
        md.push_str(&format!("\n## {title}\n\n| graph | backend | variant |"));
        for b in &builds {
            md.push_str(&format!(" `{b}` |"));
        }
        md.push_str("\n|---|---|---|");
        md.push_str(&"---|".repeat(builds.len()));
        md.push('\n');
        for k in &keys {
            md.push_str(&format!("| {} | {} | {} |", k[0], k[1], k[2]));
            for b in &builds {
                let cells: Vec<String> = runs
                    .iter()
                    .filter(|r| r.build == *b)
                    .map(|r| tried(r, k, cell))
                    .collect();
                md.push_str(&format!(" {} |", cells.join(" / ")));
            }
            md.push('\n');
        }
    }
    md
}

/// `run`'s cell for row `k`: `-` where it has no such row, `failed` where
/// the row failed, marked where its searches did not validate.
fn tried(run: &Run, k: &[String; 3], cell: Cell) -> String {
    let Ok(rows) = &run.rows else {
        return "-".into();
    };
    match rows.iter().find(|r| key(r) == *k) {
        None => "-".into(),
        Some(row) if row.get("error").is_some() => "failed".into(),
        Some(row) if row["valid"] == Value::Bool(false) => format!("{} INVALID", cell(row)),
        Some(row) => cell(row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(per_level: f64, device: Option<f64>, valid: bool) -> String {
        serde_json::json!({
            "commit": "x",
            "rows": [
                {"graph": "grid:4x4", "backend": "cuda", "variant": "auto",
                 "median_ms": 1.5, "min_ms": 1.25, "max_ms": 2.0, "hmean_gteps": 0.5,
                 "per_level_us": per_level, "device_per_level_us": device, "valid": valid},
                {"graph": "grid:4x4", "backend": "wgpu", "variant": "auto", "error": "no adapter"},
            ]
        })
        .to_string()
    }

    #[test]
    fn each_build_gets_a_column_with_its_tries_in_order() {
        let runs = [
            Run::of_text("a", 1, &report(5.0, Some(4.5), true)),
            Run::of_text("b", 1, &report(4.0, None, true)),
            Run::of_text("a", 2, &report(5.25, Some(4.75), true)),
            Run::of_text("b", 2, &report(4.25, None, false)),
        ];
        let md = compare_md(&runs);
        assert!(
            md.contains(
                "| grid:4x4 | cuda | auto | 5.00 (4.50) / 5.25 (4.75) | 4.00 / 4.25 INVALID |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| grid:4x4 | cuda | auto | 1.500 (1.250–2.000) / 1.500 (1.250–2.000) |"),
            "{md}"
        );
        assert!(
            md.contains("| grid:4x4 | wgpu | auto | failed / failed | failed / failed |"),
            "{md}"
        );
    }

    #[test]
    fn a_try_without_a_report_is_listed_and_leaves_dashes() {
        let runs = [
            Run::of_text("a", 1, &report(5.0, None, true)),
            Run::of_text("b", 1, "not json"),
        ];
        let md = compare_md(&runs);
        assert!(md.contains("- `b` try 1: bad report"), "{md}");
        assert!(md.contains("| grid:4x4 | cuda | auto | 5.00 | - |"), "{md}");
    }
}
