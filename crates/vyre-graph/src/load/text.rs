//! Line-oriented parsing shared by the text formats: tokens, ids, and the
//! parallel parse of line-aligned blocks read by a background thread.

use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::sync_channel;

use rayon::prelude::*;

use super::Progress;
use super::error::{Field, FieldProblem, LoadError, LoadErrorKind, Location};
use super::input::{BlockError, Input, LineBlocks, MAX_LINE_BYTES, read_error_kind};
use crate::memory::{self, MemoryLimit, try_reserve};

/// Parses the data lines of one text format.
pub(crate) trait LineParser: Sync {
    /// Whether a line whose first non-blank byte is `first` is a comment.
    fn is_comment(&self, first: u8) -> bool;
    /// The edge on a data line (not blank, not a comment).
    fn parse(&self, line: &[u8]) -> Result<(u32, u32), LoadErrorKind>;
    /// The edge for a line that is exactly two unsigned integers, when
    /// they are valid and nothing else is required; `None` sends the line
    /// to [`LineParser::parse`], which reports what is wrong.
    fn accept(&self, first: u64, second: u64) -> Option<(u32, u32)>;
}

/// Digits at `pos` (at most 19, so no overflow): the value and the end.
#[inline]
fn digits_at(bytes: &[u8], mut pos: usize) -> Option<(u64, usize)> {
    let start = pos;
    let mut value = 0u64;
    while pos < bytes.len() && bytes[pos].is_ascii_digit() && pos - start < 19 {
        value = value * 10 + u64::from(bytes[pos] - b'0');
        pos += 1;
    }
    (pos > start).then_some((value, pos))
}

/// The common line `A B\n` (single separators of spaces or tabs, an
/// optional `\r`): both numbers and the position after the newline.
#[inline]
fn two_numbers(bytes: &[u8], pos: usize) -> Option<(u64, u64, usize)> {
    let (a, mut pos) = digits_at(bytes, pos)?;
    if !matches!(bytes.get(pos), Some(b' ' | b'\t')) {
        return None;
    }
    while matches!(bytes.get(pos), Some(b' ' | b'\t')) {
        pos += 1;
    }
    let (b, mut pos) = digits_at(bytes, pos)?;
    if bytes.get(pos) == Some(&b'\r') {
        pos += 1;
    }
    match bytes.get(pos) {
        Some(b'\n') => Some((a, b, pos + 1)),
        None => Some((a, b, pos)),
        _ => None,
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c')
}

/// The next whitespace-separated token of `rest`, advancing past it.
pub(crate) fn next_token<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let start = rest.iter().position(|&b| !is_blank(b))?;
    let tail = &rest[start..];
    let len = tail.iter().position(|&b| is_blank(b)).unwrap_or(tail.len());
    *rest = &tail[len..];
    Some(&tail[..len])
}

/// A field's text for an error message, shortened.
pub(crate) fn shown(token: &[u8]) -> String {
    let cut = &token[..token.len().min(40)];
    let mut s = String::from_utf8_lossy(cut).into_owned();
    if token.len() > cut.len() {
        s.push_str("...");
    }
    s
}

/// A non-negative decimal integer.
pub(crate) fn parse_unsigned(token: &[u8]) -> Result<u64, FieldProblem> {
    let digits = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_digit);
    if let Some(rest) = token.strip_prefix(b"-") {
        return Err(if digits(rest) {
            FieldProblem::Negative
        } else {
            FieldProblem::NotNumeric
        });
    }
    if !digits(token) {
        return Err(FieldProblem::NotNumeric);
    }
    let mut value = 0u64;
    for &d in token {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .ok_or(FieldProblem::TooLarge)?;
    }
    Ok(value)
}

/// The next token as a non-negative integer, or a field error.
#[inline]
pub(crate) fn unsigned_field(rest: &mut &[u8], field: Field) -> Result<u64, LoadErrorKind> {
    // Fast path: blanks, up to 19 digits (no overflow possible), then a
    // blank or the end of the line.
    let s = *rest;
    let mut i = 0;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let start = i;
    let mut value = 0u64;
    while i < s.len() && s[i].is_ascii_digit() && i - start < 19 {
        value = value * 10 + u64::from(s[i] - b'0');
        i += 1;
    }
    if i > start && (i == s.len() || is_blank(s[i])) {
        *rest = &s[i..];
        return Ok(value);
    }
    // Anything else: classify the whole token.
    *rest = &s[start..];
    let token = next_token(rest).ok_or(LoadErrorKind::BadField {
        field,
        problem: FieldProblem::Missing,
        found: String::new(),
    })?;
    parse_unsigned(token).map_err(|problem| LoadErrorKind::BadField {
        field,
        problem,
        found: shown(token),
    })
}

