//! vyre's binary CSR: a fast-reloading snapshot of a built graph.
//!
//! Layout, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `VYRE-CSR` |
//! | 4 | version (1) |
//! | 4 | flags: bit 0 = directed (the reverse CSR is rebuilt on load) |
//! | 8 | vertex count `n` |
//! | 8 | edge count `m` |
//! | 8 (n + 1) | offsets (u64) |
//! | 4 m | targets (u32) |
//! | 4 | CRC-32 of every byte before it |

use std::io::{self, Write};
use std::path::Path;

use super::error::{LoadError, LoadErrorKind, Location};
use super::input::{Input, fill};
use super::{LoadOptions, check_vertices};
use crate::build::{BuildFootprint, BuildOptions, transpose};
use crate::memory::{self, MemoryLimit, try_reserve, try_with_capacity};
use crate::{Csr, CsrDefect, Graph, GraphError};

/// First bytes of every binary CSR file.
pub const MAGIC: &[u8; 8] = b"VYRE-CSR";
/// The version this build writes and reads.
pub const VERSION: u32 = 1;
const DIRECTED: u32 = 1;
const HEADER_BYTES: u64 = 32;
/// Bytes read (and preallocated, at most) per step of a stream.
const STEP_BYTES: usize = 4 << 20;

/// Write `graph` to `path` in the binary CSR format.
///
/// # Errors
///
/// [`LoadErrorKind::Io`] when the file cannot be written.
pub fn save_binary(graph: &Graph, path: impl AsRef<Path>) -> Result<(), LoadError> {
    // Never compressed: the format exists for fast reloads.
    crate::save::write_file(path.as_ref(), false, |mut out| {
        write_binary(graph, &mut out)
    })
}

/// Write `graph` in the binary CSR format to any writer.
///
/// # Errors
///
/// What the writer returns.
pub fn write_binary(graph: &Graph, out: &mut impl Write) -> io::Result<()> {
    let csr = graph.out_edges();
    let mut crc = crc32fast::Hasher::new();
    let mut put = |bytes: &[u8], out: &mut dyn Write| {
        crc.update(bytes);
        out.write_all(bytes)
    };
    let flags = if graph.is_symmetric() { 0 } else { DIRECTED };
    let mut header = Vec::with_capacity(HEADER_BYTES as usize);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&flags.to_le_bytes());
    header.extend_from_slice(&u64::from(csr.vertex_count()).to_le_bytes());
    header.extend_from_slice(&csr.edge_count().to_le_bytes());
    put(&header, out)?;
    let mut buf = Vec::with_capacity(STEP_BYTES);
    for chunk in csr.offsets().chunks(STEP_BYTES / 8) {
        buf.clear();
        buf.extend(chunk.iter().flat_map(|o| o.to_le_bytes()));
        put(&buf, out)?;
    }
    for chunk in csr.targets().chunks(STEP_BYTES / 4) {
        buf.clear();
        buf.extend(chunk.iter().flat_map(|t| t.to_le_bytes()));
        put(&buf, out)?;
    }
    out.write_all(&crc.finalize().to_le_bytes())
}

/// Reads the stream while keeping the checksum and the byte position.
struct Reader<'a, 'p> {
    input: &'a mut Input<'p>,
    crc: crc32fast::Hasher,
    position: u64,
    expected_len: u64,
    /// Bounds what the words read may hold.
    memory: Option<MemoryLimit>,
}

impl Reader<'_, '_> {
    fn error(&self, kind: LoadErrorKind) -> LoadError {
        LoadError::new(self.input.path, Some(Location::Byte(self.position)), kind)
    }

    /// Exactly `len` bytes, hashed; a short stream is a length error.
    fn bytes(&mut self, len: usize, buf: &mut Vec<u8>) -> Result<(), LoadError> {
        buf.clear();
        let ended =
            fill(&mut self.input.reader, buf, len).map_err(|e| self.input.read_error(&e))?;
        self.crc.update(buf);
        self.position += buf.len() as u64;
        if ended && buf.len() < len {
            return Err(self.error(LoadErrorKind::BinaryLength {
                expected: self.expected_len,
                found: self.position,
            }));
        }
        Ok(())
    }

