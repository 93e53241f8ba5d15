//! Binary files whose checksum is valid but whose content is hostile.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::super::tests::{Scratch, gzip};
use super::*;
use crate::build::build_graph;
use crate::generate::{KroneckerSpec, grid_2d, kronecker};
use crate::load::{LoadOptions, load_graph, load_reader};
use crate::memory::LimitSource;

/// `bytes`, a whole binary file, with its CRC-32 recomputed: a mutation
/// then reaches the content checks instead of failing the checksum.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let body = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

fn file_of(graph: &Graph) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_binary(graph, &mut bytes).unwrap();
    bytes
}

fn directed_kron(scale: u32) -> Graph {
    kronecker(KroneckerSpec {
        scale,
        directed: true,
        ..KroneckerSpec::default()
    })
    .unwrap()
}

/// A header of `vertices` and `edges` with the given flags.
fn header(flags: u32, vertices: u64, edges: u64) -> Vec<u8> {
    let mut bytes = MAGIC.to_vec();
    for word in [VERSION, flags] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    for count in [vertices, edges] {
        bytes.extend_from_slice(&count.to_le_bytes());
    }
    bytes
}

fn offset_at(v: u64) -> usize {
    (HEADER_BYTES + 8 * v) as usize
}

fn offset(bytes: &[u8], v: u64) -> u64 {
    le_u64(&bytes[offset_at(v)..offset_at(v) + 8])
}

fn set_offset(bytes: &mut [u8], v: u64, value: u64) {
    bytes[offset_at(v)..offset_at(v) + 8].copy_from_slice(&value.to_le_bytes());
}

fn set_target(bytes: &mut [u8], vertices: u64, index: u64, value: u32) {
    let at = offset_at(vertices + 1) + 4 * index as usize;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// The errors of `bytes` loaded as a plain file (its size proves the
/// counts) and as gzip (a stream).
fn errors_of(bytes: &[u8], options: LoadOptions<'_>) -> [LoadError; 2] {
    let scratch = Scratch::new();
    let plain = load_graph(scratch.file("g.vcsr", bytes), options).unwrap_err();
    let zipped = load_graph(scratch.file("g.vcsr.gz", &gzip(bytes)), options).unwrap_err();
    for err in [&plain, &zipped] {
        assert!(err.to_string().contains("Fix: "), "{err}");
    }
    [plain, zipped]
}

/// [`errors_of`], which must agree.
fn error_of(bytes: &[u8], options: LoadOptions<'_>) -> LoadError {
    let [plain, zipped] = errors_of(bytes, options);
    assert_eq!(plain.kind(), zipped.kind(), "{plain} / {zipped}");
    plain
}

#[test]
fn resealing_reproduces_the_writers_checksum() {
    let good = file_of(&grid_2d(3, 3).unwrap());
    assert_eq!(reseal(good.clone()), good);
    let mut flipped = good.clone();
    set_target(&mut flipped, 9, 0, 8);
    assert_ne!(reseal(flipped.clone()), flipped);
}

#[test]
fn content_defects_behind_a_valid_checksum_are_typed_errors_at_their_byte() {
    // 9 vertices, 24 stored edges.
    let good = file_of(&grid_2d(3, 3).unwrap());
    let (n, m) = (9, 24);
    let mutate = |change: &dyn Fn(&mut Vec<u8>)| {
        let mut bytes = good.clone();
        change(&mut bytes);
        reseal(bytes)
    };
    let o5 = offset(&good, 5);
    let cases = [
        (
            mutate(&|b| set_offset(b, 0, 1)),
            CsrDefect::FirstOffset { found: 1 },
            offset_at(0),
        ),
        (
            mutate(&|b| set_offset(b, 4, o5 + 1)),
            CsrDefect::Decreasing {
                vertex: 4,
                start: o5 + 1,
                end: o5,
            },
            offset_at(5),
        ),
        (
            mutate(&|b| set_offset(b, n, m - 1)),
            CsrDefect::LastOffset {
                found: m - 1,
                targets: m,
            },
            offset_at(n),
        ),
        (
            mutate(&|b| set_target(b, n, 5, 9)),
            CsrDefect::TargetOutOfRange {
                index: 5,
                target: 9,
                vertices: n,
            },
            offset_at(n + 1) + 20,
        ),
        (
            mutate(&|b| set_target(b, n, m - 1, u32::MAX)),
            CsrDefect::TargetOutOfRange {
                index: m - 1,
                target: u32::MAX,
                vertices: n,
            },
            offset_at(n + 1) + 4 * (m as usize - 1),
        ),
    ];
    for (bytes, defect, byte) in cases {
        let err = error_of(&bytes, LoadOptions::default());
        assert_eq!(err.kind(), &LoadErrorKind::BinaryCsr { defect }, "{err}");
        assert_eq!(err.location(), Some(Location::Byte(byte as u64)), "{err}");
        assert!(err.to_string().contains("checksum matches"), "{err}");
    }
}

#[test]
fn a_directed_file_with_a_bad_target_fails_before_its_reverse_is_built() {
    let g = directed_kron(4);
    let (n, m) = (u64::from(g.vertex_count()), g.edge_count());
    let mut bytes = file_of(&g);
    set_target(&mut bytes, n, m - 1, 1_000_000);
    let err = error_of(&reseal(bytes), LoadOptions::default());
    assert!(
        matches!(
            err.kind(),
            LoadErrorKind::BinaryCsr {
                defect: CsrDefect::TargetOutOfRange {
                    target: 1_000_000,
                    ..
                }
            }
        ),
        "{err}"
    );
}

#[test]
fn the_isolated_vertex_allowance_applies_to_binary_files() {
    // 2^20 vertices, one edge: a valid 8 MiB file, 8 KiB gzipped.
    let g = build_graph(1 << 20, &[(0, 1)], crate::build::BuildOptions::UNDIRECTED).unwrap();
    let bytes = file_of(&g);
    let strict = LoadOptions {
        isolated_vertex_allowance: 1000,
        ..LoadOptions::default()
    };
    let err = error_of(&bytes, strict);
    assert_eq!(
        err.kind(),
        &LoadErrorKind::TooManyVertices {
            vertices: 1 << 20,
            edges: 2,
            allowance: 1000
        }
    );
    let loaded = load_reader(Path::new("g.vcsr"), &bytes[..], LoadOptions::default()).unwrap();
    assert_eq!(loaded, g);
}

/// Zeros without end, counting how many were read.
struct Zeros(Arc<AtomicU64>);

impl Read for Zeros {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        buf.fill(0);
        self.0.fetch_add(buf.len() as u64, Relaxed);
        Ok(buf.len())
    }
}

