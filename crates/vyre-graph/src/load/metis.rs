//! METIS adjacency files (`.graph`, the format of the 10th DIMACS
//! Implementation Challenge, e.g. its `*_osm` road networks).
//!
//! `%` lines are comments. The header is `<vertices> <edges> [fmt [ncon]]`;
//! then line i (of the non-comment lines after it) lists vertex i: its size
//! when fmt's hundreds digit is 1, its `ncon` weights when the tens digit is
//! 1, then its 1-based neighbours, each followed by an edge weight when the
//! units digit is 1. An empty line is a vertex without neighbours. Every
//! undirected edge appears in the lines of both its ends, so the file holds
//! twice the declared edge count in neighbour entries; the graph loads
//! undirected.

use rayon::prelude::*;

use super::error::{Field, FieldProblem, LoadError, LoadErrorKind};
use super::input::Input;
use super::text::{
    at_line, check_held, header_then_blocks, next_token, one_based_id, parse_unsigned, shown,
    split_pieces,
};
use super::{LoadOptions, finish};
use crate::memory::{MemoryLimit, try_reserve};

/// What the header says each vertex line holds.
#[derive(Clone, Copy, Debug)]
struct Layout {
    vertices: u64,
    /// Numbers before the neighbours: the size and the `ncon` weights.
    leading: u32,
    edge_weights: bool,
}

fn parse_header(line: &[u8]) -> Result<(Layout, u64), LoadErrorKind> {
    let bad = || LoadErrorKind::BadMetisHeader {
        found: shown(line.strip_suffix(b"\r").unwrap_or(line)),
    };
    let mut rest = line;
    let mut number = || next_token(&mut rest).map(|t| parse_unsigned(t).map_err(|_| bad()));
    let vertices = number().ok_or_else(bad)??;
    let edges = number().ok_or_else(bad)??;
    let fmt = number().transpose()?.unwrap_or(0);
    let ncon = number().transpose()?;
    if number().is_some() || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1 {
        return Err(bad());
    }
    let sizes = u32::from(fmt >= 100);
    let vertex_weights = fmt / 10 % 10 == 1;
    let ncon = match (vertex_weights, ncon) {
        (false, Some(_)) => return Err(bad()),
        (false, None) => 0,
        (true, None) => 1,
        (true, Some(n)) => u32::try_from(n)
            .ok()
            .filter(|&n| n <= 1024)
            .ok_or_else(bad)?,
    };
    if vertices > u64::from(u32::MAX) {
        return Err(LoadErrorKind::VertexCountTooLarge { vertices });
    }
    let layout = Layout {
        vertices,
        leading: sizes + ncon,
        edge_weights: fmt % 10 == 1,
    };
    Ok((layout, edges))
}

fn is_comment(line: &[u8]) -> bool {
    line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'%')
}

/// The lines of a line-aligned piece (the last may lack its `\n`).
fn lines(piece: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = piece.strip_suffix(b"\n").unwrap_or(piece);
    // An empty piece has no lines, where `split` would give one empty line.
    (!piece.is_empty())
        .then(|| body.split(|&b| b == b'\n'))
        .into_iter()
        .flatten()
}

/// A number that must be there (a weight or size).
fn weight(rest: &mut &[u8], field: Field) -> Result<(), LoadErrorKind> {
    let token = next_token(rest).ok_or(LoadErrorKind::BadField {
        field,
        problem: FieldProblem::Missing,
        found: String::new(),
    })?;
    parse_unsigned(token)
        .map(drop)
        .map_err(|problem| LoadErrorKind::BadField {
            field,
            problem,
            found: shown(token),
        })
}

/// The edges of one vertex line.
fn parse_line(
    layout: &Layout,
    vertex: u32,
    line: &[u8],
    out: &mut Vec<(u32, u32)>,
) -> Result<(), LoadErrorKind> {
    let mut rest = line;
    for _ in 0..layout.leading {
        weight(&mut rest, Field::VertexWeight)?;
    }
    while next_token(&mut { rest }).is_some() {
        let neighbor = one_based_id(&mut rest, Field::Neighbor, layout.vertices)?;
        if layout.edge_weights {
            weight(&mut rest, Field::EdgeWeight)?;
        }
        out.push((vertex, neighbor));
    }
    Ok(())
}

/// Parse a piece whose first vertex line is vertex `first`: its edges into
/// `out`, or the line within the piece (1-based) that is wrong.
fn parse_piece(
    layout: &Layout,
    piece: &[u8],
    first: u64,
    out: &mut Vec<(u32, u32)>,
) -> Result<(), (u64, LoadErrorKind)> {
    let mut vertex = first;
    for (i, line) in lines(piece).enumerate() {
        if is_comment(line) {
            continue;
        }
        if vertex >= layout.vertices {
            if line.iter().any(|b| !b.is_ascii_whitespace()) {
                let declared = layout.vertices;
                return Err((i as u64 + 1, LoadErrorKind::ExtraVertexLine { declared }));
            }
        } else {
            // vertex < vertices <= u32::MAX.
            parse_line(layout, vertex as u32, line, out).map_err(|k| (i as u64 + 1, k))?;
        }
        vertex += 1;
    }
    Ok(())
}

