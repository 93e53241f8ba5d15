//! DIMACS `.gr` and METIS `.graph` files: the formats road networks come in.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

use super::*;
use crate::build::{BuildOptions, build_graph};

fn load_as(name: &str, bytes: &[u8], options: LoadOptions<'_>) -> Result<Graph, LoadError> {
    load_reader(Path::new(name), bytes, options)
}

fn load(name: &str, bytes: &[u8]) -> Result<Graph, LoadError> {
    load_as(name, bytes, LoadOptions::default())
}

/// The error of loading `bytes` as `name`, checked to name the file, the
/// line, and a fix.
fn error_at(name: &str, bytes: &[u8], line: u64) -> LoadErrorKind {
    let err = load(name, bytes).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&format!("{name}:{line}: ")), "{text}");
    assert!(text.contains("Fix: "), "{text}");
    assert_eq!(err.location(), Some(Location::Line(line)), "{text}");
    err.kind().clone()
}

fn directed(n: u32, edges: &[(u32, u32)]) -> Graph {
    build_graph(n, edges, BuildOptions::DIRECTED).unwrap()
}

fn undirected(n: u32, edges: &[(u32, u32)]) -> Graph {
    build_graph(n, edges, BuildOptions::UNDIRECTED).unwrap()
}

// ---- DIMACS ----

/// Four vertices; a two-way street 1-2 (both arcs), one-way 2->3, a
/// duplicate arc, vertex 4 without arcs.
const GR: &[u8] = b"c 9th DIMACS Implementation Challenge: Shortest Paths\nc toy road network\np sp 4 4\nc graph contains 4 nodes and 4 arcs\na 1 2 803\na 2 1 803\r\na 2 3 158\n\na 2 3 158\n";