/// Parse every line of a line-aligned `chunk`, appending edges to `out`.
/// Returns the number of lines, or the 1-based line (within the chunk) of
/// the first bad one.
fn parse_chunk<P: LineParser>(
    parser: &P,
    chunk: &[u8],
    out: &mut Vec<(u32, u32)>,
) -> Result<u64, (u64, LoadErrorKind)> {
    let mut pos = 0usize;
    let mut line_no = 0u64;
    while pos < chunk.len() {
        line_no += 1;
        if let Some((a, b, next)) = two_numbers(chunk, pos)
            && let Some(edge) = parser.accept(a, b)
        {
            out.push(edge);
            pos = next;
            continue;
        }
        let end = memchr::memchr(b'\n', &chunk[pos..]).map_or(chunk.len(), |i| pos + i);
        let line = &chunk[pos..end];
        pos = end + 1;
        let Some(&first) = line.iter().find(|&&b| !is_blank(b)) else {
            continue;
        };
        if parser.is_comment(first) {
            continue;
        }
        out.push(parser.parse(line).map_err(|kind| (line_no, kind))?);
    }
    Ok(line_no)
}

/// The 1-based line within `chunk` of its `k`-th data line (`k >= 1`).
pub(crate) fn line_of_data_line<P: LineParser>(parser: &P, chunk: &[u8], k: u64) -> u64 {
    let mut seen = 0;
    for (i, line) in chunk.split(|&b| b == b'\n').enumerate() {
        if let Some(&first) = line.iter().find(|&&b| !is_blank(b))
            && !parser.is_comment(first)
        {
            seen += 1;
            if seen == k {
                return i as u64 + 1;
            }
        }
    }
    0
}

/// Errors at a line of the file at `path`.
pub(crate) fn at_line(path: &Path) -> impl Fn(u64, LoadErrorKind) -> LoadError + '_ {
    move |line, kind| LoadError::new(path, Some(Location::Line(line)), kind)
}

/// A line-aligned block cut at line ends into pieces for the cores.
pub(crate) fn split_pieces(block: &[u8]) -> Vec<&[u8]> {
    let target = (block.len() / (4 * rayon::current_num_threads())).max(64 << 10);
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < block.len() {
        let goal = (start + target).min(block.len());
        let end = memchr::memchr(b'\n', &block[goal..]).map_or(block.len(), |i| goal + i + 1);
        pieces.push(&block[start..end]);
        start = end;
    }
    pieces
}

/// The next 1-based id of a line, checked against `size` and returned
/// 0-based.
pub(crate) fn one_based_id(
    rest: &mut &[u8],
    field: Field,
    size: u64,
) -> Result<u32, LoadErrorKind> {
    let index = unsigned_field(rest, field)?;
    if index == 0 {
        return Err(LoadErrorKind::ZeroIndex { field });
    }
    if index > size {
        return Err(LoadErrorKind::IndexPastSize { field, index, size });
    }
    // size <= u32::MAX, so index - 1 < u32::MAX.
    Ok((index - 1) as u32)
}

/// What a format whose header declares its entry count reports when the
/// entries run short or over.
pub(crate) struct CountErrors {
    /// Entries declared, entries found: the file ended early.
    pub short: fn(u64, u64) -> LoadErrorKind,
    /// Entries declared: an entry past them.
    pub over: fn(u64) -> LoadErrorKind,
}

/// What [`load_declared`] read.
pub(crate) enum Declaration<P> {
    /// The header's line parser and every entry.
    Parsed(P, Vec<(u32, u32)>),
    /// The stream ended inside the header, after this many lines.
    NoHeader(u64),
}

/// Entries of a declared count, as parsed so far.
struct Declared<P> {
    parser: P,
    declared: u64,
    edges: Vec<(u32, u32)>,
    pool: Vec<Vec<(u32, u32)>>,
}

