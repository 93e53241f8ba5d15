//! DIMACS shortest-path files (`.gr`, the 9th DIMACS Implementation
//! Challenge's road networks).
//!
//! `c` lines are comments; one problem line `p sp <vertices> <arcs>` comes
//! before the arcs; each arc is `a <tail> <head> <weight>` with 1-based
//! vertex ids. Arc `a u v w` becomes the edge `u - 1 -> v - 1`; the weight
//! is checked to be a number and otherwise ignored. Arcs are directed (road
//! files list both directions of a two-way street), so the graph is
//! directed unless the caller symmetrizes.

use super::error::{Field, FieldProblem, LoadError, LoadErrorKind};
use super::input::Input;
use super::text::{
    CountErrors, Declaration, LineParser, at_line, load_declared, next_token, one_based_id,
    parse_unsigned, shown,
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

/// Load a DIMACS shortest-path file.
pub(crate) fn load(
    input: Input<'_>,
    options: &LoadOptions<'_>,
) -> Result<super::EdgeList, LoadError> {
    let errors = CountErrors {
        short: |declared, found| LoadErrorKind::MissingArcs { declared, found },
        over: |declared| LoadErrorKind::ExtraArc { declared },
    };
    let path = input.path;
    let at = at_line(path);
    let header = |line: &[u8], line_no: u64| {
        let first = line.iter().find(|&&b| !b.is_ascii_whitespace());
        if matches!(first, None | Some(b'c')) {
            return Ok(None);
        }
        let (vertices, declared) = parse_problem(line).map_err(|k| at(line_no, k))?;
        Ok(Some((Arcs { vertices }, declared)))
    };
    // An arc line takes at least 8 bytes (`a 1 2 0\n`).
    match load_declared(input, options, 8, header, &errors)? {
        Declaration::Parsed(arcs, edges) => {
            finish(path, arcs.vertices, edges, options.symmetrize, options)
        }
        Declaration::NoHeader(lines) => {
            let found = String::new();
            Err(at(lines, LoadErrorKind::BadProblemLine { found }))
        }
    }
}
