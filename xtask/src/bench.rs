//! `cargo xtask bench`: backends × topologies × graphs, medians, Graph500
//! TEPS, per-level time, the bandwidth floor, and the PyTorch and GAP
//! baselines in the same run. Meant for the H200 (built here, run there); it
//! writes `bench.md`, `bench.json` and the SVG charts `gteps.svg` and
//! `per_level.svg` into `--out`.

mod charts;
mod export;
mod gap;
mod report;
mod spread;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use vyre::graph::Graph;
use vyre::graph::spec::GraphSpec;
use vyre::graph::teps::sample_sources;
use vyre::measure::{MeasureRequest, measure};
use vyre::{
    BackendChoice, ChainMode, Device, LoadRequest, OpenRequest, Topology, TopologyChoice,
    VertexOrder, parse_vertex_order, vertex_order_name,
};

pub use report::{Row, date, median, write_reports};

use crate::clock::ClockLog;

/// Flags of `xtask bench`.
#[derive(clap::Args)]
pub struct Args {
    /// Backends to compare (each must open).
    #[arg(long, value_delimiter = ',', default_value = "cuda,wgpu")]
    backends: Vec<String>,
    /// Graphs: generator specs (kron:S, grid:WxH, chain:N, ...) or files.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "kron:22,kron:24,kron:25,grid:3000x3000,chain:1000000"
    )]
    graphs: Vec<String>,
    /// Sampled sources per power-law graph (high-diameter graphs use one corner).
    #[arg(long, default_value_t = 8)]
    sources: usize,
    /// Timed repetitions per source; medians are reported.
    #[arg(long, default_value_t = 3)]
    repeats: u32,
    /// Also time forced topologies (not only auto and the per-wave variant).
    #[arg(long)]
    forced: bool,
    /// Time only the variants of these names (repeatable, exact names as
    /// the report prints them, e.g. `auto` or `forced fused`); all when absent.
    /// For graphs whose slow variants would take minutes, like a long chain.
    #[arg(long = "only")]
    only: Vec<String>,
    /// Vertex orders to load each graph in (auto, by-degree, as-given), each
    /// timed in turn; variants of an order other than a lone `auto` are
    /// named with it, e.g. `auto [as-given]`.
    #[arg(long, value_delimiter = ',', default_value = "auto", value_parser = parse_vertex_order)]
    orders: Vec<VertexOrder>,
    /// Run the PyTorch baseline (`benches/pytorch_bfs.py`) on these graphs too.
    #[arg(long, value_delimiter = ',')]
    pytorch: Vec<String>,
    /// Run GAP's `bfs` binary (sbeamer/gapbs) at this path on the Kronecker
    /// graphs (`-g S -n --repeats x --sources`).
    #[arg(long)]
    gap: Option<PathBuf>,
    /// Only redraw the charts of a saved bench.json into --out; nothing runs.
    #[arg(long, value_name = "BENCH.json")]
    charts_from: Option<PathBuf>,
    /// Directory for bench.md, bench.json, the charts and exported graphs.
    #[arg(long, default_value = "target/bench")]
    out: PathBuf,
    /// Commit the binaries were built from (recorded in the report).
    #[arg(long, default_value = "unknown")]
    commit: String,
    /// CUDA: offer light graphs' fused commands the launch of one
    /// thread-block cluster (`OpenRequest::cuda_fused_cluster`).
    #[arg(long)]
    cuda_cluster: bool,
}

/// One variant to time on one graph.
struct Variant {
    name: String,
    topology: TopologyChoice,
    chaining: ChainMode,
}

fn variants(args: &Args, high_diameter: bool, fused: bool) -> Vec<Variant> {
    let mut list = vec![Variant {
        name: "auto".into(),
        topology: TopologyChoice::Auto,
        chaining: ChainMode::Auto,
    }];
    let forced = |t: Topology, chaining: ChainMode, name: String| Variant {
        name,
        topology: TopologyChoice::Forced(t),
        chaining,
    };
    if high_diameter {
        // Per-level overhead: one launch per level, chained, fused.
        for t in [Topology::WarpSparseFrontier, Topology::SparseFrontier] {
            let name = vyre::topology_name(t);
            list.push(forced(
                t,
                ChainMode::Off,
                format!("{name}, one launch per level"),
            ));
            list.push(forced(
                t,
                ChainMode::Auto,
                format!("{name}, chained when launch-bound"),
            ));
        }
        if fused {
            list.push(forced(
                Topology::FusedWave,
                ChainMode::Auto,
                "forced fused".into(),
            ));
        }
    }
    if args.forced || !high_diameter {
        for t in Topology::ALL {
            if t != Topology::FusedWave || fused {
                let name = format!("forced {}", vyre::topology_name(t));
                list.push(forced(t, ChainMode::Auto, name));
            }
        }
    }
    if !args.only.is_empty() {
        list.retain(|v| args.only.contains(&v.name));
    }
    list
}

