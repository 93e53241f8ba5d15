//! The limits a load works within: decompressed bytes and host memory.

use std::io::Write;
use std::path::Path;

use super::tests::gzip;
use super::*;
use crate::GraphError;
use crate::generate::grid_2d;
use crate::memory::LimitSource;

/// Edge-list text of `edges` edges of a path.
fn path_text(edges: u32) -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..edges {
        writeln!(text, "{i} {}", i + 1).unwrap();
    }
    text
}

/// Matrix Market text of the same path (1-based).
fn path_mtx(edges: u32) -> Vec<u8> {
    let mut text = Vec::new();
    writeln!(text, "%%MatrixMarket matrix coordinate pattern general").unwrap();
    writeln!(text, "{0} {0} {1}", edges + 1, edges).unwrap();
    for i in 1..=edges {
        writeln!(text, "{i} {}", i + 1).unwrap();
    }
    text
}

/// DIMACS shortest-path text of the same path (1-based arcs, one way).
fn path_gr(edges: u32) -> Vec<u8> {
    let mut text = Vec::new();
    writeln!(text, "c a path\np sp {} {edges}", edges + 1).unwrap();
    for i in 1..=edges {
        writeln!(text, "a {i} {} 7", i + 1).unwrap();
    }
    text
}

/// METIS adjacency text of the same path (undirected: both directions).
fn path_metis(edges: u32) -> Vec<u8> {
    let n = edges + 1;
    let mut text = Vec::new();
    writeln!(text, "{n} {edges}").unwrap();
    for v in 1..=n {
        let neighbours: Vec<String> = [v - 1, v + 1]
            .into_iter()
            .filter(|&w| w >= 1 && w <= n)
            .map(|w| w.to_string())
            .collect();
        writeln!(text, "{}", neighbours.join(" ")).unwrap();
    }
    text
}

/// One file of each format, each over 1 MiB.
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let mut binary = Vec::new();
    write_binary(&grid_2d(300, 300).unwrap(), &mut binary).unwrap();
    vec![
        ("p.txt", path_text(120_000)),
        ("p.mtx", path_mtx(120_000)),
        ("p.gr", path_gr(120_000)),
        ("p.graph", path_metis(120_000)),
        ("g.vyre", binary),
    ]
}

fn load_with(name: &str, bytes: &[u8], options: LoadOptions<'_>) -> Result<Graph, LoadError> {
    load_reader(Path::new(name), bytes, options)
}

fn decompressing(limit: u64) -> LoadOptions<'static> {
    LoadOptions {
        max_decompressed_bytes: limit,
        ..LoadOptions::default()
    }
}

#[test]
fn gzip_input_may_expand_up_to_the_limit_in_every_format() {
    for (name, plain) in samples() {
        let len = plain.len() as u64;
        assert!(len > 1 << 20, "{name}: {len}");
        let zipped = gzip(&plain);
        let expected = load_with(name, &plain, LoadOptions::default()).unwrap();
        assert_eq!(
            load_with(name, &zipped, decompressing(len)).unwrap(),
            expected,
            "{name}"
        );
        let err = load_with(name, &zipped, decompressing(len - 1)).unwrap_err();
        assert_eq!(
            err.kind(),
            &LoadErrorKind::DecompressedTooLarge { limit: len - 1 },
            "{name}: {err}"
        );
        assert!(matches!(err.location(), Some(Location::Byte(_))), "{err}");
        let text = err.to_string();
        assert!(text.contains("Fix: "), "{text}");
        assert!(text.contains("--max-decompressed-bytes"), "{text}");
        // Plain input has no such limit.
        assert_eq!(load_with(name, &plain, decompressing(1)).unwrap(), expected);
    }
}

/// `members` gzip members of 1 MiB of `byte` each, back to back: a
/// small file that expands without end as far as a loader can tell.
fn bomb(prefix: &[u8], byte: u8, members: usize) -> Vec<u8> {
    let member = gzip(&vec![byte; 1 << 20]);
    let mut bytes = gzip(prefix);
    for _ in 0..members {
        bytes.extend_from_slice(&member);
    }
    bytes
}

#[test]
fn a_zip_bomb_is_stopped_at_the_limit() {
    let mut header = binary::MAGIC.to_vec();
    header.extend_from_slice(&binary::VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    header.extend_from_slice(&(1u64 << 26).to_le_bytes());
    header.extend_from_slice(&0u64.to_le_bytes());
    // Blank lines are a valid, empty edge list; zeros after a binary
    // header are valid offsets.
    for (name, bytes) in [
        ("blank.txt.gz", bomb(b"", b'\n', 64)),
        ("zeros.vcsr.gz", bomb(&header, 0, 64)),
    ] {
        assert!(bytes.len() < 200 << 10, "{name}: {}", bytes.len());
        let err = load_with(name, &bytes, decompressing(8 << 20)).unwrap_err();
        assert_eq!(
            err.kind(),
            &LoadErrorKind::DecompressedTooLarge { limit: 8 << 20 },
            "{name}: {err}"
        );
    }
}

fn memory(limit: u64) -> LoadOptions<'static> {
    LoadOptions {
        memory_limit: Some(limit),
        ..LoadOptions::default()
    }
}

/// The out-of-memory error inside a load error, with the limit it names.
fn out_of_memory(err: &LoadError) -> (&str, MemoryLimit) {
    match err.kind() {
        LoadErrorKind::Graph(GraphError::OutOfMemory {
            what,
            limit: Some(limit),
            ..
        }) => (what, *limit),
        _ => panic!("not out of memory: {err}"),
    }
}

#[test]
fn text_edges_are_held_and_built_only_within_the_memory_limit() {
    // 100,000 edges: 800 KB held as pairs, more to build.
    // METIS lists each undirected edge from both ends: twice the pairs.
    for (name, bytes, held) in [
        ("p.txt", path_text(100_000), 800_000),
        ("p.mtx", path_mtx(100_000), 800_000),
        ("p.gr", path_gr(100_000), 800_000),
        ("p.graph", path_metis(100_000), 1_600_000),
    ] {
        let err = load_with(name, &bytes, memory(held / 2)).unwrap_err();
        let (what, limit) = out_of_memory(&err);
        assert!(
            what.starts_with("holding the ") && what.ends_with(" edges read so far"),
            "{err}"
        );
        assert_eq!(limit.source, LimitSource::Configured);
        assert!(matches!(err.location(), Some(Location::Line(_))), "{err}");
        // The edges fit; their build does not.
        let err = load_with(name, &bytes, memory(held + 200_000)).unwrap_err();
        let (what, _) = out_of_memory(&err);
        assert!(
            what.starts_with("building a graph of 100001 vertices"),
            "{err}"
        );
        assert!(err.to_string().contains("Fix: "), "{err}");
        let graph = load_with(name, &bytes, memory(1 << 30)).unwrap();
        assert_eq!(graph.vertex_count(), 100_001, "{name}");
    }
}