    /// `count` little-endian words of `W` bytes, read in bounded steps.
    /// Memory grows with the bytes actually present unless `proven` (the
    /// file's size matches the header), when all of it is reserved at once.
    fn words<T, const W: usize>(
        &mut self,
        count: u64,
        proven: bool,
        decode: fn([u8; W]) -> T,
    ) -> Result<Vec<T>, LoadError> {
        let what = || format!("{count} words of {W} bytes");
        let upfront = if proven { count } else { 0 };
        let mut out = try_with_capacity(usize::try_from(upfront).unwrap_or(usize::MAX), what)
            .map_err(|e| self.error(LoadErrorKind::Graph(e)))?;
        let mut buf = Vec::with_capacity(STEP_BYTES);
        let mut left = count;
        while left > 0 {
            let take = left.min((STEP_BYTES / W) as u64) as usize;
            self.bytes(take * W, &mut buf)?;
            // What is held grows like the bytes read.
            let held = self.position.saturating_add(STEP_BYTES as u64);
            memory::check(self.memory.as_ref(), held, || {
                format!(
                    "holding the {} bytes of binary CSR read so far",
                    self.position
                )
            })
            .and_then(|()| try_reserve(&mut out, take, what))
            .map_err(|e| self.error(LoadErrorKind::Graph(e)))?;
            out.extend(
                buf.chunks_exact(W)
                    .map(|c| decode(c.try_into().unwrap_or([0; W]))),
            );
            left -= take as u64;
        }
        Ok(out)
    }
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().unwrap_or([0; 4]))
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))
}

/// The most bytes loading a graph of `vertices` and `edges` holds: its CSR,
/// the reverse one built from it when `directed`, and the read buffer.
fn load_bytes(vertices: u64, edges: u64, directed: bool) -> u64 {
    let csr = if directed {
        BuildFootprint {
            vertices,
            edges,
            options: BuildOptions::DIRECTED,
        }
        .peak_bytes()
    } else {
        vertices
            .saturating_add(1)
            .saturating_mul(8)
            .saturating_add(edges.saturating_mul(4))
    };
    csr.saturating_add(STEP_BYTES as u64)
}

/// Where in the file the part of the CSR a defect names lies.
fn defect_location(defect: &CsrDefect, vertices: u64) -> Option<Location> {
    let offset = |v: u64| HEADER_BYTES + 8 * v;
    let byte = match *defect {
        CsrDefect::FirstOffset { .. } => offset(0),
        CsrDefect::LastOffset { .. } => offset(vertices),
        CsrDefect::Decreasing { vertex, .. } => offset(vertex + 1),
        CsrDefect::TargetOutOfRange { index, .. } => offset(vertices + 1) + 4 * index,
        CsrDefect::NoOffsets | CsrDefect::TooManyVertices { .. } => return None,
    };
    Some(Location::Byte(byte))
}

