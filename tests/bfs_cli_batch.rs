//! `bfs --batch`: every source one independent search of one batch, with
//! per-source results, one depth column per source, and the batch time.

mod cli;

use cli::{Scratch, run_cpu, stderr, stdout};
use vyre::graph::UNREACHED;
use vyre::graph::bfs::reference_bfs;
use vyre::graph::generate::grid_2d;

/// The reference depths of `source` on the 7x5 grid, as the depth file
/// writes them.
fn reference_column(source: u32) -> Vec<String> {
    let graph = grid_2d(7, 5).unwrap();
    reference_bfs(&graph, &[source])
        .depths
        .into_iter()
        .map(|d| {
            if d == UNREACHED {
                "-1".to_string()
            } else {
                d.to_string()
            }
        })
        .collect()
}

#[test]
fn depth_columns_follow_the_source_order_repeats_included() {
    let scratch = Scratch::new("batch-depths");
    let file = scratch.path("depths.txt");
    let out = run_cpu(
        "grid:7x5",
        &[
            "--batch",
            "--source",
            "34",
            "--source",
            "0",
            "--source",
            "34",
            "--source",
            "17",
            "--write-depths",
            &file,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(' ').collect()).collect();
    assert_eq!(rows.len(), 35, "one line per vertex");
    for (column, source) in [34u32, 0, 34, 17].into_iter().enumerate() {
        let got: Vec<String> = rows.iter().map(|r| r[column].to_string()).collect();
        assert_eq!(got, reference_column(source), "column {column}");
    }
    let report = stdout(&out);
    assert!(
        report.contains("batch    4 searches in 1 pass(es):"),
        "{report}"
    );
    assert!(
        report.contains("depths   every search equals the CPU's BFS"),
        "{report}"
    );
}

#[test]
fn the_summary_gives_every_source_its_totals() {
    let out = run_cpu("grid:7x5", &["--batch", "--source", "0", "--source", "24"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = stdout(&out);
    let graph = grid_2d(7, 5).unwrap();
    for source in [0u32, 24] {
        let depths = reference_bfs(&graph, &[source]).depths;
        let sum: u32 = depths.iter().sum();
        let ecc = depths.iter().max().unwrap();
        let closeness = 34.0 / f64::from(sum);
        let row = format!(
            "{source:>10} {:>10} {sum:>14} {ecc:>12} {closeness:>10.6}",
            35
        );
        assert!(report.contains(&row), "{row} in {report}");
    }
}

#[test]
fn json_carries_the_batch_time_passes_and_every_search() {
    let sources: Vec<String> = (0..70).map(|i| (i % 35).to_string()).collect();
    let mut args = vec!["--batch", "--json"];
    for s in &sources {
        args.push("--source");
        args.push(s);
    }
    let out = run_cpu("grid:7x5", &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let batch = &report["batch"];
    assert!(batch["batch_seconds"].as_f64().unwrap() > 0.0);
    assert_eq!(
        batch["passes"].as_array().unwrap().len(),
        2,
        "70 searches: 64 + 6"
    );
    let searches = batch["searches"].as_array().unwrap();
    assert_eq!(searches.len(), 70);
    assert_eq!(searches[36]["source"], 1);
    assert_eq!(searches[36]["reached"], 35);
    assert_eq!(batch["depths_valid"], true);
    assert_eq!(report["backend"], "cpu");
}