/// Parse a format whose header declares how many entries follow, one per
/// data line: `header` sees each line (with its 1-based number) until it
/// returns the line parser and the declared count; the rest is parsed in
/// parallel blocks and counted against the declaration. `bytes_per_entry`
/// bounds the preallocation by the file's size.
pub(crate) fn load_declared<P: LineParser>(
    input: Input<'_>,
    options: &super::LoadOptions<'_>,
    bytes_per_entry: u64,
    mut header: impl FnMut(&[u8], u64) -> Result<Option<(P, u64)>, LoadError>,
    errors: &CountErrors,
) -> Result<Declaration<P>, LoadError> {
    let path = input.path;
    let at = at_line(path);
    let memory = MemoryLimit::resolve(options.memory_limit);
    let cap_hint = input.file_len.unwrap_or(0) / bytes_per_entry + 1;
    let start = |line: &[u8], line_no: u64| {
        let Some((parser, declared)) = header(line, line_no)? else {
            return Ok(None);
        };
        // Preallocate what the file can hold, not what it claims.
        let room = declared.min(cap_hint).min(1 << 32) as usize;
        let mut edges = Vec::new();
        try_reserve(&mut edges, room, || "the declared entries".into())
            .map_err(|e| at(line_no, LoadErrorKind::Graph(e)))?;
        Ok(Some(Declared {
            parser,
            declared,
            edges,
            pool: Vec::new(),
        }))
    };
    let body = |d: &mut Declared<P>, block: &[u8], line_base: u64| {
        let before = d.edges.len() as u64;
        let lines = parse_block(&d.parser, block, line_base, &mut d.edges, &mut d.pool)
            .map_err(|(l, k)| at(l, k))?;
        if d.edges.len() as u64 > d.declared {
            let extra = line_of_data_line(&d.parser, block, d.declared - before + 1);
            return Err(at(line_base + extra, (errors.over)(d.declared)));
        }
        check_held(path, line_base + lines, &d.edges, memory.as_ref())?;
        Ok(lines)
    };
    let (parsed, lines) = header_then_blocks(input, options.progress, start, body)?;
    let Some(d) = parsed else {
        return Ok(Declaration::NoHeader(lines));
    };
    let found = d.edges.len() as u64;
    if found < d.declared {
        return Err(at(lines, (errors.short)(d.declared, found)));
    }
    Ok(Declaration::Parsed(d.parser, d.edges))
}

/// Hand `header` one line at a time (without its `\n`, with its 1-based
/// number) until it returns the state the body needs, then the rest of the
/// stream to `body` in line-aligned blocks, with the lines before each.
/// `body` returns the lines of its block. Returns the state (`None` when the
/// stream ended inside the header) and the lines read.
pub(crate) fn header_then_blocks<H>(
    input: Input<'_>,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
    mut header: impl FnMut(&[u8], u64) -> Result<Option<H>, LoadError>,
    mut body: impl FnMut(&mut H, &[u8], u64) -> Result<u64, LoadError>,
) -> Result<(Option<H>, u64), LoadError> {
    let mut state = None;
    let mut line_no = 0u64;
    for_each_block(input, progress, |block| {
        let mut rest = block;
        while state.is_none() && !rest.is_empty() {
            let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
            let line = &rest[..end];
            rest = &rest[(end + 1).min(rest.len())..];
            line_no += 1;
            state = header(line, line_no)?;
        }
        if let Some(state) = state.as_mut() {
            line_no += body(state, rest, line_no)?;
        }
        Ok(())
    })?;
    Ok((state, line_no))
}

/// Parse a line-aligned block in parallel, appending its edges in order.
/// `line_base` is the number of lines before the block. Returns the
/// block's line count, or the absolute line of the first bad line.
pub(crate) fn parse_block<P: LineParser>(
    parser: &P,
    block: &[u8],
    line_base: u64,
    edges: &mut Vec<(u32, u32)>,
    pool: &mut Vec<Vec<(u32, u32)>>,
) -> Result<u64, (u64, LoadErrorKind)> {
    let pieces = split_pieces(block);
    // Per-piece output buffers are kept between blocks (see `pool`).
    if pool.len() < pieces.len() {
        pool.resize_with(pieces.len(), Vec::new);
    }
    let parsed: Vec<_> = pieces
        .into_par_iter()
        .zip(pool.par_iter_mut())
        .map(|(piece, out)| {
            out.clear();
            parse_chunk(parser, piece, out)
        })
        .collect();
    let mut lines = 0u64;
    for (result, out) in parsed.into_iter().zip(pool.iter()) {
        match result {
            Ok(n) => {
                lines += n;
                try_reserve(edges, out.len(), || "the edges read so far".into())
                    .map_err(|e| (line_base + lines, LoadErrorKind::Graph(e)))?;
                edges.extend_from_slice(out);
            }
            Err((line, kind)) => return Err((line_base + lines + line, kind)),
        }
    }
    Ok(lines)
}

