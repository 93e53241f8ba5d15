use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use flate2::Compression;
use flate2::write::GzEncoder;

use super::*;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{KroneckerSpec, grid_2d, kronecker};
use crate::save::{save_edge_list, save_matrix_market};

/// A scratch directory removed when dropped.
pub(super) struct Scratch(PathBuf);

impl Scratch {
    pub(super) fn new() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "vyre-graph-load-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub(super) fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn load(path: &Path) -> Result<Graph, LoadError> {
    load_graph(path, LoadOptions::default())
}

fn edges_of(g: &Graph) -> Vec<(u32, u32)> {
    (0..g.vertex_count())
        .flat_map(|u| g.out_edges().neighbors(u).iter().map(move |&v| (u, v)))
        .collect()
}

/// Load `text` as `name` and return the error, checking that its message
/// names the file and ends with a fix.
fn error_of(name: &str, bytes: &[u8]) -> LoadError {
    let scratch = Scratch::new();
    let path = scratch.file(name, bytes);
    let err = load(&path).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with(&path.display().to_string()), "{text}");
    assert!(text.contains("Fix: "), "{text}");
    err
}

fn assert_line(err: &LoadError, line: u64) {
    assert_eq!(err.location(), Some(Location::Line(line)), "{err}");
    assert!(err.to_string().contains(&format!(":{line}: ")), "{err}");
}

// ---- formats ----

#[test]
fn matrix_market_general_is_directed_and_one_based() {
    let s = Scratch::new();
    let p = s.file(
        "g.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n% a comment\n3 3 3\n1 2\n2 3\n3 1\n",
    );
    let g = load(&p).unwrap();
    assert!(!g.is_symmetric());
    assert_eq!(edges_of(&g), vec![(0, 1), (1, 2), (2, 0)]);
    assert_eq!(g.in_edges().neighbors(0), &[2]);
    let sym = load_graph(
        &p,
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(sym.is_symmetric());
    assert_eq!(sym.edge_count(), 6);
}

#[test]
fn matrix_market_symmetric_lower_triangle_becomes_undirected() {
    // Real-world quirks: values, a diagonal entry, comments after the
    // banner, CRLF line ends, blank lines, mixed case words.
    let text = b"%%MatrixMarket Matrix Coordinate Real Symmetric\r\n%\r\n% from a solver\r\n4 4 4\r\n1 1 2.5\r\n2 1 -1e-3\r\n\r\n4 2 7\r\n3 3 1.0\r\n";
    let s = Scratch::new();
    let g = load(&s.file("lower.mtx", text)).unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.vertex_count(), 4);
    // Diagonal entries are self-loops, removed by default.
    assert_eq!(edges_of(&g), vec![(0, 1), (1, 0), (1, 3), (3, 1)]);
    let keep_loops = LoadOptions {
        build: BuildOptions {
            remove_self_loops: false,
            ..BuildOptions::UNDIRECTED
        },
        ..LoadOptions::default()
    };
    let g = load_graph(s.file("lower2.mtx", text), keep_loops).unwrap();
    assert_eq!(g.out_edges().neighbors(0), &[0, 1]);
}

#[test]
fn matrix_market_integer_skew_and_complex_hermitian() {
    let s = Scratch::new();
    let g = load(&s.file(
        "skew.mtx",
        b"%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 -4\n3 2 +5\n",
    ))
    .unwrap();
    assert_eq!(edges_of(&g), vec![(0, 1), (1, 0), (1, 2), (2, 1)]);
    let g = load(&s.file(
        "herm.mtx",
        b"%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1.0 -2.0\n",
    ))
    .unwrap();
    assert_eq!(edges_of(&g), vec![(0, 1), (1, 0)]);
}