#[test]
fn dimacs_arcs_are_directed_and_one_based() {
    let g = load("toy.gr", GR).unwrap();
    assert_eq!(g, directed(4, &[(0, 1), (1, 0), (1, 2)]));
    let sym = load_as(
        "toy.gr",
        GR,
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(sym, undirected(4, &[(0, 1), (1, 2)]));
}

#[test]
fn dimacs_is_detected_by_content_and_by_extension_gzip_or_not() {
    let expected = directed(4, &[(0, 1), (1, 0), (1, 2)]);
    // Comment and problem lines say DIMACS whatever the name.
    assert_eq!(load("roads.txt", GR).unwrap(), expected);
    assert_eq!(detect(Path::new("x"), b"p sp 3 0\n"), Format::Dimacs);
    // A file without comments, named .gr.
    let bare = b"p sp 4 3\na 1 2 1\na 2 1 1\na 2 3 1\n";
    assert_eq!(load("bare.gr", bare).unwrap(), expected);
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(GR).unwrap();
    assert_eq!(load("toy.gr.gz", &gz.finish().unwrap()).unwrap(), expected);
}

#[test]
fn dimacs_problem_line_errors() {
    let bad = |found: &str| LoadErrorKind::BadProblemLine {
        found: found.into(),
    };
    let cases: [(&[u8], u64, LoadErrorKind); 5] = [
        (b"c x\na 1 2 3\np sp 2 1\n", 2, bad("a 1 2 3")),
        (b"c only comments\nc here\n", 2, bad("")),
        (b"p max 2 1\na 1 2 3\n", 1, bad("p max 2 1")),
        (
            b"p sp 5000000000 1\na 1 2 3\n",
            1,
            LoadErrorKind::VertexCountTooLarge {
                vertices: 5_000_000_000,
            },
        ),
        (
            b"p sp 2 2\na 1 2 3\np sp 2 1\n",
            3,
            LoadErrorKind::UnexpectedDimacsLine {
                found: "p sp 2 1".into(),
            },
        ),
    ];
    for (text, line, kind) in cases {
        assert_eq!(error_at("p.gr", text, line), kind);
    }
    let err = load("none.gr", b"c only comments\n").unwrap_err();
    assert!(
        err.to_string().contains("found the end of the file"),
        "{err}"
    );
}

#[test]
fn dimacs_arc_errors_name_the_field() {
    let cases: [(&[u8], LoadErrorKind); 5] = [
        (
            b"p sp 3 1\na 0 2 1\n",
            LoadErrorKind::ZeroIndex {
                field: Field::ArcTail,
            },
        ),
        (
            b"p sp 3 1\na 1 4 1\n",
            LoadErrorKind::IndexPastSize {
                field: Field::ArcHead,
                index: 4,
                size: 3,
            },
        ),
        (
            b"p sp 3 1\na 1 2\n",
            LoadErrorKind::BadField {
                field: Field::ArcWeight,
                problem: FieldProblem::Missing,
                found: String::new(),
            },
        ),
        (
            b"p sp 3 1\na 1 2 far\n",
            LoadErrorKind::BadField {
                field: Field::ArcWeight,
                problem: FieldProblem::NotNumeric,
                found: "far".into(),
            },
        ),
        (
            b"p sp 3 1\ne 1 2 5\n",
            LoadErrorKind::UnexpectedDimacsLine {
                found: "e 1 2 5".into(),
            },
        ),
    ];
    for (text, kind) in cases {
        assert_eq!(error_at("bad.gr", text, 2), kind);
    }
    let err = load("zero.gr", b"p sp 3 1\na 0 2 1\n").unwrap_err();
    assert!(
        err.to_string()
            .contains("DIMACS vertex ids start at 1. Fix: add 1 to every id"),
        "{err}"
    );
}

#[test]
fn dimacs_arc_counts_must_match_the_problem_line() {
    assert_eq!(
        error_at("short.gr", b"p sp 3 3\na 1 2 1\nc end\na 2 3 1\n", 4),
        LoadErrorKind::MissingArcs {
            declared: 3,
            found: 2
        }
    );
    assert_eq!(
        error_at("long.gr", b"p sp 3 1\na 1 2 1\nc more\na 2 3 1\n", 4),
        LoadErrorKind::ExtraArc { declared: 1 }
    );
    // A problem line claiming 10^18 arcs in a tiny file allocates nothing
    // for them.
    assert_eq!(
        error_at("huge.gr", b"p sp 3 1000000000000000000\na 1 2 1\n", 2),
        LoadErrorKind::MissingArcs {
            declared: 1_000_000_000_000_000_000,
            found: 1
        }
    );
}

// ---- METIS ----

/// Five vertices: 1-2, 1-3, 2-3, 3-4; vertex 5 has no neighbours (an empty
/// line).
const METIS: &[u8] = b"% a METIS graph\n5 4\n2 3\n1 3\n% vertex 3 next\n1 2 4\n3\n\n";

fn metis_expected() -> Graph {
    undirected(5, &[(0, 1), (0, 2), (1, 2), (2, 3)])
}

#[test]
fn metis_lines_list_one_based_neighbours_and_load_undirected() {
    let g = load("toy.graph", METIS).unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g, metis_expected());
    // Trailing vertices without neighbours may leave out their empty lines.
    let short = b"% a METIS graph\n5 4\n2 3\n1 3\n1 2 4\n3\n";
    assert_eq!(load("short.graph", short).unwrap(), metis_expected());
    assert_eq!(detect(Path::new("x.graph.gz"), b"5 4\n"), Format::Metis);
}

#[test]
fn metis_weights_and_sizes_are_skipped_per_fmt() {
    let edge_weights = b"5 4 1\n2 7 3 1\n1 7 3 2\n1 1 2 2 4 9\n3 9\n\n";
    assert_eq!(load("ew.graph", edge_weights).unwrap(), metis_expected());
    let vertex_weights = b"5 4 011 2\n1 1 2 7 3 1\n1 1 1 7 3 2\n4 4 1 1 2 2 4 9\n0 0 3 9\n5 5\n";
    assert_eq!(load("vw.graph", vertex_weights).unwrap(), metis_expected());
    let sizes = b"5 4 100\n1 2 3\n1 1 3\n2 1 2 4\n1 3\n1\n";
    assert_eq!(load("sz.graph", sizes).unwrap(), metis_expected());
}

