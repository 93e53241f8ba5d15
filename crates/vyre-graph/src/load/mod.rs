//! Loading graphs from the files users already have.
//!
//! - Matrix Market coordinate files ([`Format::MatrixMarket`]);
//! - SNAP-style edge lists ([`Format::EdgeList`]);
//! - DIMACS shortest-path files ([`Format::Dimacs`], `.gr` road networks);
//! - METIS adjacency files ([`Format::Metis`], `.graph`);
//! - vyre's binary CSR ([`Format::Binary`], `.vyre`, written by
//!   [`save_binary`]);
//!
//! each optionally gzip-compressed (detected by content, decompressed as a
//! stream). Vertex ids are 0-based: a Matrix Market, DIMACS or METIS id k
//! is vertex k − 1; edge-list ids are used as written
//! ([`Format::numbering`]). Text is read in blocks on a background thread
//! and parsed in parallel.
//!
//! Every failure is a [`LoadError`] naming the file, the line or byte, and
//! the fix. Nothing is allocated on a header's word alone: preallocation is
//! capped by the file's size, and a vertex count far beyond what the edges
//! touch is refused (see [`LoadOptions::isolated_vertex_allowance`]). Gzip
//! input may expand only so far ([`LoadOptions::max_decompressed_bytes`]),
//! large arrays are allocated fallibly, and the memory a load will hold is
//! checked against [`LoadOptions::memory_limit`] before it is allocated.

mod binary;
mod dimacs;
mod error;
mod input;
mod matrix_market;
mod metis;
mod snap;
mod text;

pub use binary::{MAGIC, VERSION, save_binary, write_binary};
pub use error::{Field, FieldProblem, LoadError, LoadErrorKind, Location};

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::Graph;
use crate::build::{BuildFootprint, BuildOptions, build_graph};
use crate::memory::{self, MemoryLimit};
use input::Input;

/// Default of [`LoadOptions::max_decompressed_bytes`]: 256 GiB. The largest
/// public graphs as text (uk-2007-05's 3.7 G edges, GAP's kron and urand)
/// are well under 100 GB, and decompressing 256 GiB takes minutes, not
/// hours; memory is guarded separately ([`LoadOptions::memory_limit`]).
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 256 << 30;

/// How far a load has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the file read so far (compressed bytes for gzip files).
    pub bytes_read: u64,
    /// The file's size, when known.
    pub total_bytes: Option<u64>,
}

/// The file formats [`load_graph`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market coordinate.
    MatrixMarket,
    /// Whitespace-separated `source target` pairs (SNAP).
    EdgeList,
    /// vyre's binary CSR (`.vyre`).
    Binary,
    /// DIMACS shortest-path arcs (`.gr`: `p sp n m`, `a u v w`).
    Dimacs,
    /// METIS adjacency lines (`.graph`: `n m [fmt [ncon]]`, then one line
    /// of neighbours per vertex).
    Metis,
}

impl Format {
    /// The format's name as users know it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::MatrixMarket => "Matrix Market",
            Self::EdgeList => "edge list",
            Self::Binary => "vyre binary CSR",
            Self::Dimacs => "DIMACS",
            Self::Metis => "METIS",
        }
    }

    /// How the file's ids map to vertex ids, in words.
    #[must_use]
    pub fn numbering(self) -> &'static str {
        match self {
            Self::MatrixMarket => "Matrix Market id k is vertex k-1",
            Self::Dimacs => "DIMACS id k is vertex k-1",
            Self::Metis => "METIS id k is vertex k-1",
            Self::EdgeList => "edge-list ids are vertex ids as written",
            Self::Binary => "binary CSR ids are vertex ids as stored",
        }
    }
}