#[test]
fn rectangular_matrix_uses_the_larger_dimension() {
    let s = Scratch::new();
    let g = load(&s.file(
        "rect.mtx",
        b"%%MatrixMarket matrix coordinate pattern general\n2 5 1\n1 5\n",
    ))
    .unwrap();
    assert_eq!(g.vertex_count(), 5);
    assert_eq!(edges_of(&g), vec![(0, 4)]);
}

const SNAP: &[u8] = b"# Directed graph (each unordered pair of nodes is saved once): toy.txt\n# Nodes: 5 Edges: 4\n# FromNodeId\tToNodeId\n3\t4\n4\t3\t1712345678\n\n7 3 0.5 extra\n3\t7\n";

#[test]
fn snap_comments_tabs_and_extra_columns() {
    let s = Scratch::new();
    let g = load(&s.file("toy.txt", SNAP)).unwrap();
    assert!(!g.is_symmetric());
    // Ids as written: the vertex count is the largest id plus one.
    assert_eq!(g.vertex_count(), 8);
    assert_eq!(edges_of(&g), vec![(3, 4), (3, 7), (4, 3), (7, 3)]);
    let g = load_graph(
        s.file("toy2.txt", SNAP),
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(g.is_symmetric());
    assert_eq!(edges_of(&g), vec![(3, 4), (3, 7), (4, 3), (7, 3)]);
}

#[test]
fn gzip_files_load_like_plain_ones_even_multi_member() {
    let s = Scratch::new();
    let plain = load(&s.file("toy.txt", SNAP)).unwrap();
    assert_eq!(load(&s.file("toy.txt.gz", &gzip(SNAP))).unwrap(), plain);
    // bgzip-style: two gzip members back to back.
    let (a, b) = SNAP.split_at(SNAP.len() / 2);
    let mut two = gzip(a);
    two.extend(gzip(b));
    assert_eq!(load(&s.file("two.txt.gz", &two)).unwrap(), plain);
    let mtx = b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n";
    let g = load(&s.file("m.mtx.gz", &gzip(mtx))).unwrap();
    assert_eq!(g, load(&s.file("m.mtx", mtx)).unwrap());
}

#[test]
fn writers_round_trip_through_the_loaders() {
    let s = Scratch::new();
    let undirected = kronecker(KroneckerSpec {
        scale: 10,
        ..KroneckerSpec::default()
    })
    .unwrap();
    let directed = kronecker(KroneckerSpec {
        scale: 10,
        directed: true,
        ..KroneckerSpec::default()
    })
    .unwrap();
    for (i, g) in [&undirected, &directed].into_iter().enumerate() {
        for name in ["g.mtx", "g.mtx.gz"] {
            let path = s.0.join(format!("{i}{name}"));
            save_matrix_market(g, &path).unwrap();
            assert_eq!(&load(&path).unwrap(), g, "{name}");
        }
        let path = s.0.join(format!("{i}g.vyre"));
        save_binary(g, &path).unwrap();
        assert_eq!(&load(&path).unwrap(), g);
    }
    let path = s.0.join("g.el");
    save_edge_list(&undirected, &path).unwrap();
    let back = load_graph(
        &path,
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    // The edge list's vertex count is the largest id with an edge, plus one.
    assert_eq!(edges_of(&back), edges_of(&undirected));
}

#[test]
fn binary_is_detected_by_magic_whatever_the_name() {
    let s = Scratch::new();
    let g = grid_2d(4, 3).unwrap();
    let path = s.0.join("grid.mtx");
    save_binary(&g, &path).unwrap();
    assert_eq!(load(&path).unwrap(), g);
    let gz = s.file("grid.bin.gz", &gzip(&std::fs::read(&path).unwrap()));
    assert_eq!(load(&gz).unwrap(), g);
}

#[test]
fn progress_reports_bytes_up_to_the_file_size() {
    let s = Scratch::new();
    let path = s.file("toy.txt", SNAP);
    let seen = Mutex::new(Vec::new());
    let report = |p: Progress| seen.lock().unwrap().push(p);
    load_graph(
        &path,
        LoadOptions {
            progress: Some(&report),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let seen = seen.into_inner().unwrap();
    let last = *seen.last().unwrap();
    assert_eq!(last.bytes_read, SNAP.len() as u64);
    assert_eq!(last.total_bytes, Some(SNAP.len() as u64));
    assert!(seen.windows(2).all(|w| w[0].bytes_read <= w[1].bytes_read));
}

#[test]
fn files_spanning_many_blocks_keep_order_and_line_numbers() {
    // About 20 MiB: three blocks of text.
    let n = 1_500_000u32;
    let mut text =
        format!("%%MatrixMarket matrix coordinate pattern general\n{n} {n} {n}\n").into_bytes();
    for i in 0..n {
        writeln!(text, "{} {}", i + 1, (i * 7 + 3) % n + 1).unwrap();
    }
    let s = Scratch::new();
    let g = load(&s.file("big.mtx", &text)).unwrap();
    let edges: Vec<(u32, u32)> = (0..n).map(|i| (i, (i * 7 + 3) % n)).collect();
    assert_eq!(g, build_graph(n, &edges, BuildOptions::DIRECTED).unwrap());
    // Break the last entry: its line is n + 2.
    let cut = text.len() - 2;
    text.truncate(cut);
    text.extend_from_slice(b"x\n");
    let err = error_of("big_bad.mtx", &text);
    assert_line(&err, u64::from(n) + 2);
}

// ---- bad input ----

const BANNER: &str = "%%MatrixMarket matrix coordinate pattern general\n";

fn mtx(body: &str) -> Vec<u8> {
    format!("{BANNER}{body}").into_bytes()
}

#[test]
fn truncated_files_are_reported_at_their_end() {
    let err = error_of("t.mtx", &mtx("3 3 5\n1 2\n2 3\n3 1\n"));
    assert_eq!(
        err.kind(),
        &LoadErrorKind::Truncated {
            declared: 5,
            found: 3
        }
    );
    assert_line(&err, 5);
    // Cut in the middle of a line.
    let err = error_of("t2.mtx", &mtx("3 3 3\n1 2\n2 "));
    assert!(matches!(
        err.kind(),
        LoadErrorKind::BadField {
            field: Field::Column,
            problem: FieldProblem::Missing,
            ..
        }
    ));
    assert_line(&err, 4);
}

#[test]
fn a_header_claiming_huge_counts_allocates_nothing_for_them() {
    let err = error_of("huge.mtx", &mtx("3 3 1000000000000000000\n1 2\n"));
    assert_eq!(
        err.kind(),
        &LoadErrorKind::Truncated {
            declared: 1_000_000_000_000_000_000,
            found: 1
        }
    );
    let err = error_of("wide.mtx", &mtx("4000000000 4000000000 1\n1 1\n"));
    assert!(
        matches!(
            err.kind(),
            LoadErrorKind::TooManyVertices {
                vertices: 4_000_000_000,
                edges: 1,
                ..
            }
        ),
        "{err}"
    );
    let err = error_of("far.txt", b"0 4000000000\n");
    assert!(
        matches!(err.kind(), LoadErrorKind::TooManyVertices { .. }),
        "{err}"
    );
}

#[test]
fn more_entries_than_declared_is_an_error_at_the_first_extra() {
    let err = error_of("extra.mtx", &mtx("3 3 2\n1 2\n% note\n2 3\n3 1\n"));
    assert_eq!(err.kind(), &LoadErrorKind::TooManyEntries { declared: 2 });
    assert_line(&err, 6);
}

#[test]
fn zero_and_out_of_range_indices() {
    let err = error_of("zero.mtx", &mtx("3 3 2\n1 2\n0 3\n"));
    assert_eq!(err.kind(), &LoadErrorKind::ZeroIndex { field: Field::Row });
    assert_line(&err, 4);
    let err = error_of("past.mtx", &mtx("3 3 2\n1 2\n2 4\n"));
    assert_eq!(
        err.kind(),
        &LoadErrorKind::IndexPastSize {
            field: Field::Column,
            index: 4,
            size: 3
        }
    );
    assert_line(&err, 4);
}

#[test]
fn negative_and_non_numeric_fields() {
    let cases: [(&str, &[u8], Field, FieldProblem, u64); 6] = [
        (
            "neg.mtx",
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n-1 2\n",
            Field::Row,
            FieldProblem::Negative,
            3,
        ),
        (
            "nan.mtx",
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 two\n",
            Field::Column,
            FieldProblem::NotNumeric,
            3,
        ),
        (
            "val.mtx",
            b"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 abc\n",
            Field::Value,
            FieldProblem::NotNumeric,
            3,
        ),
        (
            "noval.mtx",
            b"%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2\n",
            Field::Value,
            FieldProblem::Missing,
            3,
        ),
        (
            "neg.txt",
            b"# c\n1 2\n3 -4\n",
            Field::Target,
            FieldProblem::Negative,
            3,
        ),
        (
            "word.txt",
            b"a b\n",
            Field::Source,
            FieldProblem::NotNumeric,
            1,
        ),
    ];
    for (name, text, field, problem, line) in cases {
        let err = error_of(name, text);
        match err.kind() {
            LoadErrorKind::BadField {
                field: f,
                problem: p,
                ..
            } => {
                assert_eq!((*f, *p), (field, problem), "{name}: {err}");
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_line(&err, line);
    }
}

#[test]
fn sizes_beyond_u32_ids() {
    let err = error_of("big.mtx", &mtx("5000000000 5 1\n1 1\n"));
    assert_eq!(
        err.kind(),
        &LoadErrorKind::SizeTooLarge {
            rows: 5_000_000_000,
            columns: 5
        }
    );
    assert_line(&err, 2);
    for id in ["4294967295", "99999999999999999999999"] {
        let err = error_of("big.txt", format!("0 1\n{id} 2\n").as_bytes());
        assert!(
            matches!(
                err.kind(),
                LoadErrorKind::BadField {
                    field: Field::Source,
                    problem: FieldProblem::TooLarge,
                    ..
                }
            ),
            "{err}"
        );
        assert_line(&err, 2);
    }
}

#[test]
fn wrong_banners_and_size_lines() {
    let err = error_of(
        "a.mtx",
        b"%MatrixMarket matrix coordinate pattern general\n1 1 0\n",
    );
    assert!(
        matches!(err.kind(), LoadErrorKind::BadBanner { .. }),
        "{err}"
    );
    assert_line(&err, 1);
    let err = error_of("b.mtx", b"1 2\n2 3\n");
    assert!(
        matches!(err.kind(), LoadErrorKind::BadBanner { .. }),
        "{err}"
    );
    let err = error_of(
        "c.mtx",
        b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
    );
    assert_eq!(
        err.kind(),
        &LoadErrorKind::UnsupportedMatrixMarket {
            found: "array".into()
        }
    );
    let err = error_of("d.mtx", b"%%MatrixMarket matrix coordinate pattern\n");
    assert!(
        matches!(err.kind(), LoadErrorKind::BadBanner { .. }),
        "{err}"
    );
    let err = error_of("e.mtx", &mtx("% only comments\n"));
    assert!(
        matches!(err.kind(), LoadErrorKind::BadSizeLine { .. }),
        "{err}"
    );
    let err = error_of("f.mtx", &mtx("3 3\n1 2\n"));
    assert!(
        matches!(err.kind(), LoadErrorKind::BadSizeLine { .. }),
        "{err}"
    );
    assert_line(&err, 2);
}

#[test]
fn broken_gzip_is_reported_with_a_byte_offset() {
    let mut text = Vec::new();
    for i in 0..20_000 {
        writeln!(text, "{i} {}", i + 1).unwrap();
    }
    let good = gzip(&text);
    let mut corrupt = good.clone();
    let mid = corrupt.len() / 2;
    for b in &mut corrupt[mid..mid + 16] {
        *b ^= 0x5a;
    }
    let truncated = &good[..good.len() / 2];
    for (name, bytes) in [("corrupt.txt.gz", &corrupt[..]), ("cut.txt.gz", truncated)] {
        let err = error_of(name, bytes);
        assert!(
            matches!(err.kind(), LoadErrorKind::Gzip { .. }),
            "{name}: {err}"
        );
        assert!(matches!(err.location(), Some(Location::Byte(_))), "{err}");
    }
    let err = error_of("empty.txt.gz", &gzip(b""));
    assert_eq!(err.kind(), &LoadErrorKind::Empty);
}

fn binary_of(g: &Graph) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_binary(g, &mut bytes).unwrap();
    bytes
}

#[test]
fn binary_magic_version_checksum_and_length() {
    let good = binary_of(&grid_2d(5, 5).unwrap());
    let mut magic = good.clone();
    magic[7] = b'X';
    assert!(matches!(
        error_of("m.vyre", &magic).kind(),
        LoadErrorKind::BadMagic { .. }
    ));
    let mut version = good.clone();
    version[8] = 9;
    let err = error_of("v.vyre", &version);
    assert_eq!(
        err.kind(),
        &LoadErrorKind::BadVersion {
            version: 9,
            flags: 0
        }
    );
    let mut flipped = good.clone();
    flipped[100] ^= 1;
    assert!(matches!(
        error_of("c.vyre", &flipped).kind(),
        LoadErrorKind::BadChecksum { .. }
    ));
    let err = error_of("t.vyre", &good[..good.len() - 10]);
    assert!(
        matches!(err.kind(), LoadErrorKind::BinaryLength { .. }),
        "{err}"
    );
    // Counts claiming terabytes in a 40-byte file: refused before allocating.
    let mut claims = good[..32].to_vec();
    claims[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    claims.extend_from_slice(&[0; 8]);
    let err = error_of("claims.vyre", &claims);
    assert!(
        matches!(err.kind(), LoadErrorKind::BinaryLength { .. }),
        "{err}"
    );
    // The same through gzip (no file size to check): fails on the short read.
    let err = error_of("claims.vyre.gz", &gzip(&claims));
    assert!(
        matches!(err.kind(), LoadErrorKind::BinaryLength { .. }),
        "{err}"
    );
    let err = error_of("short.vyre", &good[..20]);
    assert!(
        matches!(err.kind(), LoadErrorKind::BinaryLength { .. }),
        "{err}"
    );
}

#[test]
fn empty_files_directories_devices_and_missing_paths() {
    assert_eq!(error_of("empty.mtx", b"").kind(), &LoadErrorKind::Empty);
    let scratch = Scratch::new();
    let err = load(&scratch.0).unwrap_err();
    assert_eq!(err.kind(), &LoadErrorKind::IsDirectory);
    assert!(err.to_string().contains("Fix: "));
    let err = load(&scratch.0.join("absent.mtx")).unwrap_err();
    assert_eq!(err.kind(), &LoadErrorKind::NotFound);
    assert!(err.to_string().contains("absent.mtx"));
    // A device never ends; it is refused instead of read forever.
    let err = load(Path::new("/dev/zero")).unwrap_err();
    assert_eq!(err.kind(), &LoadErrorKind::NotAFile);
}

#[test]
fn a_line_without_end_is_refused_not_buffered_forever() {
    let long = vec![b'1'; super::input::MAX_LINE_BYTES + 10];
    let err = error_of("long.txt", &long);
    assert!(
        matches!(err.kind(), LoadErrorKind::LineTooLong { .. }),
        "{err}"
    );
}