pub fn run(args: &Args) -> Result<(), String> {
    if let Some(report) = &args.charts_from {
        return charts::charts_from(report, &args.out);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let mut rows = Vec::new();
    let mut devices = Vec::new();
    let mut unavailable = Vec::new();
    for name in &args.backends {
        let choice: BackendChoice = name.parse()?;
        let request = OpenRequest {
            cuda_fused_cluster: args.cuda_cluster,
            ..OpenRequest::new(choice)
        };
        match vyre::open(&request) {
            Ok(device) => devices.push(device),
            Err(e) => {
                eprintln!("bench: {name} unavailable: {e}");
                unavailable.push(format!("{name}: {e}"));
            }
        }
    }
    if devices.is_empty() {
        return Err(format!("no backend opened: {}", unavailable.join("; ")));
    }
    let mut baselines = Vec::new();
    let mut notes = Vec::new();
    let clocks = ClockLog::start();
    if let Some(why) = &clocks.unavailable {
        notes.push(format!("SM clock not recorded: {why}"));
    }
    for spec_text in &args.graphs {
        let started = Instant::now();
        let spec: GraphSpec = spec_text.parse().map_err(|e| format!("{e}"))?;
        let graph = Arc::new(spec.build().map_err(|e| e.to_string())?);
        eprintln!(
            "bench: {spec_text}: {} vertices, {} edges, built in {:.1?}",
            graph.vertex_count(),
            graph.edge_count(),
            started.elapsed()
        );
        let high_diameter = spec_text.starts_with("grid") || spec_text.starts_with("chain");
        let sources = if high_diameter {
            vec![0]
        } else {
            sample_sources(&graph, args.sources, 1)
        };
        for device in &mut devices {
            for &order in &args.orders {
                let report = device
                    .load_with(LoadRequest {
                        order,
                        ..LoadRequest::new(Arc::clone(&graph))
                    })
                    .map_err(|e| e.to_string())?;
                let note = format!(
                    "{spec_text} on {}: vertex order {}; relabelling took {:.3} s, the upload {:.3} s (construction, not in any search's time)",
                    device.backend(),
                    report.order.reason,
                    report.relabel_time.as_secs_f64(),
                    report.upload_time.as_secs_f64()
                );
                eprintln!("bench: {note}");
                notes.push(note);
                let suffix = if args.orders == [VertexOrder::Auto] {
                    String::new()
                } else {
                    format!(" [{}]", vertex_order_name(order))
                };
                let run = GraphRun {
                    spec: spec_text,
                    graph: &graph,
                    sources: &sources,
                    high_diameter,
                };
                time_variants(args, device, &run, &suffix, &clocks, &mut rows);
            }
        }
        if args.pytorch.iter().any(|p| p == spec_text) {
            baselines.push(export::pytorch_baseline(
                &args.out,
                spec_text,
                &graph,
                &sources,
                args.repeats,
            )?);
        }
        if let Some(gap) = &args.gap
            && let Some(baseline) =
                gap::gap_baseline(gap, spec_text, &graph, args.repeats * args.sources as u32)?
        {
            baselines.push(baseline);
        }
        drop(graph);
    }
    write_reports(
        &args.out,
        &args.commit,
        &devices,
        &unavailable,
        &notes,
        &rows,
        &baselines,
    )
}

/// One graph of the bench and the searches to time on it.
struct GraphRun<'a> {
    spec: &'a str,
    graph: &'a Graph,
    sources: &'a [u32],
    high_diameter: bool,
}

/// Every variant of `args` for `run`'s graph (loaded on `device`), each
/// row's variant named with `suffix`.
fn time_variants(
    args: &Args,
    device: &mut Device,
    run: &GraphRun<'_>,
    suffix: &str,
    clocks: &ClockLog,
    rows: &mut Vec<Row>,
) {
    let GraphRun {
        spec: spec_text,
        graph,
        sources,
        high_diameter,
    } = *run;
    let fused = device
        .capabilities()
        .megakernel
        .supports_device_wide_barrier;
    for variant in &variants(args, high_diameter, fused) {
        let request = MeasureRequest {
            sources,
            topology: variant.topology,
            chaining: variant.chaining,
            // Validate the policy's results; forced variants are covered
            // by `xtask conformance`.
            validate: variant.name == "auto",
            repeats: args.repeats,
        };
        let name = format!("{}{suffix}", variant.name);
        let (measured, clock) = clocks.around(|| measure(device, graph, &request));
        match measured {
            Ok(m) => rows.push(Row::new(spec_text, graph, device, &name, &m).with_clock(clock)),
            Err(e) => rows.push(Row::failed(spec_text, graph, device, &name, &e.to_string())),
        }
        eprintln!(
            "bench: {}",
            rows.last().map(Row::one_line).unwrap_or_default()
        );
    }
}