/// How a file becomes a graph.
#[derive(Clone, Copy)]
pub struct LoadOptions<'a> {
    /// Make directed inputs (Matrix Market `general`, edge lists)
    /// undirected. Symmetric Matrix Market files are undirected regardless.
    pub symmetrize: bool,
    /// Self-loop and duplicate handling; its `symmetrize` is ignored in
    /// favour of the file's symmetry and [`LoadOptions::symmetrize`].
    pub build: BuildOptions,
    /// Force a format instead of detecting it from the content and name.
    pub format: Option<Format>,
    /// Vertices allowed beyond two per edge (vertices no edge can touch),
    /// so that a size line or a stray huge id cannot make the loader
    /// allocate gigabytes for a tiny file.
    pub isolated_vertex_allowance: u64,
    /// Called after every block read (a few megabytes) with the bytes read.
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
    /// Decompressed bytes a gzip file may expand to; past it the load
    /// fails (a zip bomb). Default: [`DEFAULT_MAX_DECOMPRESSED_BYTES`].
    pub max_decompressed_bytes: u64,
    /// Host memory, in bytes, the load and the graph's build may hold.
    /// `None`: what the machine has available when the load starts
    /// ([`MemoryLimit::detect`]). Generators named by a
    /// [`GraphSpec`](crate::spec::GraphSpec) are checked against it too.
    pub memory_limit: Option<u64>,
}

impl Default for LoadOptions<'_> {
    fn default() -> Self {
        Self {
            symmetrize: false,
            build: BuildOptions::default(),
            format: None,
            isolated_vertex_allowance: 1 << 26,
            progress: None,
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            memory_limit: None,
        }
    }
}

impl fmt::Debug for LoadOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadOptions")
            .field("symmetrize", &self.symmetrize)
            .field("build", &self.build)
            .field("format", &self.format)
            .field("isolated_vertex_allowance", &self.isolated_vertex_allowance)
            .field("max_decompressed_bytes", &self.max_decompressed_bytes)
            .field("memory_limit", &self.memory_limit)
            .field("progress", &self.progress.map(|_| "Fn(Progress)"))
            .finish()
    }
}

/// Load the graph in the file at `path`.
///
/// # Errors
///
/// A [`LoadError`] for a missing path, a directory, an empty, truncated or
/// malformed file, broken gzip or gzip past its limit, ids that do not fit
/// `u32`, or a graph that does not fit the memory limit.
pub fn load_graph(path: impl AsRef<Path>, options: LoadOptions<'_>) -> Result<Graph, LoadError> {
    parse_graph(path, options)?.build()
}

/// Read and parse the file at `path` without building the graph yet, so
/// that a caller learns the format and the vertex count (to check vertex
/// ids, say) before paying for the build.
///
/// # Errors
///
/// As [`load_graph`], less the build's.
pub fn parse_graph(
    path: impl AsRef<Path>,
    options: LoadOptions<'_>,
) -> Result<ParsedGraph, LoadError> {
    let path = path.as_ref();
    let input = input::open_path(path, options.max_decompressed_bytes)?;
    ParsedGraph::parse(path, input, &options)
}

/// A graph file read and parsed, not yet built (see [`parse_graph`]).
#[derive(Debug)]
pub struct ParsedGraph {
    path: PathBuf,
    format: Format,
    loaded: Loaded,
    build: BuildOptions,
    memory: Option<MemoryLimit>,
}

impl ParsedGraph {
    fn parse(path: &Path, input: Input<'_>, options: &LoadOptions<'_>) -> Result<Self, LoadError> {
        let memory = MemoryLimit::resolve(options.memory_limit);
        let (format, loaded) = load_input(input, options)?;
        Ok(Self {
            path: path.to_path_buf(),
            format,
            loaded,
            build: options.build,
            memory,
        })
    }

    /// The file's format.
    #[must_use]
    pub fn format(&self) -> Format {
        self.format
    }

