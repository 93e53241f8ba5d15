//! DIMACS shortest-path files (`.gr`, the 9th DIMACS Implementation
//! Challenge's road networks).
//!
//! `c` lines are comments; one problem line `p sp <vertices> <arcs>` comes
//! before the arcs; each arc is `a <tail> <head> <weight>` with 1-based
//! vertex ids. Arc `a u v w` becomes the edge `u - 1 -> v - 1`; the weight
//! is checked to be a number and otherwise ignored. Arcs are directed (road
//! files list both directions of a two-way street), so the graph is
//! directed unless the caller symmetrizes.

use super::error::{Field, FieldProblem, LoadError, LoadErrorKind, Location};
use super::input::Input;
use super::text::{
    DeclaredBlockError, LineParser, header_then_blocks, next_token, one_based_id,
    parse_declared_block, parse_unsigned, shown,
};
use super::{LoadOptions, finish};

/// The arc lines after a problem line declaring `vertices`.
struct Arcs {
    vertices: u64,
}

impl LineParser for Arcs {
    fn is_comment(&self, first: u8) -> bool {
        first == b'c'
    }

    // Arc lines start with `a`, never with two bare numbers.
    fn accept(&self, _: u64, _: u64) -> Option<(u32, u32)> {
        None
    }

    fn parse(&self, line: &[u8]) -> Result<(u32, u32), LoadErrorKind> {
        let mut rest = line;
        if next_token(&mut rest) != Some(b"a") {
            return Err(LoadErrorKind::UnexpectedDimacsLine {
                found: shown(line.strip_suffix(b"\r").unwrap_or(line)),
            });
        }
        let tail = one_based_id(&mut rest, Field::ArcTail, self.vertices)?;
        let head = one_based_id(&mut rest, Field::ArcHead, self.vertices)?;
        let weight = next_token(&mut rest).ok_or(LoadErrorKind::BadField {
            field: Field::ArcWeight,
            problem: FieldProblem::Missing,
            found: String::new(),
        })?;
        let numeric = std::str::from_utf8(weight).is_ok_and(|w| w.parse::<f64>().is_ok());
        if !numeric {
            return Err(LoadErrorKind::BadField {
                field: Field::ArcWeight,
                problem: FieldProblem::NotNumeric,
                found: shown(weight),
            });
        }
        Ok((tail, head))
    }
}

/// `p sp <vertices> <arcs>`: the vertex and arc counts.
fn parse_problem(line: &[u8]) -> Result<(u64, u64), LoadErrorKind> {
    let bad = || LoadErrorKind::BadProblemLine {
        found: shown(line.strip_suffix(b"\r").unwrap_or(line)),
    };
    let mut rest = line;
    if next_token(&mut rest) != Some(b"p") || next_token(&mut rest) != Some(b"sp") {
        return Err(bad());
    }
    let mut count = || {
        next_token(&mut rest)
            .and_then(|t| parse_unsigned(t).ok())
            .ok_or_else(bad)
    };
    let (vertices, arcs) = (count()?, count()?);
    if next_token(&mut rest).is_some() {
        return Err(bad());
    }
    if vertices > u64::from(u32::MAX) {
        return Err(LoadErrorKind::VertexCountTooLarge { vertices });
    }
    Ok((vertices, arcs))
}

/// What the body parse needs and fills.
struct Body {
    arcs: Arcs,
    declared: u64,
    edges: Vec<(u32, u32)>,
    pool: Vec<Vec<(u32, u32)>>,
}

/// Load a DIMACS shortest-path file.
pub(crate) fn load(
    input: Input<'_>,
    options: &LoadOptions<'_>,
) -> Result<super::EdgeList, LoadError> {
    let path = input.path;
    let at = |line: u64, kind| LoadError::new(path, Some(Location::Line(line)), kind);
    // An arc line takes at least 8 bytes (`a 1 2 0\n`).
    let cap_hint = input.file_len.unwrap_or(0) / 8 + 1;
    let header = |line: &[u8], line_no: u64| {
        let first = line.iter().find(|&&b| !b.is_ascii_whitespace());
        match first {
            None | Some(b'c') => Ok(None),
            Some(_) => {
                let (vertices, declared) = parse_problem(line).map_err(|k| at(line_no, k))?;
                Ok(Some(Body {
                    arcs: Arcs { vertices },
                    declared,
                    edges: Vec::with_capacity(declared.min(cap_hint).min(1 << 32) as usize),
                    pool: Vec::new(),
                }))
            }
        }
    };
    let body = |b: &mut Body, block: &[u8], before: u64| {
        parse_declared_block(
            &b.arcs,
            block,
            before,
            b.declared,
            &mut b.edges,
            &mut b.pool,
        )
        .map_err(|e| match e {
            DeclaredBlockError::Line((l, k)) => at(l, k),
            DeclaredBlockError::PastDeclared(l) => at(
                l,
                LoadErrorKind::ExtraArc {
                    declared: b.declared,
                },
            ),
        })
    };
    let (parsed, line_no) = header_then_blocks(input, options.progress, header, body)?;
    let Some(Body {
        arcs,
        declared,
        edges,
        ..
    }) = parsed
    else {
        return Err(at(
            line_no,
            LoadErrorKind::BadProblemLine {
                found: String::new(),
            },
        ));
    };
    if (edges.len() as u64) < declared {
        return Err(at(
            line_no,
            LoadErrorKind::MissingArcs {
                declared,
                found: edges.len() as u64,
            },
        ));
    }
    finish(path, arcs.vertices, edges, options.symmetrize, options)
}
