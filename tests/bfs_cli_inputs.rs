//! What the `bfs` example reads: one 0-based numbering for every format,
//! DIMACS and METIS road files, and binary CSR files it writes itself.

mod cli;

use cli::{Scratch, assert_one_clear_error, depths, json, run, run_cpu, stderr, stdout};

/// `--help` in one line of words (clap wraps long help).
fn help() -> String {
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    stdout(&out)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn help_states_the_numbering_rule_and_the_binary_name() {
    let help = help();
    for words in [
        "Vertex ids are 0-based everywhere: a Matrix Market, DIMACS or METIS id k is vertex k-1; edge-list ids are used as written.",
        "--source <SOURCE> Source vertex, 0-based",
        "line i holds the depth of vertex i (0-based), -1 when unreached",
        ".gr DIMACS, .graph METIS",
        "a .vyre binary CSR",
        "--save-graph <PATH.vyre>",
    ] {
        assert!(help.contains(words), "missing {words:?} in {help}");
    }
    assert!(!help.contains(".vcsr"), "{help}");
}

/// A path 1 - 2 - 3 - 4 - 5 in Matrix Market ids: `--source 4` is file id 5,
/// and line i of the depth file is vertex i.
#[test]
fn matrix_market_id_k_is_vertex_k_minus_1() {
    let scratch = Scratch::new("mm-ids");
    let path = scratch.file(
        "path.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 2\n4 3\n5 4\n",
    );
    let written = scratch.path("depths.txt");
    let out = run_cpu(&path, &["--source", "4", "--write-depths", &written]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(depths(&written), [4, 3, 2, 1, 0]);
    assert!(
        stdout(&out).contains("Matrix Market id k is vertex k-1"),
        "{}",
        stdout(&out)
    );
}

/// A DIMACS road file: one-way arcs stay one-way; ids are one-based.
#[test]
fn dimacs_road_files_load_directed_and_one_based() {
    let scratch = Scratch::new("dimacs");
    // Two-way 1-2 and 2-3, one-way 3 -> 4, two-way 4-5.
    let path = scratch.file(
        "roads.gr",
        b"c toy roads\np sp 5 7\na 1 2 10\na 2 1 10\na 2 3 7\na 3 2 7\na 3 4 2\na 4 5 1\na 5 4 1\n",
    );
    let written = scratch.path("depths.txt");
    let out = run_cpu(
        &path,
        &["--source", "4", "--write-depths", &written, "--json"],
    );
    let summary = json(&out);
    assert_eq!(summary["format"], "DIMACS");
    assert_eq!(summary["symmetric"], false);
    assert_eq!(summary["stored_edges"], 7);
    // From file id 5 only 4 is reachable: the street 3 -> 4 is one-way.
    assert_eq!(depths(&written), [-1, -1, -1, 1, 0]);
    let out = run_cpu(
        &path,
        &["--source", "0", "--write-depths", &written, "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(depths(&written), [0, 1, 2, 3, 4]);
}

/// A METIS file written here from a 4 x 3 grid: depths from a corner are
/// the Manhattan distances.
#[test]
fn metis_files_load_undirected() {
    let (w, h) = (4u32, 3u32);
    let id = |x: u32, y: u32| y * w + x;
    let mut text = String::from("% a 4 x 3 grid\n");
    let edges = (w - 1) * h + w * (h - 1);
    text.push_str(&format!("{} {edges}\n", w * h));
    for y in 0..h {
        for x in 0..w {
            let mut line = Vec::new();
            if y > 0 {
                line.push(id(x, y - 1) + 1);
            }
            if x > 0 {
                line.push(id(x - 1, y) + 1);
            }
            if x + 1 < w {
                line.push(id(x + 1, y) + 1);
            }
            if y + 1 < h {
                line.push(id(x, y + 1) + 1);
            }
            let line: Vec<String> = line.iter().map(u32::to_string).collect();
            text.push_str(&line.join(" "));
            text.push('\n');
        }
    }
    let scratch = Scratch::new("metis");
    let path = scratch.file("grid.graph", text.as_bytes());
    let written = scratch.path("depths.txt");
    let out = run_cpu(
        &path,
        &["--source", "0", "--write-depths", &written, "--json"],
    );
    let summary = json(&out);
    assert_eq!(summary["format"], "METIS");
    assert_eq!(summary["symmetric"], true);
    assert_eq!(summary["stored_edges"], 2 * edges);
    let expected: Vec<i64> = (0..w * h).map(|v| i64::from(v % w + v / w)).collect();
    assert_eq!(depths(&written), expected);
}

#[test]
fn a_matrix_market_file_without_its_banner_says_to_symmetrize_as_an_edge_list() {
    let scratch = Scratch::new("banner");
    let path = scratch.file("lower.mtx", b"2 1\n3 2\n");
    let out = run_cpu(&path, &[]);
    let line = assert_one_clear_error(&out, &format!("error: {path}:1: expected the banner"));
    assert!(
        line.contains("or rename the file without .mtx and load it as an edge list with --symmetrize (LoadOptions::symmetrize): without it a symmetric file's triangle loads as a directed graph"),
        "{line}"
    );
}

/// `--save-graph` writes a binary CSR that loads back as the same graph.
#[test]
fn save_graph_writes_a_vyre_file_that_reloads() {
    let scratch = Scratch::new("save");
    let saved = scratch.path("grid.vyre");
    let first = scratch.path("first.txt");
    let out = run_cpu(
        "grid:20x10",
        &[
            "--source",
            "7",
            "--save-graph",
            &saved,
            "--write-depths",
            &first,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "{saved}: binary CSR, reload it with --graph {saved}"
        )),
        "{}",
        stderr(&out)
    );
    assert!(std::fs::read(&saved).unwrap().starts_with(b"VYRE-CSR"));
    let again = scratch.path("again.txt");
    let out = run_cpu(
        &saved,
        &["--source", "7", "--write-depths", &again, "--json"],
    );
    let summary = json(&out);
    assert_eq!(summary["format"], "vyre binary CSR");
    assert_eq!(summary["vertices"], 200);
    assert_eq!(summary["stored_edges"], 2 * (19 * 10 + 20 * 9));
    assert_eq!(depths(&again), depths(&first));
}
