//! The `closeness` example against an exact computation: closeness from a
//! reference BFS from every vertex of a small graph.

mod cli;

use std::process::Command;

use vyre::graph::UNREACHED;
use vyre::graph::bfs::reference_bfs;
use vyre::graph::generate::grid_2d;

/// Every vertex's closeness by the definition: reached vertices besides
/// itself over the sum of their distances.
fn exact_closeness(width: u32, height: u32) -> Vec<f64> {
    let graph = grid_2d(width, height).expect("grid");
    (0..graph.vertex_count())
        .map(|v| {
            let depths = reference_bfs(&graph, &[v]).depths;
            let reached: Vec<u64> = depths
                .iter()
                .filter(|&&d| d != UNREACHED && d > 0)
                .map(|&d| u64::from(d))
                .collect();
            reached.len() as f64 / reached.iter().sum::<u64>() as f64
        })
        .collect()
}

fn run(extra: &[&str]) -> serde_json::Value {
    let out = Command::new(cli::example_binary("closeness"))
        .args([
            "--graph",
            "grid:12x9",
            "--backend",
            "cpu",
            "--json",
            "--exact",
        ])
        .args(extra)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .expect("the example runs");
    assert!(out.status.success(), "{}", cli::stderr(&out));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn ids(list: &serde_json::Value) -> Vec<u64> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|c| c["vertex"].as_u64().expect("a vertex"))
        .collect()
}

#[test]
fn the_exact_top_ten_and_every_closeness_listed_match_the_definition() {
    let exact = exact_closeness(12, 9);
    let report = run(&["--samples", "8"]);
    let mut order: Vec<usize> = (0..exact.len()).collect();
    order.sort_by(|&a, &b| exact[b].total_cmp(&exact[a]).then(a.cmp(&b)));
    let expected: Vec<u64> = order[..10].iter().map(|&v| v as u64).collect();
    assert_eq!(ids(&report["exact_top"]), expected);
    for list in [&report["top"], &report["exact_top"]] {
        for c in list.as_array().unwrap() {
            let v = c["vertex"].as_u64().unwrap() as usize;
            let got = c["exact"].as_f64().unwrap();
            assert!(
                (got - exact[v]).abs() < 1e-12,
                "vertex {v}: {got} vs {}",
                exact[v]
            );
        }
    }
    assert_eq!(report["samples"], 8);
}

#[test]
fn sampling_every_vertex_estimates_exactly() {
    // 108 vertices: two passes of the batch, every vertex a source.
    let report = run(&["--samples", "1000"]);
    assert_eq!(report["samples"], 108);
    assert_eq!(report["passes"], 2);
    assert_eq!(ids(&report["top"]), ids(&report["exact_top"]));
    for c in report["top"].as_array().unwrap() {
        let (estimate, exact) = (
            c["closeness"].as_f64().unwrap(),
            c["exact"].as_f64().unwrap(),
        );
        assert!((estimate - exact).abs() < 1e-12, "{c}");
    }
    assert_eq!(report["overlap"], 10);
}
