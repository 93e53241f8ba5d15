//! Command-line flags of the `bfs` example, each checked as it is parsed,
//! before anything is loaded.

use std::path::PathBuf;

use clap::Parser;
use clap::error::{ContextKind, ErrorKind};
use vyre::graph::load::DEFAULT_MAX_DECOMPRESSED_BYTES;
use vyre::{
    BackendChoice, ChainMode, TopologyChoice, VertexOrder, parse_topology, parse_vertex_order,
};

/// BFS on the best backend found, with Graph500 validation.
///
/// Vertex ids are 0-based everywhere: a Matrix Market, DIMACS or METIS id k
/// is vertex k-1; edge-list ids are used as written.
#[derive(Parser, Debug)]
#[command(version, about)]
pub struct Args {
    /// Graph: a file (.mtx Matrix Market, .gr DIMACS, .graph METIS, a SNAP
    /// edge list, or a .vyre binary CSR, each optionally .gz) or a
    /// generator: kron:S, urand:S, grid:WxH, chain:N, star:N.
    #[arg(long, default_value = "kron:20")]
    pub graph: String,
    /// Store every edge of a directed file in both directions.
    #[arg(long)]
    pub symmetrize: bool,
    /// Backend: auto (CUDA, then wgpu on a hardware GPU, then the CPU),
    /// cpu, wgpu or cuda.
    #[arg(long, default_value = "auto")]
    pub backend: BackendChoice,
    /// Partition the graph over N GPUs (CUDA ordinals 0..N, exchanging
    /// frontiers through NCCL); with --backend cpu, over N simulated ranks
    /// (threads). Without it: one device. Never falls back from GPUs to
    /// simulated ranks.
    #[arg(long, value_name = "N")]
    pub gpus: Option<u32>,
    /// Source vertex, 0-based (repeatable; one search each): a Matrix
    /// Market, DIMACS or METIS id k is vertex k-1; edge-list ids are used as
    /// written. Default: sampled vertices with an out-edge (Graph500).
    #[arg(long = "source")]
    pub source: Vec<u32>,
    /// Sampled sources when no --source is given.
    #[arg(long, default_value_t = 8)]
    pub samples: usize,
    /// Topology: auto (the policy chooses per wave) or one of warp-sparse,
    /// sparse, hybrid, dense, block-dense, fused.
    #[arg(long, default_value = "auto", value_parser = topology_choice)]
    pub topology: TopologyChoice,
    /// Chaining of per-wave levels: auto, off, or a level count.
    #[arg(long, default_value = "auto", value_parser = chain_mode)]
    pub chain: ChainMode,
    /// Vertex numbering on the device: auto (by degree on large skewed
    /// graphs, by breadth on large sparse ones), by-degree, by-breadth
    /// (level by level from a peripheral vertex), or as-given. Sources and
    /// results use the graph's own ids either way; the renumbering is timed
    /// apart from searches.
    #[arg(long, default_value = "auto", value_parser = parse_vertex_order)]
    pub order: VertexOrder,
    /// Print the per-wave table: topology, frontier, edges, times and the
    /// policy's reason.
    #[arg(long)]
    pub trace: bool,
    /// Skip the Graph500 checks.
    #[arg(long)]
    pub no_validate: bool,
    /// Write the first source's depths to PATH: line i holds the depth of
    /// vertex i (0-based), -1 when unreached.
    #[arg(long, value_name = "PATH")]
    pub write_depths: Option<PathBuf>,
    /// Draw the first source's search level by level (frontier size and
    /// device time per level, coloured by topology) as an SVG file.
    #[arg(long, value_name = "PATH.svg")]
    pub plot: Option<PathBuf>,
    /// Save the loaded graph as a binary CSR (.vyre), which reloads in
    /// seconds: convert a large text file once.
    #[arg(long, value_name = "PATH.vyre")]
    pub save_graph: Option<PathBuf>,
    /// Print a machine-readable JSON summary instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr (errors still print).
    #[arg(long, short)]
    pub quiet: bool,
    /// Timed searches per source; the median is reported.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Plan against this many bytes of device memory instead of the device's figure.
    #[arg(long)]
    pub memory_budget: Option<u64>,
    /// Seed of the generators and the source sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Search every source as one batch of independent searches (64 per
    /// pass over the graph): per-source reached counts, depth sums,
    /// closeness and eccentricity; --write-depths writes one column per
    /// source.
    #[arg(long)]
    pub batch: bool,
    /// Refuse a gzip file that decompresses to more than this many bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_DECOMPRESSED_BYTES)]
    pub max_decompressed_bytes: u64,
}

fn topology_choice(text: &str) -> Result<TopologyChoice, String> {
    if text == "auto" {
        return Ok(TopologyChoice::Auto);
    }
    parse_topology(text).map(TopologyChoice::Forced)
}

fn chain_mode(text: &str) -> Result<ChainMode, String> {
    match text {
        "auto" => Ok(ChainMode::Auto),
        "off" => Ok(ChainMode::Off),
        n => n
            .parse()
            .map(ChainMode::Levels)
            .map_err(|_| format!("unknown chain mode '{n}'. Fix: use auto, off or a level count.")),
    }
}

/// The flags, or the one-line message for a value that does not parse.
/// Help, version and usage errors exit through clap.
pub fn parse() -> Result<Args, String> {
    match Args::try_parse() {
        Ok(args) => Ok(args),
        Err(e) if e.kind() == ErrorKind::ValueValidation => {
            let flag = e
                .get(ContextKind::InvalidArg)
                .map(|a| a.to_string())
                .unwrap_or_default();
            let flag = flag.split(' ').next().unwrap_or_default();
            let why =
                std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
            let value = e
                .get(ContextKind::InvalidValue)
                .map(|v| v.to_string())
                .unwrap_or_default();
            if why.contains("Fix:") {
                Err(format!("{flag}: {why}"))
            } else {
                Err(format!(
                    "{flag} '{value}': {why}. Fix: see --help for the values {flag} takes."
                ))
            }
        }
        Err(e) => e.exit(),
    }
}
