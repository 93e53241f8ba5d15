//! Command-line flags of the `bfs` example.

use std::path::PathBuf;

use clap::Parser;
use vyre::graph::Graph;
use vyre::graph::load::{DEFAULT_MAX_DECOMPRESSED_BYTES, LoadOptions, Progress};
use vyre::graph::spec::{GraphSpec, SpecOptions};
use vyre::graph::teps::sample_sources;
use vyre::{BackendChoice, ChainMode, TopologyChoice, parse_topology};

/// BFS on the best backend found, with Graph500 validation.
#[derive(Parser, Debug)]
#[command(version, about)]
pub struct Args {
    /// Graph: a file (.mtx, SNAP edge list, .vyre binary CSR, optionally .gz) or a
    /// generator: kron:S, urand:S, grid:WxH, chain:N, star:N.
    #[arg(long, default_value = "kron:20")]
    pub graph: String,
    /// Store every edge of a directed file in both directions.
    #[arg(long)]
    pub symmetrize: bool,
    /// Backend: auto, cpu, wgpu or cuda.
    #[arg(long, default_value = "auto")]
    pub backend: BackendChoice,
    /// Source vertex in the file's own numbering (repeatable; one search each).
    /// Default: 8 sampled vertices of non-zero degree.
    #[arg(long = "source")]
    pub source: Vec<u32>,
    /// Sampled sources when no --source is given.
    #[arg(long, default_value_t = 8)]
    pub samples: usize,
    /// Topology: auto (the policy chooses per wave) or one of warp-sparse,
    /// sparse, hybrid, dense, block-dense, fused.
    #[arg(long, default_value = "auto")]
    pub topology: String,
    /// Chaining of per-wave levels: auto, off, or a level count.
    #[arg(long, default_value = "auto")]
    pub chain: String,
    /// Print the per-wave table (topology, explanation, frontier, time).
    #[arg(long)]
    pub trace: bool,
    /// Skip the Graph500 checks.
    #[arg(long)]
    pub no_validate: bool,
    /// Write the first source's depths, one line per vertex (-1 = unreached).
    #[arg(long)]
    pub write_depths: Option<PathBuf>,
    /// Print a machine-readable JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
    /// Timed searches per source; the median is reported.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Plan against this many bytes of device memory instead of the device's figure.
    #[arg(long)]
    pub memory_budget: Option<u64>,
    /// Seed of the generators and the source sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Refuse a gzip file that decompresses to more than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_DECOMPRESSED_BYTES)]
    pub max_decompressed_bytes: u64,
}

impl Args {
    /// Build or load the graph, showing progress for big files on stderr.
    pub fn load_graph(&self) -> Result<Graph, String> {
        let spec: GraphSpec = self.graph.parse().map_err(|e| format!("{e}"))?;
        let show = |p: Progress| show_progress(&p);
        let options = SpecOptions {
            seed: self.seed,
            directed: false,
            load: LoadOptions {
                symmetrize: self.symmetrize,
                progress: if self.json { None } else { Some(&show) },
                max_decompressed_bytes: self.max_decompressed_bytes,
                ..LoadOptions::default()
            },
        };
        let graph = spec.build_with(options).map_err(|e| e.to_string());
        if matches!(spec, GraphSpec::File(_)) && !self.json {
            eprintln!();
        }
        graph
    }

    /// The sources to search from.
    pub fn sources(&self, graph: &Graph) -> Result<Vec<u32>, String> {
        let n = graph.vertex_count();
        if let Some(&bad) = self.source.iter().find(|&&s| s >= n) {
            return Err(format!(
                "source {bad} is not a vertex of the graph ({n} vertices). Fix: pass --source below {n}."
            ));
        }
        if !self.source.is_empty() {
            return Ok(self.source.clone());
        }
        let sampled = sample_sources(graph, self.samples, self.seed);
        if sampled.is_empty() {
            return Err("the graph has no vertex with an edge to start from. Fix: pass --source explicitly.".into());
        }
        Ok(sampled)
    }

    /// The parsed topology choice.
    pub fn topology_choice(&self) -> Result<TopologyChoice, String> {
        if self.topology == "auto" {
            return Ok(TopologyChoice::Auto);
        }
        parse_topology(&self.topology).map(TopologyChoice::Forced)
    }

    /// The parsed chain mode.
    pub fn chain_mode(&self) -> Result<ChainMode, String> {
        match self.chain.as_str() {
            "auto" => Ok(ChainMode::Auto),
            "off" => Ok(ChainMode::Off),
            n => n.parse().map(ChainMode::Levels).map_err(|_| {
                format!("unknown chain mode '{n}'. Fix: use auto, off or a level count.")
            }),
        }
    }
}

/// One progress line on stderr, rewritten in place, for files over 64 MiB.
fn show_progress(p: &Progress) {
    const MIB: u64 = 1 << 20;
    if let Some(total) = p.total_bytes.filter(|&t| t >= 64 * MIB) {
        eprint!(
            "\rloading: {} / {} MiB ({:.0}%)",
            p.bytes_read / MIB,
            total / MIB,
            100.0 * p.bytes_read as f64 / total as f64
        );
    } else if p.total_bytes.is_none() && p.bytes_read >= 64 * MIB {
        eprint!("\rloading: {} MiB", p.bytes_read / MIB);
    }
}
