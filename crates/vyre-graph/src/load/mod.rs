//! Loading graphs from the files users already have.
//!
//! - Matrix Market coordinate files ([`Format::MatrixMarket`]);
//! - SNAP-style edge lists ([`Format::EdgeList`]);
//! - vyre's binary CSR ([`Format::Binary`], written by [`save_binary`]);
//!
//! each optionally gzip-compressed (detected by content, decompressed as a
//! stream). Vertex ids keep the file's numbering: Matrix Market index − 1,
//! edge-list ids as written. Text is read in blocks on a background thread
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
mod error;
mod input;
mod matrix_market;
mod snap;
mod text;

pub use binary::{MAGIC, VERSION, save_binary, write_binary};
pub use error::{Field, FieldProblem, LoadError, LoadErrorKind, Location};

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

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
    /// vyre's binary CSR.
    Binary,
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
            .field("progress", &self.progress.map(|_| "Fn(Progress)"))
            .field("max_decompressed_bytes", &self.max_decompressed_bytes)
            .field("memory_limit", &self.memory_limit)
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
    let path = path.as_ref();
    let memory = MemoryLimit::resolve(options.memory_limit);
    let input = input::open_path(path, options.max_decompressed_bytes)?;
    load_input(input, &options)?.into_graph(path, &options, memory.as_ref())
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
    match load_input(input, &options)? {
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
enum Loaded {
    Edges(EdgeList),
    Graph(Graph),
}

impl Loaded {
    /// The graph, built (when `memory` allows the edges and the build) from
    /// parsed edges.
    fn into_graph(
        self,
        path: &Path,
        options: &LoadOptions<'_>,
        memory: Option<&MemoryLimit>,
    ) -> Result<Graph, LoadError> {
        let graph_error = |e| LoadError::new(path, None, LoadErrorKind::Graph(e));
        match self {
            Self::Graph(graph) => Ok(graph),
            Self::Edges(mut list) => {
                // Growth left spare capacity; the build needs the memory.
                list.edges.shrink_to_fit();
                let footprint = BuildFootprint {
                    vertices: u64::from(list.vertex_count),
                    edges: list.edges.len() as u64,
                    options: BuildOptions {
                        symmetrize: list.symmetric,
                        ..options.build
                    },
                };
                let held = std::mem::size_of_val(list.edges.as_slice()) as u64;
                memory::check(memory, held.saturating_add(footprint.peak_bytes()), || {
                    format!(
                        "building a graph of {} vertices from {} edges",
                        footprint.vertices, footprint.edges
                    )
                })
                .map_err(graph_error)?;
                let graph = list.build(options.build);
                drop(list);
                graph.map_err(graph_error)
            }
        }
    }
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
    let memory = MemoryLimit::resolve(options.memory_limit);
    let input = input::open_reader(name, reader, None, options.max_decompressed_bytes)?;
    load_input(input, &options)?.into_graph(name, &options, memory.as_ref())
}

fn load_input(input: Input<'_>, options: &LoadOptions<'_>) -> Result<Loaded, LoadError> {
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
    match format {
        Format::MatrixMarket => matrix_market::load(input, options).map(Loaded::Edges),
        Format::EdgeList => snap::load(input, options).map(Loaded::Edges),
        Format::Binary => binary::load(input, options).map(Loaded::Graph),
    }
}

/// The format of a file from its first bytes, then its name.
#[must_use]
pub fn detect(path: &Path, head: &[u8]) -> Format {
    if head.starts_with(MAGIC) {
        return Format::Binary;
    }
    if head.starts_with(b"%%") {
        return Format::MatrixMarket;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    if name.ends_with(".mtx") || name.ends_with(".mm") {
        Format::MatrixMarket
    } else if name.ends_with(".vcsr") {
        Format::Binary
    } else {
        Format::EdgeList
    }
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
mod tests;
