//! The graph of `--graph`, with `--source` checked as soon as the vertex
//! count is known: before a generator runs, and between parsing a file and
//! building its graph.

use std::sync::Arc;
use std::time::Duration;

use vyre::graph::Graph;
use vyre::graph::load::{LoadOptions, Progress, parse_graph};
use vyre::graph::spec::{GraphSpec, SpecOptions};
use vyre::graph::teps::sample_sources;

use crate::args::Args;
use crate::progress::{Count, Phases};

/// How a generated graph numbers its vertices.
const GENERATED: &str = "generated graphs number vertices from 0";

/// The graph and how it was made.
pub struct Loaded {
    pub graph: Arc<Graph>,
    /// The file's format, or `generated`.
    pub format: &'static str,
    /// How the input's ids map to vertex ids, in words.
    pub numbering: &'static str,
    pub load_time: Duration,
    pub build_time: Duration,
}

/// Parse or generate the graph, showing each phase.
pub fn load(args: &Args, phases: &Phases) -> Result<Loaded, String> {
    let spec: GraphSpec = args.graph.parse().map_err(|e| format!("{e}"))?;
    let GraphSpec::File(path) = &spec else {
        let n = spec.vertex_count().unwrap_or(0);
        check_sources(args, n, GENERATED)?;
        let phase = phases.start("build", Count::Nothing);
        let options = SpecOptions {
            seed: args.seed,
            directed: false,
            load: LoadOptions::default(),
        };
        let graph = spec.build_with(options).map_err(|e| e.to_string())?;
        let build_time = phase.finish(&shape(&graph));
        return Ok(Loaded {
            graph: Arc::new(graph),
            format: "generated",
            numbering: GENERATED,
            load_time: Duration::ZERO,
            build_time,
        });
    };
    let size = std::fs::metadata(path).ok().map(|m| m.len());
    let phase = phases.start("load", Count::Bytes(size));
    let show = |p: Progress| phase.set(p.bytes_read);
    let options = LoadOptions {
        symmetrize: args.symmetrize,
        progress: Some(&show),
        max_decompressed_bytes: args.max_decompressed_bytes,
        ..LoadOptions::default()
    };
    let parsed = parse_graph(path, options).map_err(|e| e.to_string())?;
    let (format, n) = (parsed.format(), parsed.vertex_count());
    let load_time = phase.finish(&format!(
        "{}: {}, {n} vertices ({})",
        args.graph,
        format.name(),
        format.numbering()
    ));
    check_sources(args, n, format.numbering())?;
    let (graph, build_time) = if parsed.needs_build() {
        let phase = phases.start("build", Count::Nothing);
        let graph = parsed.build().map_err(|e| e.to_string())?;
        let took = phase.finish(&shape(&graph));
        (graph, took)
    } else {
        (parsed.build().map_err(|e| e.to_string())?, Duration::ZERO)
    };
    Ok(Loaded {
        graph: Arc::new(graph),
        format: format.name(),
        numbering: format.numbering(),
        load_time,
        build_time,
    })
}

/// `n vertices, m stored edges (directed)`.
pub fn shape(graph: &Graph) -> String {
    format!(
        "{} vertices, {} stored edges ({})",
        graph.vertex_count(),
        graph.edge_count(),
        if graph.is_symmetric() {
            "undirected"
        } else {
            "directed"
        }
    )
}

/// Refuse a `--source` that is not a vertex, saying how ids are numbered.
fn check_sources(args: &Args, n: u32, numbering: &str) -> Result<(), String> {
    let Some(&bad) = args.source.iter().find(|&&s| s >= n) else {
        return Ok(());
    };
    let name = &args.graph;
    if n == 0 {
        return Err(format!(
            "source {bad} is not a vertex: {name} has no vertices. Fix: load a graph with edges."
        ));
    }
    let last = n - 1;
    Err(format!(
        "source {bad} is not a vertex: {name} has vertices 0..{last}; {numbering}. Fix: pass --source between 0 and {last}."
    ))
}

/// The sources to search from: `--source`, or a Graph500 sample.
pub fn sources(args: &Args, graph: &Graph) -> Result<Vec<u32>, String> {
    if !args.source.is_empty() {
        return Ok(args.source.clone());
    }
    let sampled = sample_sources(graph, args.samples, args.seed);
    if sampled.is_empty() {
        return Err(format!(
            "{} has no vertex with an out-edge to start from. Fix: pass --source explicitly.",
            args.graph
        ));
    }
    Ok(sampled)
}
