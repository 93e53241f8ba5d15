//! Writing graphs as Matrix Market or edge-list text (the binary CSR
//! writer is [`load::save_binary`](crate::load::save_binary)).
//!
//! Symmetric graphs are written as `symmetric` Matrix Market files listing
//! the lower triangle (row >= column), directed ones as `general`. Rows are
//! formatted in parallel and written in order; a path ending in `.gz` is
//! gzip-compressed.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use rayon::prelude::*;

use crate::Graph;
use crate::load::{LoadError, LoadErrorKind};

/// Edges formatted per parallel task.
const TASK_EDGES: u64 = 1 << 18;

fn push_decimal(buf: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Which edges a text file lists, and how ids are shifted.
#[derive(Clone, Copy)]
struct Listing {
    lower_triangle_only: bool,
    base: u64,
}

impl Listing {
    fn keeps(self, u: u32, v: u32) -> bool {
        !self.lower_triangle_only || v <= u
    }
}

/// Format every listed edge, one `source target` line each, in parallel
/// tasks whose output is written in vertex order.
fn write_edges(graph: &Graph, listing: Listing, out: &mut dyn Write) -> io::Result<()> {
    let csr = graph.out_edges();
    let offsets = csr.offsets();
    let n = csr.vertex_count() as usize;
    let mut ranges = Vec::new();
    let mut start = 0usize;
    while start < n {
        let goal = offsets[start] + TASK_EDGES;
        let end = offsets[..n]
            .partition_point(|&o| o < goal)
            .clamp(start + 1, n);
        ranges.push(start..end);
        start = end;
    }
    let batch = 4 * rayon::current_num_threads();
    for group in ranges.chunks(batch) {
        let texts: Vec<Vec<u8>> = group
            .par_iter()
            .map(|range| {
                let edges = offsets[range.end] - offsets[range.start];
                let mut buf = Vec::with_capacity(edges as usize * 16);
                for u in range.clone() {
                    for &v in csr.neighbors(u as u32) {
                        if listing.keeps(u as u32, v) {
                            push_decimal(&mut buf, u as u64 + listing.base);
                            buf.push(b' ');
                            push_decimal(&mut buf, u64::from(v) + listing.base);
                            buf.push(b'\n');
                        }
                    }
                }
                buf
            })
            .collect();
        for text in texts {
            out.write_all(&text)?;
        }
    }
    Ok(())
}

/// Write `graph` as a Matrix Market `pattern` file.
///
/// # Errors
///
/// What the writer returns.
pub fn write_matrix_market(graph: &Graph, out: &mut dyn Write) -> io::Result<()> {
    let csr = graph.out_edges();
    let symmetric = graph.is_symmetric();
    let entries: u64 = if symmetric {
        (0..csr.vertex_count())
            .into_par_iter()
            .map(|u| csr.neighbors(u).partition_point(|&v| v <= u) as u64)
            .sum()
    } else {
        csr.edge_count()
    };
    let n = csr.vertex_count();
    writeln!(
        out,
        "%%MatrixMarket matrix coordinate pattern {}\n% written by vyre-graph\n{n} {n} {entries}",
        if symmetric { "symmetric" } else { "general" }
    )?;
    let listing = Listing {
        lower_triangle_only: symmetric,
        base: 1,
    };
    write_edges(graph, listing, out)
}

/// Write every stored edge as a 0-based `source target` line, after a `#`
/// header (a SNAP-style edge list; undirected graphs list both directions).
///
/// # Errors
///
/// What the writer returns.
pub fn write_edge_list(graph: &Graph, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "# vyre-graph edge list\n# Nodes: {} Edges: {}",
        graph.vertex_count(),
        graph.edge_count()
    )?;
    let listing = Listing {
        lower_triangle_only: false,
        base: 0,
    };
    write_edges(graph, listing, out)
}

/// Write a text file through `write`, gzip-compressed when the path ends in
/// `.gz`.
fn save_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), LoadError> {
    let gzip = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    write_file(path, gzip, write)
}

/// Create `path` and write it through `write` (buffered; gzip-compressed
/// when `gzip`), turning I/O failures into [`LoadError`]s that name the file.
pub(crate) fn write_file(
    path: &Path,
    gzip: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), LoadError> {
    let io_error = |e: io::Error| {
        LoadError::new(
            path,
            None,
            LoadErrorKind::Io {
                message: e.to_string(),
            },
        )
    };
    let file = BufWriter::with_capacity(1 << 20, File::create(path).map_err(io_error)?);
    if gzip {
        let mut encoder = GzEncoder::new(file, Compression::fast());
        write(&mut encoder).map_err(io_error)?;
        encoder
            .finish()
            .map_err(io_error)?
            .flush()
            .map_err(io_error)
    } else {
        let mut file = file;
        write(&mut file).map_err(io_error)?;
        file.flush().map_err(io_error)
    }
}

/// [`write_matrix_market`] to a file (gzip-compressed when the path ends
/// in `.gz`).
///
/// # Errors
///
/// [`LoadErrorKind::Io`] naming the path.
pub fn save_matrix_market(graph: &Graph, path: impl AsRef<Path>) -> Result<(), LoadError> {
    save_with(path.as_ref(), |out| write_matrix_market(graph, out))
}

/// [`write_edge_list`] to a file (gzip-compressed when the path ends in
/// `.gz`).
///
/// # Errors
///
/// [`LoadErrorKind::Io`] naming the path.
pub fn save_edge_list(graph: &Graph, path: impl AsRef<Path>) -> Result<(), LoadError> {
    save_with(path.as_ref(), |out| write_edge_list(graph, out))
}
