//! Typed errors of the file loaders.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::memory::human_bytes;
use crate::{CsrDefect, GraphError};

/// Where in a file an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line of the (decompressed) text.
    Line(u64),
    /// A 0-based byte offset: of the file for gzip and binary errors.
    Byte(u64),
}

/// Which field of a line is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Matrix Market row index (the edge's source).
    Row,
    /// Matrix Market column index (the edge's target).
    Column,
    /// Matrix Market entry value.
    Value,
    /// Edge-list source id.
    Source,
    /// Edge-list target id.
    Target,
    /// DIMACS arc tail (the arc's source).
    ArcTail,
    /// DIMACS arc head (the arc's target).
    ArcHead,
    /// DIMACS arc weight.
    ArcWeight,
    /// METIS neighbour id.
    Neighbor,
    /// METIS vertex size or weight.
    VertexWeight,
    /// METIS edge weight.
    EdgeWeight,
}

impl Field {
    /// Which format's one-based ids the field holds, and the header that
    /// declares their range.
    fn one_based(self) -> (&'static str, &'static str) {
        match self {
            Self::ArcTail | Self::ArcHead | Self::ArcWeight => {
                ("DIMACS vertex ids", "the problem line `p sp n m`")
            }
            Self::Neighbor | Self::VertexWeight | Self::EdgeWeight => {
                ("METIS vertex ids", "the header line")
            }
            _ => ("Matrix Market indices", "the size line"),
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Row => "row index",
            Self::Column => "column index",
            Self::Value => "value",
            Self::Source => "source id",
            Self::Target => "target id",
            Self::ArcTail => "arc tail",
            Self::ArcHead => "arc head",
            Self::ArcWeight => "arc weight",
            Self::Neighbor => "neighbour id",
            Self::VertexWeight => "vertex weight",
            Self::EdgeWeight => "edge weight",
        })
    }
}

/// What is wrong with a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldProblem {
    /// The line ends before the field.
    Missing,
    /// The field is not a number of the expected kind.
    NotNumeric,
    /// The field is a negative number where ids are non-negative.
    Negative,
    /// The id does not fit a `u32` vertex id.
    TooLarge,
}

