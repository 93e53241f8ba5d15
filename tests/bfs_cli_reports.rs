//! What the `bfs` example reports: a readable trace, complete JSON, why the
//! backend was chosen, Graph500 sampling and the level-by-level picture.

mod cli;

use cli::{Scratch, json, run, run_cpu, stderr, stdout};

const TOPOLOGIES: [&str; 6] = [
    "warp-sparse",
    "sparse",
    "hybrid",
    "dense",
    "block-dense",
    "fused",
];

/// The policy's reasons as the trace words them.
const REASONS: [&str; 7] = [
    "very few frontier vertices: one warp per vertex",
    "sparse frontier: an edge-balanced queue",
    "device memory nearly full: the sparse queue needs the least",
    "frontier between sparse and dense: hybrid queue",
    "dense frontier: bottom-up over a bitmap",
    "very dense frontier: bottom-up by bitmap tiles",
    "launch and readback cost dominate: many levels in one persistent launch",
];

/// The rows of the trace table printed by `--trace`.
fn trace_rows(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("trace of source"))
        .skip(2)
        .collect()
}

#[test]
fn trace_reads_as_flags_and_words_with_units() {
    let out = run_cpu("grid:20x10", &["--source", "0", "--trace"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("trace of source 0 (vertex ids are 0-based):"),
        "{text}"
    );
    // The device's barrier, and why it has none, on one line.
    let barrier: Vec<_> = text
        .lines()
        .filter(|l| l.starts_with("barrier  "))
        .collect();
    assert_eq!(
        barrier,
        [
            "barrier  no fused waves: each level runs as its own parallel step on the host; there is no persistent kernel to fuse levels into"
        ],
        "{text}"
    );
    let rows = trace_rows(&text);
    assert_eq!(rows.len(), 29, "{text}");
    for row in &rows {
        let words: Vec<&str> = row.split_whitespace().collect();
        assert!(TOPOLOGIES.contains(&words[2]), "{row}");
        // frontier and found carry `vertex`/`vertices`, edges `edge(s)`,
        // the device time a unit.
        assert!(matches!(words[4], "vertex" | "vertices"), "{row}");
        assert!(matches!(words[6], "vertex" | "vertices"), "{row}");
        assert!(matches!(words[8], "edge" | "edges"), "{row}");
        assert!(matches!(words[10], "s" | "ms" | "µs"), "{row}");
    }
    // The first level of every command gives the reason in words, never
    // the policy's codes or enum names.
    assert!(REASONS.iter().any(|r| rows[0].contains(r)), "{}", rows[0]);
    for raw in ["_queue", "_fused", "bps=", "SparseFrontier", "Frontier"] {
        assert!(!text.contains(raw), "{raw} in {text}");
    }
    let out = run_cpu(
        "grid:20x10",
        &["--source", "0", "--trace", "--topology", "dense"],
    );
    let rows: Vec<String> = trace_rows(&stdout(&out))
        .into_iter()
        .map(str::to_string)
        .collect();
    assert!(
        rows.iter()
            .all(|r| r.split_whitespace().nth(2) == Some("dense"))
    );
    assert!(rows[0].ends_with("forced with --topology"), "{}", rows[0]);
}

#[test]
fn json_carries_every_wave_phase_times_and_the_backend_reason() {
    let scratch = Scratch::new("json");
    let path = scratch.file(
        "path.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 3\n",
    );
    let summary = json(&run_cpu(&path, &["--source", "0", "--json"]));
    for key in [
        "open_seconds",
        "load_seconds",
        "build_seconds",
        "upload_seconds",
    ] {
        assert!(
            summary[key].as_f64().is_some_and(|s| s >= 0.0),
            "{key}: {summary}"
        );
    }
    assert!(summary["load_seconds"].as_f64().unwrap() > 0.0, "{summary}");
    assert_eq!(summary["backend"], "cpu");
    let reason = summary["backend_reason"].as_str().unwrap();
    assert!(reason.starts_with("cpu: "), "{reason}");
    assert!(reason.ends_with(": as requested, using cpu"), "{reason}");
    let run0 = &summary["runs"][0];
    let trace = run0["trace"].as_array().unwrap();
    // A path of 4 from one end: 4 levels, each with one frontier vertex.
    assert_eq!(trace.len(), 4, "{run0}");
    assert_eq!(run0["levels"], 4);
    for (i, wave) in trace.iter().enumerate() {
        assert_eq!(wave["level"], i);
        assert_eq!(wave["frontier_vertices"], 1, "{wave}");
        assert!(
            TOPOLOGIES.contains(&wave["topology"].as_str().unwrap()),
            "{wave}"
        );
        assert!(wave["edges_examined"].as_u64().is_some(), "{wave}");
        let device = &wave["device_seconds"];
        assert!(device.is_null() || device.as_f64().is_some(), "{wave}");
        let explanation = wave["explanation"].as_str().unwrap();
        assert!(
            explanation.starts_with("megakernel-topology-v1|topology="),
            "{wave}"
        );
        assert!(explanation.contains("|reason="), "{wave}");
    }
}

/// `--backend auto` says in one line what it tried and what it took.
#[test]
fn auto_backend_explains_itself_in_one_line() {
    let out = run(&["--graph", "grid:4x4", "--backend", "auto", "--source", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("backend  "))
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let device = text.lines().next().unwrap();
    let chosen = device.rsplit_once('(').unwrap().1.trim_end_matches(')');
    assert!(
        lines[0].ends_with(&format!(": using {chosen}")),
        "{}",
        lines[0]
    );
    // The most preferred backend of this build is tried first: it either
    // opened or says why not.
    let first = vyre::available_backends()[0];
    assert!(
        lines[0].starts_with(&format!("backend  {first}: ")),
        "{}",
        lines[0]
    );
}

/// Sources are sampled among vertices with an out-edge, and a directed
/// graph whose searches reach one edge still prints a readable rate.
#[test]
fn sampled_sources_have_out_edges_and_tiny_rates_stay_readable() {
    let scratch = Scratch::new("sampled");
    // 1000 vertices; only 10 and 500 have out-edges.
    let path = scratch.file("sinks.txt", b"10 999\n500 999\n3 3\n");
    let summary = json(&run_cpu(&path, &["--samples", "8", "--json"]));
    let mut sources: Vec<u64> = summary["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"].as_u64().unwrap())
        .collect();
    sources.sort_unstable();
    assert_eq!(sources, [10, 500]);
    let out = run_cpu(&path, &[]);
    let text = stdout(&out);
    let mean = text
        .lines()
        .find(|l| l.starts_with("harmonic mean "))
        .unwrap_or_else(|| panic!("{text}"));
    let mut words = mean.split_whitespace().skip(2);
    let value: f64 = words.next().unwrap().parse().unwrap();
    assert!(value >= 1.0, "{mean}");
    assert!(
        matches!(words.next(), Some("TEPS" | "kTEPS" | "MTEPS" | "GTEPS")),
        "{mean}"
    );
}

/// The bar fills of the six topologies in the plot.
const FILLS: [&str; 6] = [
    "#1F77B4", "#2CA02C", "#FF7F0E", "#D62728", "#9467BD", "#8C564B",
];

#[test]
fn plot_draws_every_level_coloured_by_topology() {
    let scratch = Scratch::new("plot");
    let svg_path = scratch.path("bfs.svg");
    let summary = json(&run_cpu(
        "grid:20x10",
        &["--source", "0", "--json", "--plot", &svg_path],
    ));
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.contains("BFS of grid:20x10 from vertex 0: frontier per level"));
    assert!(svg.contains("device time per level"));
    let ran: Vec<&str> = summary["runs"][0]["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["topology"].as_str().unwrap())
        .collect();
    // A legend entry per topology that ran, in each panel, and no other.
    for name in TOPOLOGIES {
        let entries = svg.matches(&format!("\n{name}\n</text>")).count();
        let expected = if ran.contains(&name) { 2 } else { 0 };
        assert_eq!(entries, expected, "{name}");
    }
    // A bar per level in each panel, plus a legend swatch per topology.
    let bars = svg
        .lines()
        .filter(|l| l.starts_with("<rect") && FILLS.iter().any(|f| l.contains(f)))
        .count();
    let mut distinct = ran.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(bars, 2 * ran.len() + 2 * distinct.len(), "{svg}");
}