/// Refuse to hold more parsed edges than `memory` allows; `line` is how
/// far the reading has got.
pub(crate) fn check_held(
    path: &Path,
    line: u64,
    edges: &[(u32, u32)],
    memory: Option<&MemoryLimit>,
) -> Result<(), LoadError> {
    let held = std::mem::size_of_val(edges) as u64;
    memory::check(memory, held, || {
        format!("holding the {} edges read so far", edges.len())
    })
    .map_err(|e| LoadError::new(path, Some(Location::Line(line)), LoadErrorKind::Graph(e)))
}

/// Read `input` in line-aligned blocks on a background thread (overlapping
/// reading and decompression with parsing) and hand each to `consume` in
/// order. Reports progress after each block.
pub(crate) fn for_each_block(
    input: Input<'_>,
    progress: Option<&(dyn Fn(Progress) + Sync)>,
    mut consume: impl FnMut(&[u8]) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let Input {
        path,
        mut reader,
        consumed,
        file_len,
        gzip,
    } = input;
    let error_at = |err: BlockError| {
        let at = Some(Location::Byte(consumed.load(Relaxed)));
        let kind = match err {
            BlockError::LineTooLong => LoadErrorKind::LineTooLong {
                limit: MAX_LINE_BYTES,
            },
            BlockError::Read(e) => read_error_kind(&e, gzip),
        };
        LoadError::new(path, at, kind)
    };
    std::thread::scope(|scope| {
        let (send, receive) = sync_channel::<Result<Vec<u8>, LoadError>>(1);
        // Parsed blocks go back to the reader: reusing their memory saves
        // the kernel zeroing fresh pages for every block.
        let (recycle, reuse) = std::sync::mpsc::channel::<Vec<u8>>();
        let consumed = &consumed;
        scope.spawn(move || {
            let mut blocks = LineBlocks::new();
            loop {
                let spare = reuse.try_recv().unwrap_or_default();
                let next = blocks.next_block(&mut reader, spare);
                if let Some(report) = progress {
                    report(Progress {
                        bytes_read: consumed.load(Relaxed),
                        total_bytes: file_len,
                    });
                }
                let message = match next {
                    Ok(Some(block)) => Ok(block),
                    Ok(None) => break,
                    Err(err) => Err(error_at(err)),
                };
                let failed = message.is_err();
                if send.send(message).is_err() || failed {
                    break;
                }
            }
        });
        for message in receive {
            let block = message?;
            consume(&block)?;
            // The reader may have finished; then the block is simply freed.
            let _ = recycle.send(block);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_any_blank_run() {
        let mut rest: &[u8] = b" \t12\t 34  x\r";
        assert_eq!(next_token(&mut rest), Some(&b"12"[..]));
        assert_eq!(next_token(&mut rest), Some(&b"34"[..]));
        assert_eq!(next_token(&mut rest), Some(&b"x"[..]));
        assert_eq!(next_token(&mut rest), None);
    }

    #[test]
    fn unsigned_parsing_names_the_problem() {
        assert_eq!(parse_unsigned(b"0"), Ok(0));
        assert_eq!(parse_unsigned(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_unsigned(b"18446744073709551616"),
            Err(FieldProblem::TooLarge)
        );
        assert_eq!(parse_unsigned(b"-3"), Err(FieldProblem::Negative));
        assert_eq!(parse_unsigned(b"-"), Err(FieldProblem::NotNumeric));
        assert_eq!(parse_unsigned(b"1e3"), Err(FieldProblem::NotNumeric));
        assert_eq!(parse_unsigned(b"+3"), Err(FieldProblem::NotNumeric));
    }
}