/// What went wrong, without the where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadErrorKind {
    /// No file at the path.
    NotFound,
    /// The path is a directory.
    IsDirectory,
    /// The path is not a regular file (a device, socket or pipe).
    NotAFile,
    /// The file has no bytes (or none after decompression).
    Empty,
    /// Reading failed.
    Io {
        /// The system's message.
        message: String,
    },
    /// The gzip stream is corrupt or cut short.
    Gzip {
        /// The decoder's message.
        message: String,
    },
    /// A line is longer than the loader accepts.
    LineTooLong {
        /// The longest line accepted, in bytes.
        limit: usize,
    },
    /// The first line is not a Matrix Market banner.
    BadBanner {
        /// The start of the line found.
        found: String,
    },
    /// A Matrix Market variant the loader does not read.
    UnsupportedMatrixMarket {
        /// The unsupported word.
        found: String,
    },
    /// The Matrix Market size line is missing or malformed.
    BadSizeLine {
        /// The line found (empty at end of file).
        found: String,
    },
    /// The declared dimensions exceed `u32` vertex ids.
    SizeTooLarge {
        /// Declared rows.
        rows: u64,
        /// Declared columns.
        columns: u64,
    },
    /// A field of a data line is missing or malformed.
    BadField {
        /// Which field.
        field: Field,
        /// What is wrong.
        problem: FieldProblem,
        /// The field's text (shortened).
        found: String,
    },
    /// A 1-based index is 0.
    ZeroIndex {
        /// Which field.
        field: Field,
    },
    /// An index exceeds the declared dimension.
    IndexPastSize {
        /// Which field.
        field: Field,
        /// The index.
        index: u64,
        /// The declared dimension.
        size: u64,
    },
    /// The file ends before the entries its header declares.
    Truncated {
        /// Entries declared.
        declared: u64,
        /// Entries found.
        found: u64,
    },
    /// The file has more entries than its header declares.
    TooManyEntries {
        /// Entries declared.
        declared: u64,
    },
    /// A header declares more vertices than `u32` ids can name.
    VertexCountTooLarge {
        /// Vertices declared.
        vertices: u64,
    },
    /// A DIMACS file lacks its problem line `p sp n m` before the arcs.
    BadProblemLine {
        /// The line found (empty at end of file).
        found: String,
    },
    /// A DIMACS line after the problem line is not an arc or a comment.
    UnexpectedDimacsLine {
        /// The line found.
        found: String,
    },
    /// A DIMACS file ends before the arcs its problem line declares.
    MissingArcs {
        /// Arcs declared.
        declared: u64,
        /// Arcs found.
        found: u64,
    },
    /// A DIMACS file has more arcs than its problem line declares.
    ExtraArc {
        /// Arcs declared.
        declared: u64,
    },
    /// The METIS header `n m [fmt [ncon]]` is missing or malformed.
    BadMetisHeader {
        /// The line found (empty at end of file).
        found: String,
    },
    /// A METIS file ends before one line per declared vertex.
    MissingVertexLines {
        /// Vertices declared.
        declared: u64,
        /// Vertex lines found.
        found: u64,
    },
    /// A METIS file has a non-empty line past its declared vertices.
    ExtraVertexLine {
        /// Vertices declared.
        declared: u64,
    },
    /// A METIS file's neighbour entries disagree with its edge count.
    MetisEdgeCount {
        /// Undirected edges declared.
        declared: u64,
        /// Neighbour entries found (each edge is listed twice).
        entries: u64,
    },
    /// The vertex count is far beyond what the edges touch.
    TooManyVertices {
        /// Vertices the file implies.
        vertices: u64,
        /// Edges read.
        edges: u64,
        /// The allowance of vertices no edge touches.
        allowance: u64,
    },
    /// A binary file does not start with the vyre CSR magic.
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// A binary file of an unsupported version or flags.
    BadVersion {
        /// The version found.
        version: u32,
        /// The flags found.
        flags: u32,
    },
    /// A binary file's checksum does not match its contents.
    BadChecksum {
        /// The stored CRC-32.
        stored: u32,
        /// The CRC-32 of the contents.
        computed: u32,
    },
    /// A binary file's length disagrees with its header.
    BinaryLength {
        /// Bytes the header implies.
        expected: u64,
        /// Bytes present (at least this many, for streams).
        found: u64,
    },
    /// A binary file whose checksum matches but whose CSR is invalid.
    BinaryCorrupt {
        /// What is invalid.
        reason: String,
    },
    /// The edges do not form a graph.
    Graph(GraphError),
    /// A gzip stream decompresses to more bytes than the limit
    /// ([`LoadOptions::max_decompressed_bytes`](super::LoadOptions::max_decompressed_bytes)).
    DecompressedTooLarge {
        /// The limit, in decompressed bytes.
        limit: u64,
    },
    /// A binary file whose checksum matches but whose offsets or targets do
    /// not form a CSR.
    BinaryCsr {
        /// What is wrong.
        defect: CsrDefect,
    },
}

/// A loader error: the file, where in it, and what is wrong. Its message
/// ends with `Fix: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    path: PathBuf,
    location: Option<Location>,
    kind: LoadErrorKind,
}

impl LoadError {
    pub(crate) fn new(path: &Path, location: Option<Location>, kind: LoadErrorKind) -> Self {
        Self {
            path: path.to_path_buf(),
            location,
            kind,
        }
    }

    /// The file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where in the file, when the error is about one place.
    #[must_use]
    pub fn location(&self) -> Option<Location> {
        self.location
    }

    /// What is wrong.
    #[must_use]
    pub fn kind(&self) -> &LoadErrorKind {
        &self.kind
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        match self.location {
            Some(Location::Line(line)) => write!(f, ":{line}")?,
            Some(Location::Byte(byte)) => write!(f, " at byte {byte}")?,
            None => {}
        }
        write!(f, ": ")?;
        describe(&self.kind, f)
    }
}

