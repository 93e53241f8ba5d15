//! The `bfs` example as a user runs it: clear one-line errors with a
//! non-zero exit, never a panic; the happy path's output and files.

mod cli;

use cli::{assert_one_clear_error, run, run_cpu, stderr};

#[test]
fn a_missing_file_is_one_clear_line() {
    let out = run_cpu("/nonexistent/graph.mtx", &[]);
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
    let out = run_cpu(path.to_str().unwrap(), &[]);
    assert_one_clear_error(&out, "short.mtx");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_source_outside_the_graph_is_refused() {
    let out = run_cpu("grid:4x4", &["--source", "16"]);
    assert_one_clear_error(
        &out,
        "error: source 16 is not a vertex: grid:4x4 has vertices 0..15; generated graphs number vertices from 0. Fix: pass --source between 0 and 15.",
    );
}

#[test]
fn a_topology_the_device_cannot_run_is_refused() {
    let out = run_cpu("grid:4x4", &["--topology", "fused"]);
    assert_one_clear_error(&out, "FusedWave");
}

#[test]
fn json_summary_and_depth_file_match_the_graph() {
    let dir = std::env::temp_dir().join(format!("vyre-cli-json-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let depths = dir.join("depths.txt");
    let out = run_cpu(
        "grid:20x10",
        &[
            "--source",
            "0",
            "--json",
            "--write-depths",
            depths.to_str().unwrap(),
        ],
    );
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
