//! Benchmarks of vyre-graph on this machine (see docs/BENCHMARKS.md,
//! section "vyre-graph: loading and CPU BFS").
//!
//! ```text
//! cargo run --release -p vyre-graph --example graph_bench -- write-mtx 22 /tmp/kron22.mtx
//! cargo run --release -p vyre-graph --example graph_bench -- parse /tmp/kron22.mtx 5
//! cargo run --release -p vyre-graph --example graph_bench -- bfs 18 22 16
//! cargo run --release -p vyre-graph --example graph_bench -- build 26
//! ```

use std::time::Instant;

use vyre_graph::bfs::{BfsWorkspace, Direction, ParallelBfsOptions, parallel_bfs_in};
use vyre_graph::generate::{KroneckerSpec, kronecker};
use vyre_graph::load::{LoadOptions, load_edges};
use vyre_graph::save::save_matrix_market;
use vyre_graph::teps::{harmonic_mean, sample_sources};
use vyre_graph::validate::validate_bfs;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let number = |i: usize, default: u32| arg(i).map_or(default, |s| s.parse().expect("a number"));
    print_context();
    match arg(0) {
        Some("write-mtx") => write_mtx(number(1, 22), arg(2).unwrap_or("kron.mtx")),
        Some("parse") => parse(arg(1).expect("a file"), number(2, 5)),
        Some("parse-only") => {
            let t = Instant::now();
            let list = load_edges(arg(1).expect("a file"), LoadOptions::default()).expect("parse");
            println!(
                "parsed {} entries in {:.3} s",
                list.edges.len(),
                t.elapsed().as_secs_f64()
            );
        }
        Some("bfs") => bfs(number(1, 18), number(2, 22), number(3, 16)),
        Some("build") => build(number(1, 26)),
        _ => eprintln!(
            "usage: graph_bench write-mtx SCALE PATH | parse PATH RUNS | bfs FROM TO SOURCES | build SCALE"
        ),
    }
}

fn print_context() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!(
        "# machine: {cpu}, {} rayon threads; commit {commit}",
        rayon::current_num_threads()
    );
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Peak resident memory of this process so far, from /proc (Linux).
fn peak_rss_gib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<f64>().ok())
            })
        })
        .map_or(0.0, |kb| kb / (1024.0 * 1024.0))
}

fn write_mtx(scale: u32, path: &str) {
    let t = Instant::now();
    let g = kronecker(KroneckerSpec {
        scale,
        ..KroneckerSpec::default()
    })
    .expect("generate");
    println!(
        "generated kron:{scale} ({} vertices, {} stored edges) in {:.2} s",
        g.vertex_count(),
        g.edge_count(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    save_matrix_market(&g, path).expect("write");
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    println!(
        "wrote {path}: {:.1} MB in {:.2} s",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
}

fn parse(path: &str, runs: u32) {
    let bytes = std::fs::metadata(path).expect("file").len() as f64;
    let (mut parse_s, mut build_s) = (Vec::new(), Vec::new());
    let mut entries = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let list = load_edges(path, LoadOptions::default()).expect("parse");
        parse_s.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let g = list.build(LoadOptions::default().build).expect("build");
        build_s.push(t.elapsed().as_secs_f64());
        entries = list.edges.len();
        drop(list);
        std::hint::black_box(g);
    }
    let (p, b) = (median(parse_s), median(build_s));
    let e = entries as f64;
    println!(
        "file: {path}, {:.1} MB, {entries} entries, {runs} runs (medians)",
        bytes / 1e6
    );
    println!(
        "parse:         {p:.3} s  {:.0} MB/s  {:.1} M entries/s",
        bytes / p / 1e6,
        e / p / 1e6
    );
    println!("build (CSR):   {b:.3} s");
    println!(
        "parse + build: {:.3} s  {:.0} MB/s  {:.1} M entries/s",
        p + b,
        bytes / (p + b) / 1e6,
        e / (p + b) / 1e6
    );
    println!("peak RSS: {:.2} GiB", peak_rss_gib());
}

fn bfs(from: u32, to: u32, sources: u32) {
    println!(
        "| scale | vertices | stored edges | direction | sources | harmonic mean GTEPS | median ms | min GTEPS | max GTEPS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for scale in from..=to {
        let g = kronecker(KroneckerSpec {
            scale,
            ..KroneckerSpec::default()
        })
        .expect("generate");
        let roots = sample_sources(&g, sources as usize, 2);
        let mut ws = BfsWorkspace::new(g.vertex_count());
        let (mut depths, mut parents) = (
            vec![0; g.vertex_count() as usize],
            vec![0; g.vertex_count() as usize],
        );
        for direction in [Direction::Optimizing, Direction::TopDown] {
            let options = ParallelBfsOptions {
                direction,
                ..ParallelBfsOptions::default()
            };
            // Warm up caches and the thread pool.
            parallel_bfs_in(&mut ws, &g, &roots[..1], options);
            let (mut rates, mut times) = (Vec::new(), Vec::new());
            for &root in &roots {
                let t = Instant::now();
                parallel_bfs_in(&mut ws, &g, &[root], options);
                let secs = t.elapsed().as_secs_f64();
                ws.state.depths(&mut depths);
                ws.state.parents(&mut parents);
                let report = validate_bfs(&g, &[root], &depths, &parents).expect("valid BFS");
                rates.push(report.searched_edges as f64 / secs);
                times.push(secs);
            }
            let lo = rates.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = rates.iter().copied().fold(0.0, f64::max);
            println!(
                "| {scale} | {} | {} | {direction:?} | {} | {:.3} | {:.1} | {:.3} | {:.3} |",
                g.vertex_count(),
                g.edge_count(),
                roots.len(),
                harmonic_mean(&rates) / 1e9,
                median(times) * 1e3,
                lo / 1e9,
                hi / 1e9
            );
        }
    }
}

fn build(scale: u32) {
    let t = Instant::now();
    let g = kronecker(KroneckerSpec {
        scale,
        ..KroneckerSpec::default()
    })
    .expect("generate");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "kron:{scale}: {} vertices, {} stored edges ({:.2} GiB CSR) built in {secs:.1} s; peak RSS {:.2} GiB",
        g.vertex_count(),
        g.edge_count(),
        (g.edge_count() * 4 + (u64::from(g.vertex_count()) + 1) * 8) as f64 / (1u64 << 30) as f64,
        peak_rss_gib()
    );
}
