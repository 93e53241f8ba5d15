//! The GAP benchmark suite's BFS as a baseline: its `bfs` binary generates
//! a Kronecker graph of the same Graph500 parameters (`-g S`) and reports
//! the average time of its trials.

use std::path::Path;
use std::process::Command;

use vyre::graph::Graph;

use super::export::Baseline;

/// The seconds on GAP's `Average Time:` line.
fn average_time(output: &str) -> Option<(f64, &str)> {
    let line = output.lines().find(|l| l.starts_with("Average Time:"))?;
    let seconds = line
        .trim_start_matches("Average Time:")
        .trim()
        .parse()
        .ok()?;
    Some((seconds, line))
}

/// Run GAP's `bfs` at `gap` on the Kronecker scale of `spec` (other graphs
/// have no GAP counterpart: `None`). The rate counts `graph`'s undirected
/// edges, the same graph parameters as GAP's own draw.
pub fn gap_baseline(
    gap: &Path,
    spec: &str,
    graph: &Graph,
    trials: u32,
) -> Result<Option<Baseline>, String> {
    let Some(scale) = spec.strip_prefix("kron:") else {
        return Ok(None);
    };
    let output = Command::new(gap)
        .args(["-g", scale, "-n", &trials.max(1).to_string()])
        .output()
        .map_err(|e| {
            format!(
                "could not run {}: {e}. Fix: build GAP's bfs (sbeamer/gapbs, `make bfs`) and pass its path to --gap.",
                gap.display()
            )
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let (seconds, line) = average_time(&stdout).ok_or_else(|| {
        format!(
            "GAP printed no `Average Time:` line on {spec}: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    let edges = graph.edge_count() / 2;
    Ok(Some(Baseline {
        tool: "GAP",
        graph: spec.to_string(),
        summary: line.trim().to_string(),
        median_seconds: seconds,
        hmean_gteps: edges as f64 / seconds / 1e9,
    }))
}

#[cfg(test)]
mod tests {
    use super::average_time;

    #[test]
    fn reads_gaps_average_time_line() {
        let output = "Generate Time:       1.23\nTrial Time:          0.07000\nAverage Time:        0.06780\n";
        assert_eq!(
            average_time(output),
            Some((0.0678, "Average Time:        0.06780"))
        );
        assert_eq!(average_time("Trial Time: 1\n"), None);
    }
}
