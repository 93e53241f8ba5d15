//! The `bfs` example as a user runs it: clear one-line errors with a
//! non-zero exit, never a panic; the happy path's output and files.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The example binary cargo built next to this test (`cargo test` builds
/// examples too).
fn bfs_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let path = profile_dir.join("examples").join("bfs");
    assert!(
        path.exists(),
        "{} is missing: run through `cargo test`, which builds the examples",
        path.display()
    );
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(bfs_binary())
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .expect("the example runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_one_clear_error(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("error: "), "{err}");
    assert!(lines[0].contains("Fix:"), "{err}");
    assert!(lines[0].contains(needle), "{err}");
}

#[test]
fn a_missing_file_is_one_clear_line() {
    let out = run(&["--graph", "/nonexistent/graph.mtx", "--backend", "cpu"]);
    assert_one_clear_error(&out, "/nonexistent/graph.mtx");
}

#[test]
fn a_truncated_matrix_market_file_names_the_file() {
    let dir = std::env::temp_dir().join(format!("vyre-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("short.mtx");
    // The size line promises 3 entries; the file holds 1.
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n",
    )
    .unwrap();
    let out = run(&["--graph", path.to_str().unwrap(), "--backend", "cpu"]);
    assert_one_clear_error(&out, "short.mtx");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_source_outside_the_graph_is_refused() {
    let out = run(&["--graph", "grid:4x4", "--backend", "cpu", "--source", "16"]);
    assert_one_clear_error(&out, "source 16");
}

#[test]
fn a_topology_the_device_cannot_run_is_refused() {
    let out = run(&[
        "--graph",
        "grid:4x4",
        "--backend",
        "cpu",
        "--topology",
        "fused",
    ]);
    assert_one_clear_error(&out, "FusedWave");
}

#[test]
fn json_summary_and_depth_file_match_the_graph() {
    let dir = std::env::temp_dir().join(format!("vyre-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let depths = dir.join("depths.txt");
    let out = run(&[
        "--graph",
        "grid:20x10",
        "--backend",
        "cpu",
        "--source",
        "0",
        "--json",
        "--write-depths",
        depths.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.contains("\"vertices\":200"), "{json}");
    assert!(json.contains("\"all_valid\":true"), "{json}");
    // From a corner the last vertex is w + h - 2 = 28 deep, and 29 levels run
    // before the frontier empties.
    assert!(json.contains("\"levels\":29"), "{json}");
    let written = std::fs::read_to_string(&depths).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 200);
    assert_eq!(lines[0], "0");
    assert_eq!(lines[199], "28");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unreached_vertices_are_written_as_minus_one() {
    let dir = std::env::temp_dir().join(format!("vyre-cli-minus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("two.txt");
    // SNAP edge list: 0-1 and 2-3 are separate components.
    std::fs::write(&graph, "# two components\n0 1\n2 3\n").unwrap();
    let depths = dir.join("depths.txt");
    let out = run(&[
        "--graph",
        graph.to_str().unwrap(),
        "--symmetrize",
        "--backend",
        "cpu",
        "--source",
        "0",
        "--write-depths",
        depths.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written = std::fs::read_to_string(&depths).unwrap();
    assert_eq!(written, "0\n1\n-1\n-1\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