/// What the body parse needs and fills.
struct Body {
    layout: Layout,
    declared_edges: u64,
    /// Vertex lines read so far.
    vertex_lines: u64,
    edges: Vec<(u32, u32)>,
    pool: Vec<Vec<(u32, u32)>>,
}

impl Body {
    /// Parse a line-aligned block in parallel: count each piece's vertex
    /// lines first, so that every piece knows its first vertex. Returns the
    /// block's lines, or the absolute line of the first bad one.
    fn block(&mut self, block: &[u8], before: u64) -> Result<u64, (u64, LoadErrorKind)> {
        let pieces = split_pieces(block);
        let counts: Vec<(u64, u64)> = pieces
            .par_iter()
            .map(|piece| {
                let (mut all, mut vertices) = (0u64, 0u64);
                for line in lines(piece) {
                    all += 1;
                    vertices += u64::from(!is_comment(line));
                }
                (all, vertices)
            })
            .collect();
        if self.pool.len() < pieces.len() {
            self.pool.resize_with(pieces.len(), Vec::new);
        }
        let mut firsts = Vec::with_capacity(pieces.len());
        let mut vertex = self.vertex_lines;
        for &(_, vertices) in &counts {
            firsts.push(vertex);
            vertex += vertices;
        }
        let layout = self.layout;
        let parsed: Vec<_> = pieces
            .into_par_iter()
            .zip(firsts)
            .zip(self.pool.par_iter_mut())
            .map(|((piece, first), out)| {
                out.clear();
                parse_piece(&layout, piece, first, out)
            })
            .collect();
        let mut line = before;
        for ((result, out), (all, _)) in parsed.into_iter().zip(&self.pool).zip(counts) {
            result.map_err(|(within, kind)| (line + within, kind))?;
            try_reserve(&mut self.edges, out.len(), || {
                "the edges read so far".into()
            })
            .map_err(|e| (line, LoadErrorKind::Graph(e)))?;
            self.edges.extend_from_slice(out);
            line += all;
        }
        self.vertex_lines = vertex;
        Ok(line - before)
    }
}

/// Load a METIS graph file.
pub(crate) fn load(
    input: Input<'_>,
    options: &LoadOptions<'_>,
) -> Result<super::EdgeList, LoadError> {
    // A neighbour entry takes at least 2 bytes (`7 `).
    let cap_hint = input.file_len.unwrap_or(0) / 2 + 1;
    let path = input.path;
    let at = at_line(path);
    let memory = MemoryLimit::resolve(options.memory_limit);
    let header = |line: &[u8], line_no: u64| {
        if line.iter().all(u8::is_ascii_whitespace) || is_comment(line) {
            return Ok(None);
        }
        let (layout, declared_edges) = parse_header(line).map_err(|k| at(line_no, k))?;
        let entries = declared_edges.saturating_mul(2);
        // Preallocate what the file can hold, not what it claims.
        let mut edges = Vec::new();
        let room = entries.min(cap_hint).min(1 << 32) as usize;
        try_reserve(&mut edges, room, || "the declared edges".into())
            .map_err(|e| at(line_no, LoadErrorKind::Graph(e)))?;
        Ok(Some(Body {
            layout,
            declared_edges,
            vertex_lines: 0,
            edges,
            pool: Vec::new(),
        }))
    };
    let body = |b: &mut Body, block: &[u8], before: u64| {
        let lines = b.block(block, before).map_err(|(l, k)| at(l, k))?;
        check_held(path, before + lines, &b.edges, memory.as_ref())?;
        Ok(lines)
    };
    let (parsed, line_no) = header_then_blocks(input, options.progress, header, body)?;
    let Some(body) = parsed else {
        return Err(at(
            line_no,
            LoadErrorKind::BadMetisHeader {
                found: String::new(),
            },
        ));
    };
    let entries = body.edges.len() as u64;
    let declared = body.layout.vertices;
    if entries != body.declared_edges.saturating_mul(2) {
        // Missing lines explain a shortfall better than the count does.
        let kind =
            if body.vertex_lines < declared && entries < body.declared_edges.saturating_mul(2) {
                LoadErrorKind::MissingVertexLines {
                    declared,
                    found: body.vertex_lines,
                }
            } else {
                LoadErrorKind::MetisEdgeCount {
                    declared: body.declared_edges,
                    entries,
                }
            };
        return Err(at(line_no, kind));
    }
    // Trailing vertices without neighbours may leave out their empty lines.
    finish(path, declared, body.edges, true, options)
}
