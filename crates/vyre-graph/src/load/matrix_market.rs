//! Matrix Market coordinate files.
//!
//! `%%MatrixMarket matrix coordinate <field> <symmetry>`, then `%` comments,
//! then `rows columns entries`, then one `row column [value...]` line per
//! entry with 1-based indices. Entry `(i, j)` becomes the edge
//! `i - 1 -> j - 1`; values are checked but ignored. `general` files are
//! directed; `symmetric`, `skew-symmetric` and `hermitian` files list one
//! triangle and load undirected.

use super::error::{Field, LoadError, LoadErrorKind};
use super::input::Input;
use super::text::{
    CountErrors, Declaration, LineParser, at_line, load_declared, next_token, one_based_id, shown,
};
use super::{LoadOptions, finish};

/// What the banner says.
#[derive(Clone, Copy, Debug)]
struct Banner {
    /// Numbers after the two indices on each entry line.
    values: u8,
    integer: bool,
    symmetric: bool,
}

fn parse_banner(line: &[u8]) -> Result<Banner, LoadErrorKind> {
    let mut rest = line;
    let bad = || LoadErrorKind::BadBanner {
        found: shown(line.strip_suffix(b"\r").unwrap_or(line)),
    };
    let head = next_token(&mut rest).ok_or_else(bad)?;
    if !head.eq_ignore_ascii_case(b"%%MatrixMarket") {
        return Err(bad());
    }
    let mut word = || next_token(&mut rest).map(|t| t.to_ascii_lowercase());
    let (Some(object), Some(format), Some(field), Some(symmetry)) =
        (word(), word(), word(), word())
    else {
        return Err(bad());
    };
    let unsupported = |w: &[u8]| LoadErrorKind::UnsupportedMatrixMarket { found: shown(w) };
    if object != b"matrix" {
        return Err(unsupported(&object));
    }
    if format != b"coordinate" {
        return Err(unsupported(&format));
    }
    let (values, integer) = match field.as_slice() {
        b"pattern" => (0, false),
        b"real" | b"double" => (1, false),
        b"integer" => (1, true),
        b"complex" => (2, false),
        _ => return Err(unsupported(&field)),
    };
    let symmetric = match symmetry.as_slice() {
        b"general" => false,
        b"symmetric" | b"skew-symmetric" | b"hermitian" => true,
        _ => return Err(unsupported(&symmetry)),
    };
    Ok(Banner {
        values,
        integer,
        symmetric,
    })
}

/// `rows columns entries`.
fn parse_size(line: &[u8]) -> Result<[u64; 3], LoadErrorKind> {
    let bad = || LoadErrorKind::BadSizeLine {
        found: shown(line.strip_suffix(b"\r").unwrap_or(line)),
    };
    let mut rest = line;
    let mut size = [0u64; 3];
    for slot in &mut size {
        let token = next_token(&mut rest).ok_or_else(bad)?;
        *slot = super::text::parse_unsigned(token).map_err(|_| bad())?;
    }
    if next_token(&mut rest).is_some() {
        return Err(bad());
    }
    let [rows, columns, _] = size;
    if rows > u64::from(u32::MAX) || columns > u64::from(u32::MAX) {
        return Err(LoadErrorKind::SizeTooLarge { rows, columns });
    }
    Ok(size)
}

struct Entries {
    banner: Banner,
    rows: u64,
    columns: u64,
}

impl LineParser for Entries {
    fn is_comment(&self, first: u8) -> bool {
        first == b'%'
    }

    fn accept(&self, row: u64, column: u64) -> Option<(u32, u32)> {
        let valid = self.banner.values == 0
            && (1..=self.rows).contains(&row)
            && (1..=self.columns).contains(&column);
        // Both are at most u32::MAX here.
        valid.then(|| ((row - 1) as u32, (column - 1) as u32))
    }

    fn parse(&self, line: &[u8]) -> Result<(u32, u32), LoadErrorKind> {
        let mut rest = line;
        let row = one_based_id(&mut rest, Field::Row, self.rows)?;
        let column = one_based_id(&mut rest, Field::Column, self.columns)?;
        for _ in 0..self.banner.values {
            let problem = |problem, token: &[u8]| LoadErrorKind::BadField {
                field: Field::Value,
                problem,
                found: shown(token),
            };
            let token = next_token(&mut rest)
                .ok_or_else(|| problem(super::error::FieldProblem::Missing, b""))?;
            let text = std::str::from_utf8(token).unwrap_or("");
            let numeric = if self.banner.integer {
                text.parse::<i64>().is_ok()
            } else {
                text.parse::<f64>().is_ok()
            };
            if !numeric {
                return Err(problem(super::error::FieldProblem::NotNumeric, token));
            }
        }
        Ok((row, column))
    }
}

/// Load a Matrix Market file.
pub(crate) fn load(
    input: Input<'_>,
    options: &LoadOptions<'_>,
) -> Result<super::EdgeList, LoadError> {
    let path = input.path;
    let at = at_line(path);
    let mut banner = None;
    let header = |line: &[u8], line_no: u64| {
        let Some(banner) = banner else {
            banner = Some(parse_banner(line).map_err(|k| at(line_no, k))?);
            return Ok(None);
        };
        let mut probe = line;
        match next_token(&mut probe) {
            None => Ok(None),
            Some(t) if t.starts_with(b"%") => Ok(None),
            Some(_) => {
                let [rows, columns, declared] = parse_size(line).map_err(|k| at(line_no, k))?;
                let entries = Entries {
                    banner,
                    rows,
                    columns,
                };
                Ok(Some((entries, declared)))
            }
        }
    };
    let errors = CountErrors {
        short: |declared, found| LoadErrorKind::Truncated { declared, found },
        over: |declared| LoadErrorKind::TooManyEntries { declared },
    };
    let parsed = load_declared(input, options, 4, header, &errors)?;
    let (entries, edges) = match parsed {
        Declaration::Parsed(entries, edges) => (entries, edges),
        Declaration::NoHeader(_) if banner.is_none() => {
            return Err(LoadError::new(path, None, LoadErrorKind::Empty));
        }
        Declaration::NoHeader(lines) => {
            let found = String::new();
            return Err(at(lines, LoadErrorKind::BadSizeLine { found }));
        }
    };
    let vertices = entries.rows.max(entries.columns);
    finish(
        path,
        vertices,
        edges,
        entries.banner.symmetric || options.symmetrize,
        options,
    )
}