#[test]
fn a_header_declaring_2_pow_29_isolated_vertices_is_refused_before_reading_on() {
    // Well-formed as far as it goes: 4 GiB of zero offsets would follow.
    let served = Arc::new(AtomicU64::new(0));
    let stream = std::io::Cursor::new(header(0, 1 << 29, 0)).chain(Zeros(Arc::clone(&served)));
    let err = load_reader(Path::new("bomb.vcsr"), stream, LoadOptions::default()).unwrap_err();
    assert_eq!(
        err.kind(),
        &LoadErrorKind::TooManyVertices {
            vertices: 1 << 29,
            edges: 0,
            allowance: 1 << 26
        }
    );
    // Only the readers' first buffers were filled.
    assert!(served.load(Relaxed) <= 2 << 20, "{}", served.load(Relaxed));
}

#[test]
fn a_binary_graph_over_the_memory_limit_is_refused() {
    let g = directed_kron(10);
    let bytes = file_of(&g);
    let tight = LoadOptions {
        memory_limit: Some(bytes.len() as u64 / 2),
        ..LoadOptions::default()
    };
    // The plain file's size proves its counts: refused before reading.
    // The gzip stream is refused as what it holds passes the limit.
    let [plain, zipped] = errors_of(&bytes, tight);
    assert_eq!(plain.location(), None, "{plain}");
    assert!(
        matches!(zipped.location(), Some(Location::Byte(_))),
        "{zipped}"
    );
    for err in [plain, zipped] {
        let LoadErrorKind::Graph(GraphError::OutOfMemory {
            limit: Some(limit), ..
        }) = err.kind()
        else {
            panic!("{err}");
        };
        assert_eq!(limit.source, LimitSource::Configured);
        assert!(
            err.to_string().contains("LoadOptions::memory_limit"),
            "{err}"
        );
    }
    let roomy = LoadOptions {
        memory_limit: Some(1 << 30),
        ..LoadOptions::default()
    };
    assert_eq!(
        load_reader(Path::new("g.vcsr"), &bytes[..], roomy).unwrap(),
        g
    );
}

/// The test below, in a child process under an address-space limit.
const RLIMIT_CHILD: &str = "VYRE_GRAPH_RLIMIT_CHILD";

#[cfg(target_os = "linux")]
#[test]
fn an_allocation_refused_under_an_address_space_limit_is_a_typed_error() {
    let name =
        "load::binary::tests::an_allocation_refused_under_an_address_space_limit_is_a_typed_error";
    if let Some(path) = std::env::var_os(RLIMIT_CHILD) {
        // The estimate is lifted (a configured limit of u64::MAX), so only
        // the allocator can refuse the 2 GiB of offsets.
        let options = LoadOptions {
            memory_limit: Some(u64::MAX),
            isolated_vertex_allowance: u64::MAX,
            ..LoadOptions::default()
        };
        let err = load_graph(Path::new(&path), options).unwrap_err();
        assert!(
            matches!(
                err.kind(),
                LoadErrorKind::Graph(GraphError::OutOfMemory { limit: None, .. })
            ),
            "{err}"
        );
        println!("typed refusal: {err}");
        return;
    }
    // A file whose size proves 2^28 vertices (2 GiB of offsets); sparse,
    // so it takes no disk. An infallible allocation of them aborts the
    // process under `ulimit -v` 1 GiB.
    let scratch = Scratch::new();
    let vertices = 1u64 << 28;
    let path = scratch.file("sparse.vcsr", &header(0, vertices, 0));
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(HEADER_BYTES + 8 * (vertices + 1) + 4).unwrap();
    let out = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 1048576 && exec \"$@\"", "sh"])
        .arg(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(RLIMIT_CHILD, &path)
        .env("MALLOC_ARENA_MAX", "2")
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("typed refusal: "),
        "child {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