    /// Vertices the graph will have.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        match &self.loaded {
            Loaded::Edges(list) => list.vertex_count,
            Loaded::Graph(graph) => graph.vertex_count(),
        }
    }

    /// Whether [`ParsedGraph::build`] has work to do (a binary CSR is
    /// built already).
    #[must_use]
    pub fn needs_build(&self) -> bool {
        matches!(self.loaded, Loaded::Edges(_))
    }

    /// Build the graph (sort, deduplicate, transpose), when the memory
    /// limit allows the edges and the build.
    ///
    /// # Errors
    ///
    /// [`LoadErrorKind::Graph`] naming the file when the build fails or
    /// would not fit.
    pub fn build(self) -> Result<Graph, LoadError> {
        let graph_error = |e| LoadError::new(&self.path, None, LoadErrorKind::Graph(e));
        match self.loaded {
            Loaded::Graph(graph) => Ok(graph),
            Loaded::Edges(mut list) => {
                // Growth left spare capacity; the build needs the memory.
                list.edges.shrink_to_fit();
                let footprint = BuildFootprint {
                    vertices: u64::from(list.vertex_count),
                    edges: list.edges.len() as u64,
                    options: BuildOptions {
                        symmetrize: list.symmetric,
                        ..self.build
                    },
                };
                let held = std::mem::size_of_val(list.edges.as_slice()) as u64;
                memory::check(
                    self.memory.as_ref(),
                    held.saturating_add(footprint.peak_bytes()),
                    || {
                        format!(
                            "building a graph of {} vertices from {} edges",
                            footprint.vertices, footprint.edges
                        )
                    },
                )
                .map_err(graph_error)?;
                let graph = list.build(self.build);
                drop(list);
                graph.map_err(graph_error)
            }
        }
    }
}

/// Parse a text file's edges without building the graph (Matrix Market or
/// edge list; a binary CSR gives its stored edges back).
///
/// # Errors
///
/// As [`load_graph`], less the build's.
pub fn load_edges(path: impl AsRef<Path>, options: LoadOptions<'_>) -> Result<EdgeList, LoadError> {
    let path = path.as_ref();
    let input = input::open_path(path, options.max_decompressed_bytes)?;
    match load_input(input, &options)?.1 {
        Loaded::Edges(edges) => Ok(edges),
        Loaded::Graph(graph) => {
            let edges = (0..graph.vertex_count())
                .flat_map(|u| graph.out_edges().neighbors(u).iter().map(move |&v| (u, v)))
                .collect();
            Ok(EdgeList {
                vertex_count: graph.vertex_count(),
                edges,
                symmetric: graph.is_symmetric(),
            })
        }
    }
}

/// The edges of a text file, as parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeList {
    /// Vertices (the declared size, or the largest id plus one).
    pub vertex_count: u32,
    /// `(source, target)` pairs in file order.
    pub edges: Vec<(u32, u32)>,
    /// Whether the graph is to be undirected (a symmetric file, or
    /// [`LoadOptions::symmetrize`]).
    pub symmetric: bool,
}

impl EdgeList {
    /// Build the graph with `build`'s loop and duplicate handling.
    ///
    /// # Errors
    ///
    /// [`GraphError`](crate::GraphError) from the build (an id past the vertex count).
    pub fn build(&self, build: BuildOptions) -> Result<Graph, crate::GraphError> {
        let options = BuildOptions {
            symmetrize: self.symmetric,
            ..build
        };
        build_graph(self.vertex_count, &self.edges, options)
    }
}

/// What a format loader returns.
#[derive(Debug)]
enum Loaded {
    Edges(EdgeList),
    Graph(Graph),
}

/// Load a graph from any byte stream; `name` stands for the file in error
/// messages and its extension helps detect the format.
///
/// # Errors
///
/// As [`load_graph`].
pub fn load_reader(
    name: &Path,
    reader: impl Read + Send,
    options: LoadOptions<'_>,
) -> Result<Graph, LoadError> {
    let input = input::open_reader(name, reader, None, options.max_decompressed_bytes)?;
    ParsedGraph::parse(name, input, &options)?.build()
}