#[test]
fn metis_header_errors() {
    for (text, line) in [
        (&b"% c\nfive four\n"[..], 2),
        (b"5 4 2\n", 1),
        (b"5 4 1 3\n", 1),
        (b"5 4 0 0 0\n", 1),
    ] {
        let kind = error_at("h.graph", text, line);
        assert!(
            matches!(kind, LoadErrorKind::BadMetisHeader { .. }),
            "{kind:?}"
        );
    }
    assert_eq!(
        error_at("empty.graph", b"% only a comment\n", 1),
        LoadErrorKind::BadMetisHeader {
            found: String::new()
        }
    );
}

#[test]
fn metis_line_errors_name_the_field_and_line() {
    assert_eq!(
        error_at("zero.graph", b"3 1\n2\n0\n\n", 3),
        LoadErrorKind::ZeroIndex {
            field: Field::Neighbor
        }
    );
    assert_eq!(
        error_at("past.graph", b"3 1\n% c\n2\n4\n\n", 4),
        LoadErrorKind::IndexPastSize {
            field: Field::Neighbor,
            index: 4,
            size: 3
        }
    );
    assert_eq!(
        error_at("ew.graph", b"3 1 1\n2 5\n1\n\n", 3),
        LoadErrorKind::BadField {
            field: Field::EdgeWeight,
            problem: FieldProblem::Missing,
            found: String::new()
        }
    );
    assert_eq!(
        error_at("extra.graph", b"2 1\n2\n1\n\n1\n", 5),
        LoadErrorKind::ExtraVertexLine { declared: 2 }
    );
}

#[test]
fn metis_counts_must_match_the_header() {
    // Cut after vertex 2's line: vertices and entries are both short.
    assert_eq!(
        error_at("cut.graph", b"5 4\n2 3\n1 3\n", 3),
        LoadErrorKind::MissingVertexLines {
            declared: 5,
            found: 2
        }
    );
    // Every line is there but an edge is listed once only.
    assert_eq!(
        error_at("once.graph", b"3 2\n2 3\n1\n\n", 4),
        LoadErrorKind::MetisEdgeCount {
            declared: 2,
            entries: 3
        }
    );
    let err = load("once.graph", b"3 2\n2 3\n1\n\n").unwrap_err();
    assert!(err.to_string().contains("(4 neighbour entries)"), "{err}");
}

/// About 20 MiB of METIS text: three blocks, many parallel pieces each,
/// with comments between vertex lines and an isolated vertex mid-file.
#[test]
fn metis_files_spanning_many_blocks_keep_vertices_and_line_numbers() {
    let n = 1_200_000u32;
    let lonely = 600_000u32;
    let pairs: Vec<(u32, u32)> = (0..n - 1)
        .filter(|&i| i != lonely && i + 1 != lonely)
        .map(|i| (i, i + 1))
        .collect();
    let mut text = format!("% chain with a gap\n{n} {}\n", pairs.len());
    let mut comments = 0u64;
    for v in 0..n {
        if v % 100_000 == 0 {
            text.push_str("% checkpoint\n");
            comments += 1;
        }
        let neighbours = [v.checked_sub(1), Some(v + 1)]
            .into_iter()
            .flatten()
            .filter(|&u| u < n && u != lonely && v != lonely);
        let line: Vec<String> = neighbours.map(|u| (u + 1).to_string()).collect();
        writeln!(text, "{}", line.join(" ")).unwrap();
    }
    assert!(text.len() > 2 * input::BLOCK_BYTES, "{}", text.len());
    assert_eq!(
        load("big.graph", text.as_bytes()).unwrap(),
        undirected(n, &pairs)
    );
    // Break the last vertex's line: two header lines, the comments, n lines.
    let cut = text.trim_end().rfind('\n').unwrap() + 1;
    text.truncate(cut);
    text.push_str(&format!("{}\n", n + 1));
    let kind = error_at(
        "big_bad.graph",
        text.as_bytes(),
        2 + comments + u64::from(n),
    );
    assert!(
        matches!(
            kind,
            LoadErrorKind::IndexPastSize {
                field: Field::Neighbor,
                ..
            }
        ),
        "{kind:?}"
    );
}
