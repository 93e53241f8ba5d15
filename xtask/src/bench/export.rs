//! The PyTorch baseline: export the CSR as raw arrays, run
//! `benches/pytorch_bfs.py` on them, keep its summary line.

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use vyre::graph::Graph;

/// What a baseline (PyTorch, GAP) measured on one graph.
pub struct Baseline {
    /// Which baseline.
    pub tool: &'static str,
    /// Graph spec.
    pub graph: String,
    /// The script's summary JSON line, verbatim.
    pub summary: String,
    /// Median seconds per search.
    pub median_seconds: f64,
    /// Harmonic-mean GTEPS.
    pub hmean_gteps: f64,
}

fn write_raw<T: Copy>(
    path: &Path,
    values: &[T],
    to_le: impl Fn(T) -> Vec<u8>,
) -> Result<(), String> {
    let file = std::fs::File::create(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 22, file);
    for &v in values {
        out.write_all(&to_le(v))
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    out.flush()
        .map_err(|e| format!("writing {}: {e}", path.display()))
}

fn number_after(line: &str, key: &str) -> Option<f64> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = line[start..].trim_start();
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].trim().parse().ok()
}

/// Run the baseline on `graph` from `sources`.
pub fn pytorch_baseline(
    out: &Path,
    spec: &str,
    graph: &Graph,
    sources: &[u32],
    repeats: u32,
) -> Result<Baseline, String> {
    let prefix = out.join("pytorch_graph");
    let with = |ext: &str| {
        let mut p = prefix.clone().into_os_string();
        p.push(ext);
        std::path::PathBuf::from(p)
    };
    write_raw(
        &with(".offsets.u64"),
        graph.out_edges().offsets(),
        |v: u64| v.to_le_bytes().to_vec(),
    )?;
    write_raw(
        &with(".targets.u32"),
        graph.out_edges().targets(),
        |v: u32| v.to_le_bytes().to_vec(),
    )?;
    write_raw(&with(".sources.u32"), sources, |v: u32| {
        v.to_le_bytes().to_vec()
    })?;
    let output = Command::new("python3")
        .arg("benches/pytorch_bfs.py")
        .arg(&prefix)
        .arg(repeats.to_string())
        .env("PYTHONUNBUFFERED", "1")
        .output()
        .map_err(|e| {
            format!("could not run python3: {e}. Fix: run the bench where PyTorch is installed.")
        })?;
    for ext in [".offsets.u64", ".targets.u32", ".sources.u32"] {
        let _ = std::fs::remove_file(with(ext));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "the PyTorch baseline failed on {spec}: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let summary = stdout
        .lines()
        .find(|l| l.contains("\"summary\": true"))
        .ok_or_else(|| format!("no summary line from the PyTorch baseline: {stdout}"))?
        .to_string();
    Ok(Baseline {
        tool: "PyTorch",
        graph: spec.to_string(),
        median_seconds: number_after(&summary, "median_seconds").unwrap_or(f64::NAN),
        hmean_gteps: number_after(&summary, "hmean_gteps").unwrap_or(f64::NAN),
        summary,
    })
}