fn load_input(input: Input<'_>, options: &LoadOptions<'_>) -> Result<(Format, Loaded), LoadError> {
    let Input {
        path,
        reader,
        consumed,
        file_len,
        gzip,
    } = input;
    let mut peek = BufReader::with_capacity(1 << 16, reader);
    let head = match peek.fill_buf() {
        Ok(head) => head.to_vec(),
        Err(e) => {
            let input = Input {
                path,
                reader: Box::new(std::io::empty()),
                consumed,
                file_len,
                gzip,
            };
            return Err(input.read_error(&e));
        }
    };
    if head.is_empty() {
        return Err(LoadError::new(path, None, LoadErrorKind::Empty));
    }
    let format = options.format.unwrap_or_else(|| detect(path, &head));
    let input = Input {
        path,
        reader: Box::new(peek),
        consumed,
        file_len,
        gzip,
    };
    let loaded = match format {
        Format::MatrixMarket => matrix_market::load(input, options).map(Loaded::Edges),
        Format::EdgeList => snap::load(input, options).map(Loaded::Edges),
        Format::Dimacs => dimacs::load(input, options).map(Loaded::Edges),
        Format::Metis => metis::load(input, options).map(Loaded::Edges),
        Format::Binary => binary::load(input, options).map(Loaded::Graph),
    }?;
    Ok((format, loaded))
}

/// The format of a file from its first bytes, then its name: the binary
/// magic, a Matrix Market banner, or DIMACS `c` / `p sp` lines decide
/// first; then the extension (`.mtx`/`.mm`, `.gr`, `.graph`/`.metis`,
/// `.vyre`, each optionally `.gz`); anything else is an edge list.
#[must_use]
pub fn detect(path: &Path, head: &[u8]) -> Format {
    if head.starts_with(MAGIC) {
        return Format::Binary;
    }
    if head.starts_with(b"%%") {
        return Format::MatrixMarket;
    }
    if looks_like_dimacs(head) {
        return Format::Dimacs;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    match extension {
        "mtx" | "mm" => Format::MatrixMarket,
        "gr" => Format::Dimacs,
        "graph" | "metis" => Format::Metis,
        "vyre" => Format::Binary,
        _ => Format::EdgeList,
    }
}

/// Whether the first line that is not a `c` comment is `p sp ...`, after
/// at least one such comment or directly (no other format starts so).
fn looks_like_dimacs(head: &[u8]) -> bool {
    for line in head.split(|&b| b == b'\n') {
        let mut rest = line;
        match text::next_token(&mut rest) {
            Some(b"c") | None => continue,
            Some(b"p") => return text::next_token(&mut rest) == Some(b"sp"),
            _ => return false,
        }
    }
    false
}

/// Check the vertex count against the edges.
fn finish(
    path: &Path,
    vertices: u64,
    edges: Vec<(u32, u32)>,
    symmetric: bool,
    options: &LoadOptions<'_>,
) -> Result<EdgeList, LoadError> {
    check_vertices(path, vertices, edges.len() as u64, options)?;
    Ok(EdgeList {
        // Callers pass vertex counts of at most u32::MAX.
        vertex_count: u32::try_from(vertices).unwrap_or(u32::MAX),
        edges,
        symmetric,
    })
}

/// Refuse a vertex count far beyond what `edges` edges can touch.
fn check_vertices(
    path: &Path,
    vertices: u64,
    edges: u64,
    options: &LoadOptions<'_>,
) -> Result<(), LoadError> {
    let touched = edges.saturating_mul(2);
    if vertices > touched.saturating_add(options.isolated_vertex_allowance) {
        return Err(LoadError::new(
            path,
            None,
            LoadErrorKind::TooManyVertices {
                vertices,
                edges,
                allowance: options.isolated_vertex_allowance,
            },
        ));
    }
    Ok(())
}

#[cfg(test)]
mod limit_tests;
#[cfg(test)]
mod road_format_tests;
#[cfg(test)]
mod tests;
