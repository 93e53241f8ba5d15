//! SNAP-style edge lists: one `source target` pair per line, separated by
//! spaces or tabs, further columns ignored, `#` (and `%`) lines comments.
//! Ids are used as written (0-based or not); the vertex count is the
//! largest id plus one. Directed unless the caller symmetrizes.

use rayon::prelude::*;

use super::error::{Field, FieldProblem, LoadError, LoadErrorKind, Location};
use super::input::Input;
use super::text::{LineParser, check_held, for_each_block, parse_block, unsigned_field};
use super::{LoadOptions, finish};
use crate::memory::MemoryLimit;

/// Largest id: `u32::MAX` itself would need `2^32` vertices.
const MAX_ID: u64 = u32::MAX as u64 - 1;

struct Pairs;

fn id(rest: &mut &[u8], field: Field) -> Result<u32, LoadErrorKind> {
    let start = *rest;
    let value = unsigned_field(rest, field)?;
    u32::try_from(value)
        .ok()
        .filter(|&v| u64::from(v) <= MAX_ID)
        .ok_or_else(|| LoadErrorKind::BadField {
            field,
            problem: FieldProblem::TooLarge,
            found: super::text::shown(super::text::next_token(&mut { start }).unwrap_or(b"")),
        })
}

impl LineParser for Pairs {
    fn is_comment(&self, first: u8) -> bool {
        first == b'#' || first == b'%'
    }

    fn accept(&self, source: u64, target: u64) -> Option<(u32, u32)> {
        (source <= MAX_ID && target <= MAX_ID).then_some((source as u32, target as u32))
    }

    fn parse(&self, line: &[u8]) -> Result<(u32, u32), LoadErrorKind> {
        let mut rest = line;
        let source = id(&mut rest, Field::Source)?;
        let target = id(&mut rest, Field::Target)?;
        Ok((source, target))
    }
}

/// Load an edge list.
pub(crate) fn load(
    input: Input<'_>,
    options: &LoadOptions<'_>,
) -> Result<super::EdgeList, LoadError> {
    let path = input.path;
    let memory = MemoryLimit::resolve(options.memory_limit);
    let mut edges: Vec<(u32, u32)> =
        Vec::with_capacity((input.file_len.unwrap_or(0) / 4).min(1 << 24) as usize);
    let mut line_no = 0u64;
    let mut pool = Vec::new();
    for_each_block(input, options.progress, |block| {
        line_no += parse_block(&Pairs, block, line_no, &mut edges, &mut pool)
            .map_err(|(l, k)| LoadError::new(path, Some(Location::Line(l)), k))?;
        check_held(path, line_no, &edges, memory.as_ref())
    })?;
    let vertices = edges
        .par_iter()
        .map(|&(u, v)| u64::from(u.max(v)) + 1)
        .max()
        .unwrap_or(0);
    finish(path, vertices, edges, options.symmetrize, options)
}
