//! `cargo run --release --example closeness`: the most central vertices of a
//! graph by closeness, estimated from a batch of searches from sampled
//! sources on the best backend found.
//!
//! A vertex's closeness is one over its average distance to the vertices it
//! reaches. Searching from every vertex costs n searches; sampling k sources
//! and averaging each vertex's distance to the sampled sources that reach it
//! estimates it from k (Eppstein and Wang's sampling), and a batch runs 64
//! of those searches in one pass over the graph. `--exact` also searches
//! from every vertex (in batches) and compares the top lists. The graph is
//! read as undirected (distances from and to a vertex agree).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use vyre::graph::Graph;
use vyre::graph::spec::{GraphSpec, SpecOptions};
use vyre::graph::teps::sample_sources;
use vyre::{BackendChoice, BatchRequest, Device, OpenRequest};

/// Top vertices by closeness, estimated from sampled sources.
#[derive(Parser, Debug)]
#[command(about)]
struct Args {
    /// Graph: a file or a generator (kron:S, grid:WxH, ...), read undirected.
    #[arg(long, default_value = "kron:16")]
    graph: String,
    /// Backend: auto, cpu, wgpu, cuda or vulkan.
    #[arg(long, default_value = "auto")]
    backend: BackendChoice,
    /// Sampled sources (searched as batches of 64).
    #[arg(long, default_value_t = 256)]
    samples: usize,
    /// How many top vertices to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Also compute every vertex's exact closeness (n searches) and compare.
    #[arg(long)]
    exact: bool,
    /// Seed of the generator and the sampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// A vertex and its closeness.
#[derive(Clone, Copy, Debug)]
struct Central {
    vertex: u32,
    closeness: f64,
}

/// The `top` vertices of highest closeness (lower id first among ties).
fn top_of(closeness: &[f64], top: usize) -> Vec<Central> {
    let mut order: Vec<u32> = (0..closeness.len() as u32).collect();
    order.sort_by(|&a, &b| {
        closeness[b as usize]
            .total_cmp(&closeness[a as usize])
            .then(a.cmp(&b))
    });
    order
        .into_iter()
        .take(top)
        .map(|v| Central {
            vertex: v,
            closeness: closeness[v as usize],
        })
        .collect()
}

/// Estimated closeness of every vertex from the depths of a batch from
/// `sources` (vertex-major, one column per source): one over the average
/// depth from the sources that reach the vertex, itself excluded.
fn estimate(n: usize, sources: &[u32], depths: &[u32]) -> Vec<f64> {
    let k = sources.len();
    (0..n)
        .map(|v| {
            let (count, sum) = depths[v * k..(v + 1) * k]
                .iter()
                .filter(|&&d| d != u32::MAX && d > 0)
                .fold((0u64, 0u64), |(c, s), &d| (c + 1, s + u64::from(d)));
            if sum == 0 {
                0.0
            } else {
                count as f64 / sum as f64
            }
        })
        .collect()
}

/// Every vertex's exact closeness: a batch from every vertex, each search's
/// reached count over its depth sum.
fn exact(device: &mut Device, n: u32) -> Result<Vec<f64>, String> {
    let all: Vec<u32> = (0..n).collect();
    let result = device
        .bfs_batch(&BatchRequest::new(&all))
        .map_err(|e| e.to_string())?;
    Ok(result
        .lanes
        .iter()
        .map(|l| {
            if l.depth_sum == 0 {
                0.0
            } else {
                (l.reached - 1) as f64 / l.depth_sum as f64
            }
        })
        .collect())
}

fn load(args: &Args) -> Result<Graph, String> {
    let spec: GraphSpec = args.graph.parse().map_err(|e| format!("{e}"))?;
    let mut options = SpecOptions {
        seed: args.seed,
        directed: false,
        ..SpecOptions::default()
    };
    options.load.symmetrize = true;
    spec.build_with(options).map_err(|e| e.to_string())
}

fn run(args: &Args) -> Result<(), String> {
    let mut device = vyre::open(&OpenRequest::new(args.backend)).map_err(|e| e.to_string())?;
    let graph = Arc::new(load(args)?);
    let n = graph.vertex_count();
    device.load(Arc::clone(&graph)).map_err(|e| e.to_string())?;
    let sources = sample_sources(&graph, args.samples, args.seed);
    if sources.is_empty() {
        return Err(
            "the graph has no vertex with an edge to sample. Fix: use a graph with edges.".into(),
        );
    }
    let request = BatchRequest {
        keep_depths: true,
        ..BatchRequest::new(&sources)
    };
    let batch = device.bfs_batch(&request).map_err(|e| e.to_string())?;
    let depths = batch.depths.as_ref().ok_or("the batch kept no depths")?;
    let estimated = top_of(&estimate(n as usize, &sources, depths), args.top);
    let exact = if args.exact {
        Some(exact(&mut device, n)?)
    } else {
        None
    };
    let exact_top = exact.as_deref().map(|c| top_of(c, args.top));
    let overlap = exact_top.as_ref().map(|top| {
        estimated
            .iter()
            .filter(|e| top.iter().any(|t| t.vertex == e.vertex))
            .count()
    });
    if args.json {
        let list = |list: &[Central]| {
            list.iter()
                .map(|c| {
                    let exact = exact.as_deref().map(|e| e[c.vertex as usize]);
                    serde_json::json!({ "vertex": c.vertex, "closeness": c.closeness, "exact": exact })
                })
                .collect::<Vec<_>>()
        };
        let report = serde_json::json!({
            "backend": device.backend().name(),
            "device": device.capabilities().device_name,
            "vertices": n,
            "samples": sources.len(),
            "batch_seconds": batch.search_time.as_secs_f64(),
            "passes": batch.passes.len(),
            "top": list(&estimated),
            "exact_top": exact_top.as_deref().map(list),
            "overlap": overlap,
        });
        println!("{report}");
        return Ok(());
    }
    println!(
        "{} on {} ({}): {n} vertices, {} sampled sources in {} pass(es), {:.2} ms",
        args.graph,
        device.capabilities().device_name,
        device.backend(),
        sources.len(),
        batch.passes.len(),
        batch.search_time.as_secs_f64() * 1e3
    );
    println!(
        "{:>6} {:>10} {:>12} {:>12}",
        "rank", "vertex", "estimated", "exact"
    );
    for (rank, c) in estimated.iter().enumerate() {
        let exact = exact
            .as_deref()
            .map_or("-".to_string(), |e| format!("{:.6}", e[c.vertex as usize]));
        println!(
            "{:>6} {:>10} {:>12.6} {:>12}",
            rank + 1,
            c.vertex,
            c.closeness,
            exact
        );
    }
    if let (Some(top), Some(overlap)) = (&exact_top, overlap) {
        let exact_ids: Vec<u32> = top.iter().map(|c| c.vertex).collect();
        println!(
            "exact top {}: {exact_ids:?}; {overlap} of them in the estimated top {}",
            top.len(),
            estimated.len()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match Args::try_parse() {
        Ok(args) => match run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("error: {message}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            let _ = e.print();
            ExitCode::from(2)
        }
    }
}