/// Load a binary CSR.
pub(crate) fn load(mut input: Input<'_>, options: &LoadOptions<'_>) -> Result<Graph, LoadError> {
    let file_len = if input.gzip { None } else { input.file_len };
    let mut reader = Reader {
        input: &mut input,
        crc: crc32fast::Hasher::new(),
        position: 0,
        expected_len: HEADER_BYTES,
        memory: MemoryLimit::resolve(options.memory_limit),
    };
    let mut header = Vec::new();
    let short = fill(&mut reader.input.reader, &mut header, HEADER_BYTES as usize)
        .map_err(|e| reader.input.read_error(&e))?;
    reader.crc.update(&header);
    if !header.starts_with(MAGIC) {
        let found = header[..header.len().min(8)].to_vec();
        return Err(reader.error(LoadErrorKind::BadMagic { found }));
    }
    reader.position = header.len() as u64;
    if short {
        return Err(reader.error(LoadErrorKind::BinaryLength {
            expected: HEADER_BYTES,
            found: header.len() as u64,
        }));
    }
    let (version, flags) = (le_u32(&header[8..12]), le_u32(&header[12..16]));
    if version != VERSION || flags & !DIRECTED != 0 {
        return Err(LoadError::new(
            reader.input.path,
            Some(Location::Byte(8)),
            LoadErrorKind::BadVersion { version, flags },
        ));
    }
    let (vertices, edges) = (le_u64(&header[16..24]), le_u64(&header[24..32]));
    let expected = vertices
        .checked_add(1)
        .and_then(|v| v.checked_mul(8))
        .and_then(|b| edges.checked_mul(4).and_then(|e| b.checked_add(e)))
        .and_then(|b| b.checked_add(HEADER_BYTES + 4));
    let counts_error = |reason: String| {
        LoadError::new(
            reader_path(&reader),
            Some(Location::Byte(16)),
            LoadErrorKind::BinaryCorrupt { reason },
        )
    };
    let Some(expected) = expected.filter(|_| vertices <= u64::from(u32::MAX)) else {
        return Err(counts_error(format!(
            "the header's counts ({vertices} vertices, {edges} edges) are impossible"
        )));
    };
    reader.expected_len = expected;
    // A plain file's size proves the counts before anything is allocated.
    if let Some(len) = file_len
        && len != expected
    {
        return Err(LoadError::new(
            reader.input.path,
            None,
            LoadErrorKind::BinaryLength {
                expected,
                found: len,
            },
        ));
    }
    let path = reader.input.path;
    check_vertices(path, vertices, edges, options)?;
    let directed = flags & DIRECTED != 0;
    let memory = reader.memory;
    // Checked once the counts are proven: by the file's size here, by the
    // data itself before the reverse CSR is built. Until then a stream is
    // only held as far as it goes.
    let fits = || {
        memory::check(
            memory.as_ref(),
            load_bytes(vertices, edges, directed),
            || format!("loading a graph of {vertices} vertices and {edges} edges"),
        )
        .map_err(|e| LoadError::new(path, None, LoadErrorKind::Graph(e)))
    };
    let proven = file_len.is_some();
    if proven {
        fits()?;
    }
    let offsets = reader.words(vertices + 1, proven, u64::from_le_bytes)?;
    let targets = reader.words(edges, proven, u32::from_le_bytes)?;
    let computed = reader.crc.clone().finalize();
    let mut trailer = Vec::new();
    let ended = fill(&mut reader.input.reader, &mut trailer, 4 + 1)
        .map_err(|e| reader.input.read_error(&e))?;
    if trailer.len() != 4 || !ended {
        return Err(reader.error(LoadErrorKind::BinaryLength {
            expected,
            found: reader.position + trailer.len() as u64,
        }));
    }
    let stored = le_u32(&trailer);
    if stored != computed {
        return Err(reader.error(LoadErrorKind::BadChecksum { stored, computed }));
    }
    let csr = Csr::from_parts(offsets, targets).map_err(|e| match e {
        GraphError::MalformedCsr(defect) => LoadError::new(
            path,
            defect_location(&defect, vertices),
            LoadErrorKind::BinaryCsr { defect },
        ),
        other => LoadError::new(path, None, LoadErrorKind::Graph(other)),
    })?;
    if !directed {
        return Ok(Graph::symmetric(csr));
    }
    fits()?;
    let graph_error = |e| LoadError::new(path, None, LoadErrorKind::Graph(e));
    let reverse = transpose(&csr).map_err(graph_error)?;
    Graph::directed(csr, reverse).map_err(graph_error)
}

fn reader_path<'p>(reader: &Reader<'_, 'p>) -> &'p Path {
    reader.input.path
}

#[cfg(test)]
mod tests;