fn describe(kind: &LoadErrorKind, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    use LoadErrorKind as K;
    match kind {
        K::NotFound => write!(
            f,
            "no such file. Fix: check the path (relative paths start at the working directory)."
        ),
        K::IsDirectory => write!(
            f,
            "this is a directory, not a graph file. Fix: name a .mtx, .gr, .graph, edge-list or .vyre file inside it."
        ),
        K::NotAFile => write!(
            f,
            "not a regular file (a device, pipe or socket). Fix: save the graph to a regular file first."
        ),
        K::Empty => write!(
            f,
            "the file is empty. Fix: check that the file was written completely."
        ),
        K::Io { message } => write!(
            f,
            "read failed: {message}. Fix: check the file's permissions and the disk."
        ),
        K::Gzip { message } => write!(
            f,
            "the gzip stream is broken: {message}. Fix: re-download or re-compress the file (`gzip -t` tests it)."
        ),
        K::LineTooLong { limit } => write!(
            f,
            "a line is longer than {limit} bytes. Fix: give each edge its own line; this does not look like a text graph file."
        ),
        K::BadBanner { found } => write!(
            f,
            "expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`, found `{found}`. Fix: add the banner and the size line `rows columns entries` (a file listing one triangle is `pattern symmetric`), or rename the file without .mtx and load it as an edge list with --symmetrize (LoadOptions::symmetrize): without it a symmetric file's triangle loads as a directed graph, and edge-list ids are used as written (not minus 1)."
        ),
        K::UnsupportedMatrixMarket { found } => write!(
            f,
            "unsupported Matrix Market variant `{found}`. Fix: use `matrix coordinate` with field pattern, real, integer or complex and symmetry general, symmetric, skew-symmetric or hermitian."
        ),
        K::BadSizeLine { found } => write!(
            f,
            "expected the size line `rows columns entries`, found `{found}`. Fix: put three non-negative integers on the first line after the comments."
        ),
        K::SizeTooLarge { rows, columns } => write!(
            f,
            "the matrix is {rows} x {columns}, beyond u32 vertex ids (at most {}). Fix: split the graph or renumber its vertices.",
            u32::MAX
        ),
        K::BadField {
            field,
            problem,
            found,
        } => {
            let what = match problem {
                FieldProblem::Missing => format!("the {field} is missing"),
                FieldProblem::NotNumeric => format!("the {field} `{found}` is not a number"),
                FieldProblem::Negative => format!("the {field} `{found}` is negative"),
                FieldProblem::TooLarge => {
                    format!("the {field} `{found}` does not fit a u32 vertex id")
                }
            };
            let fix = match (problem, field) {
                (FieldProblem::Missing, Field::ArcTail | Field::ArcHead | Field::ArcWeight) => {
                    "write every arc as `a <tail> <head> <weight>`"
                }
                (FieldProblem::Missing, _) if field.one_based().0.starts_with("METIS") => {
                    "give every neighbour its edge weight, as the header's fmt declares, or correct the fmt"
                }
                (FieldProblem::Missing, _) => {
                    "give every data line its two vertex ids (and a value unless the field is pattern)"
                }
                (FieldProblem::TooLarge, _) => "renumber the vertices below 4294967295",
                _ => "use non-negative decimal integers for vertex ids and weights",
            };
            write!(f, "{what}. Fix: {fix}.")
        }
        K::ZeroIndex { field } => {
            let (ids, _) = field.one_based();
            write!(
                f,
                "the {field} is 0, but {ids} start at 1. Fix: add 1 to every id (the file looks 0-based)."
            )
        }
        K::IndexPastSize { field, index, size } => {
            let (_, header) = field.one_based();
            write!(
                f,
                "the {field} {index} exceeds the declared size {size}. Fix: correct {header} or the entry."
            )
        }
        K::Truncated { declared, found } => ends_early(
            f,
            (*found, *declared),
            "entries its size line",
            "the entry count",
        ),
        K::TooManyEntries { declared } => write!(
            f,
            "entry {} is past the {declared} entries the size line declares. Fix: correct the entry count on the size line.",
            declared + 1
        ),
        K::VertexCountTooLarge { vertices } => write!(
            f,
            "the header declares {vertices} vertices, beyond u32 vertex ids (at most {}). Fix: split the graph or renumber its vertices.",
            u32::MAX
        ),
        K::BadProblemLine { found } => write!(
            f,
            "expected the DIMACS problem line `p sp <vertices> <arcs>` before the arcs, found {}. Fix: start a DIMACS shortest-path file with `c` comments and one `p sp n m` line, or rename the file without .gr if it is not one.",
            quoted_or_end(found)
        ),
        K::UnexpectedDimacsLine { found } => write!(
            f,
            "expected an arc line `a <tail> <head> <weight>`, found `{found}`. Fix: after its problem line a DIMACS shortest-path file holds only `a` arcs and `c` comments."
        ),
        K::MissingArcs { declared, found } => ends_early(
            f,
            (*found, *declared),
            "arcs its problem line",
            "the arc count on the `p sp` line",
        ),
        K::ExtraArc { declared } => write!(
            f,
            "arc {} is past the {declared} arcs the problem line declares. Fix: correct the arc count on the `p sp` line.",
            declared + 1
        ),
        K::BadMetisHeader { found } => write!(
            f,
            "expected the METIS header `<vertices> <edges> [fmt [ncon]]` (fmt 0, 1, 10, 11, 100, 101, 110 or 111), found {}. Fix: put the vertex and edge counts on the first line after the `%` comments, or rename the file without .graph if it is not METIS.",
            quoted_or_end(found)
        ),
        K::MissingVertexLines { declared, found } => ends_early(
            f,
            (*found, *declared),
            "vertex lines its header",
            "the vertex count in the header",
        ),
        K::ExtraVertexLine { declared } => write!(
            f,
            "this line is past the {declared} vertices the header declares and is not empty. Fix: correct the vertex count in the header (line i after it lists the neighbours of vertex i)."
        ),
        K::MetisEdgeCount { declared, entries } => write!(
            f,
            "the header declares {declared} edges, which METIS lists twice ({} neighbour entries), but the vertex lines hold {entries}. Fix: correct the edge count in the header; every undirected edge appears in the lines of both its ends.",
            declared.saturating_mul(2)
        ),
        K::TooManyVertices {
            vertices,
            edges,
            allowance,
        } => write!(
            f,
            "the file implies {vertices} vertices but its {edges} edges touch at most {}; allocating for the rest would waste memory. Fix: correct the size line or renumber ids densely, or raise LoadOptions::isolated_vertex_allowance (now {allowance}).",
            edges.saturating_mul(2)
        ),
        K::BadMagic { found } => write!(
            f,
            "not a vyre binary CSR (starts with {found:02x?}). Fix: load text formats by their extension (.mtx, .gr, .graph, .txt, .el), or re-save the graph as .vyre with vyre_graph::load::save_binary."
        ),
        K::BadVersion { version, flags } => write!(
            f,
            "binary CSR version {version} with flags {flags:#x} is not supported (this build reads version {}). Fix: re-save the graph with this version of vyre.",
            super::binary::VERSION
        ),
        K::BadChecksum { stored, computed } => write!(
            f,
            "checksum mismatch (stored {stored:#010x}, contents {computed:#010x}): the file is corrupt. Fix: re-save or re-copy the file."
        ),
        K::BinaryLength { expected, found } => write!(
            f,
            "the header implies {expected} bytes but the file has {found}. Fix: the file is truncated or padded: re-save or re-copy it."
        ),
        K::BinaryCorrupt { reason } => write!(
            f,
            "the stored CSR is invalid: {reason}. Fix: re-save the graph with vyre_graph::load::save_binary."
        ),
        K::Graph(err) => write!(f, "{err}"),
        K::DecompressedTooLarge { limit } => write!(
            f,
            "the gzip stream decompresses to more than {}, the limit on decompressed input. Fix: if this is a real graph, raise the limit with --max-decompressed-bytes (LoadOptions::max_decompressed_bytes); a small file that expands this far is a zip bomb.",
            human_bytes(*limit)
        ),
        K::BinaryCsr { defect } => write!(
            f,
            "the stored CSR is invalid although its checksum matches: {defect}. Fix: the file was written by other software or a broken build: re-save the graph with vyre_graph::load::save_binary."
        ),
    }
}

/// A file that ends before what its header declares: `(found, declared)`
/// of `what` (`"arcs its problem line"`), and the `count` to correct.
fn ends_early(
    f: &mut fmt::Formatter<'_>,
    (found, declared): (u64, u64),
    what: &str,
    count: &str,
) -> fmt::Result {
    write!(
        f,
        "the file ends after {found} of the {declared} {what} declares. Fix: the file is truncated: download it again, or correct {count}."
    )
}

/// `` `line` `` or, for an empty line, where the file ended.
fn quoted_or_end(found: &str) -> String {
    if found.is_empty() {
        "the end of the file".into()
    } else {
        format!("`{found}`")
    }
}

impl std::error::Error for LoadError {}
