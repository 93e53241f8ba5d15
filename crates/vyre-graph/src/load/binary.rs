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

use super::LoadOptions;
use super::error::{LoadError, LoadErrorKind, Location};
use super::input::{Input, fill};
use crate::build::transpose;
use crate::{Csr, Graph};

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

    /// `count` little-endian words of `W` bytes, read in bounded steps so
    /// that memory grows only with bytes actually present.
    fn words<T, const W: usize>(
        &mut self,
        count: u64,
        decode: fn([u8; W]) -> T,
    ) -> Result<Vec<T>, LoadError> {
        let mut out = Vec::with_capacity(count.min((STEP_BYTES / W) as u64) as usize);
        let mut buf = Vec::with_capacity(STEP_BYTES);
        let mut left = count;
        while left > 0 {
            let take = left.min((STEP_BYTES / W) as u64) as usize;
            self.bytes(take * W, &mut buf)?;
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

/// Load a binary CSR.
pub(crate) fn load(mut input: Input<'_>, _options: &LoadOptions<'_>) -> Result<Graph, LoadError> {
    let file_len = if input.gzip { None } else { input.file_len };
    let mut reader = Reader {
        input: &mut input,
        crc: crc32fast::Hasher::new(),
        position: 0,
        expected_len: HEADER_BYTES,
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
    let offsets = reader.words(vertices + 1, u64::from_le_bytes)?;
    let targets = reader.words(edges, u32::from_le_bytes)?;
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
    let path = reader.input.path;
    let csr = Csr::from_parts(offsets, targets).map_err(|e| {
        LoadError::new(
            path,
            None,
            LoadErrorKind::BinaryCorrupt {
                reason: e.to_string(),
            },
        )
    })?;
    if flags & DIRECTED == 0 {
        return Ok(Graph::symmetric(csr));
    }
    let reverse = transpose(&csr);
    Graph::directed(csr, reverse).map_err(|e| LoadError::new(path, None, LoadErrorKind::Graph(e)))
}

fn reader_path<'p>(reader: &Reader<'_, 'p>) -> &'p Path {
    reader.input.path
}
