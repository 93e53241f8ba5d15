//! Opening a graph file: checks on the path, gzip detection, byte counting
//! for progress, and reading text in line-aligned blocks.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use flate2::bufread::MultiGzDecoder;

use super::error::{LoadError, LoadErrorKind, Location};

/// Text is parsed in blocks of about this many bytes.
pub(crate) const BLOCK_BYTES: usize = 8 << 20;

/// Longest line accepted; a block must hold at least one whole line.
pub(crate) const MAX_LINE_BYTES: usize = BLOCK_BYTES;

/// A readable (decompressed) stream with what is known about its source.
pub(crate) struct Input<'p> {
    pub path: &'p Path,
    /// The decompressed bytes.
    pub reader: Box<dyn Read + Send + 'p>,
    /// Bytes of the underlying file consumed so far.
    pub consumed: Arc<AtomicU64>,
    /// Size of the underlying file, when known.
    pub file_len: Option<u64>,
    /// Whether the stream is gzip-compressed.
    pub gzip: bool,
}

impl Input<'_> {
    /// An error at the current position in the underlying file.
    pub fn read_error(&self, err: &io::Error) -> LoadError {
        let at = Some(Location::Byte(self.consumed.load(Relaxed)));
        LoadError::new(self.path, at, read_error_kind(err, self.gzip))
    }
}

/// What a failed read of a (possibly gzip) stream means.
pub(crate) fn read_error_kind(err: &io::Error, gzip: bool) -> LoadErrorKind {
    let limit = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<PastLimit>())
        .map(|past| past.0);
    match limit {
        Some(limit) => LoadErrorKind::DecompressedTooLarge { limit },
        None if gzip => LoadErrorKind::Gzip {
            message: err.to_string(),
        },
        None => LoadErrorKind::Io {
            message: err.to_string(),
        },
    }
}

/// A decompressed stream went past its limit (the limit).
#[derive(Debug)]
struct PastLimit(u64);

impl std::fmt::Display for PastLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} bytes decompressed", self.0)
    }
}

impl std::error::Error for PastLimit {}

/// Fails once more than `limit` bytes have come through, so that a small
/// compressed file cannot expand without end.
struct Limited<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self
            .left
            .checked_sub(n as u64)
            .ok_or_else(|| io::Error::other(PastLimit(self.limit)))?;
        Ok(n)
    }
}

struct Counting<R> {
    inner: R,
    consumed: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.fetch_add(n as u64, Relaxed);
        Ok(n)
    }
}

/// Open `path` after checking it is a non-empty regular file; gzip
/// content may expand to `max_decompressed` bytes.
pub(crate) fn open_path(path: &Path, max_decompressed: u64) -> Result<Input<'_>, LoadError> {
    let fail = |kind| LoadError::new(path, None, kind);
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => fail(LoadErrorKind::NotFound),
        _ => fail(LoadErrorKind::Io {
            message: e.to_string(),
        }),
    })?;
    if meta.is_dir() {
        return Err(fail(LoadErrorKind::IsDirectory));
    }
    if !meta.is_file() {
        return Err(fail(LoadErrorKind::NotAFile));
    }
    if meta.len() == 0 {
        return Err(fail(LoadErrorKind::Empty));
    }
    let file = File::open(path).map_err(|e| {
        fail(LoadErrorKind::Io {
            message: e.to_string(),
        })
    })?;
    open_reader(path, file, Some(meta.len()), max_decompressed)
}

/// Wrap `reader`, decompressing (up to `max_decompressed` bytes) when it
/// starts with the gzip magic.
pub(crate) fn open_reader<'p>(
    path: &'p Path,
    reader: impl Read + Send + 'p,
    file_len: Option<u64>,
    max_decompressed: u64,
) -> Result<Input<'p>, LoadError> {
    let consumed = Arc::new(AtomicU64::new(0));
    let counting = Counting {
        inner: reader,
        consumed: Arc::clone(&consumed),
    };
    let mut buffered = BufReader::with_capacity(1 << 20, counting);
    let head = buffered.fill_buf().map_err(|e| {
        LoadError::new(
            path,
            Some(Location::Byte(0)),
            LoadErrorKind::Io {
                message: e.to_string(),
            },
        )
    })?;
    if head.is_empty() {
        return Err(LoadError::new(path, None, LoadErrorKind::Empty));
    }
    let gzip = head.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read + Send + 'p> = if gzip {
        Box::new(Limited {
            inner: MultiGzDecoder::new(buffered),
            left: max_decompressed,
            limit: max_decompressed,
        })
    } else {
        Box::new(buffered)
    };
    Ok(Input {
        path,
        reader,
        consumed,
        file_len,
        gzip,
    })
}

/// Bytes asked of the reader per call.
const READ_STEP: usize = 256 << 10;

/// Read until `buf` holds `want` bytes or the stream ends; returns whether
/// it ended.
pub(crate) fn fill(reader: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    while buf.len() < want {
        let start = buf.len();
        // Grow in steps: small inputs stay cheap, and only bytes that
        // arrive are ever zeroed.
        buf.resize(want.min(start + READ_STEP), 0);
        match reader.read(&mut buf[start..]) {
            Ok(0) => {
                buf.truncate(start);
                return Ok(true);
            }
            Ok(n) => buf.truncate(start + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(start),
            Err(e) => {
                buf.truncate(start);
                return Err(e);
            }
        }
    }
    Ok(false)
}

/// Splits a stream into blocks that end at line ends (the last one at the
/// end of the stream).
pub(crate) struct LineBlocks {
    carry: Vec<u8>,
    done: bool,
}

/// Why the next block could not be read.
pub(crate) enum BlockError {
    Read(io::Error),
    LineTooLong,
}

impl LineBlocks {
    pub fn new() -> Self {
        Self {
            carry: Vec::new(),
            done: false,
        }
    }

    /// The next block, or `None` at the end of the stream. `spare` is a
    /// used block whose memory may be reused.
    pub fn next_block(
        &mut self,
        reader: &mut dyn Read,
        mut spare: Vec<u8>,
    ) -> Result<Option<Vec<u8>>, BlockError> {
        if self.done {
            return Ok(None);
        }
        spare.clear();
        spare.extend_from_slice(&self.carry);
        let mut buf = spare;
        buf.reserve(BLOCK_BYTES.saturating_sub(buf.len()) + 64);
        let ended = fill(reader, &mut buf, BLOCK_BYTES).map_err(BlockError::Read)?;
        if ended {
            self.done = true;
            return Ok((!buf.is_empty()).then_some(buf));
        }
        match memchr::memrchr(b'\n', &buf) {
            Some(last) => {
                self.carry.clear();
                self.carry.extend_from_slice(&buf[last + 1..]);
                buf.truncate(last + 1);
                Ok(Some(buf))
            }
            None if buf.len() >= MAX_LINE_BYTES => Err(BlockError::LineTooLong),
            None => Ok(Some(buf)),
        }
    }
}
