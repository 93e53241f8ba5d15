//! Property-based fuzzing of the parsers, run with the ordinary test suite:
//! arbitrary bytes and mutations of valid files must give a graph or a
//! typed error, never a panic or a hang. (The `fuzz/` directory at the
//! repository root holds the same targets for `cargo fuzz`.)

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;
use proptest::prelude::*;
use vyre_graph::Graph;
use vyre_graph::generate::{KroneckerSpec, kronecker};
use vyre_graph::load::{Format, LoadOptions, load_reader, write_binary};
use vyre_graph::save::{write_edge_list, write_matrix_market};
use vyre_graph::spec::GraphSpec;

fn check(name: &str, bytes: &[u8], format: Option<Format>) -> Result<(), TestCaseError> {
    let options = LoadOptions {
        format,
        // Keep the allowance small so that fuzzed size lines stay cheap.
        isolated_vertex_allowance: 1 << 16,
        ..LoadOptions::default()
    };
    match load_reader(Path::new(name), bytes, options) {
        Ok(graph) => {
            let csr = graph.out_edges();
            prop_assert_eq!(csr.offsets().len(), graph.vertex_count() as usize + 1);
            prop_assert!(csr.targets().iter().all(|&t| t < graph.vertex_count()));
        }
        Err(err) => {
            let text = err.to_string();
            prop_assert!(text.contains("Fix: "), "{}", text);
            prop_assert!(text.starts_with(name), "{}", text);
        }
    }
    Ok(())
}

/// `graph` as a DIMACS shortest-path file (unit weights).
fn dimacs(graph: &Graph) -> Vec<u8> {
    let csr = graph.out_edges();
    let mut text = format!(
        "c sample\np sp {} {}\n",
        graph.vertex_count(),
        csr.edge_count()
    );
    for u in 0..graph.vertex_count() {
        for &v in csr.neighbors(u) {
            text.push_str(&format!("a {} {} 1\n", u + 1, v + 1));
        }
    }
    text.into_bytes()
}

/// An undirected `graph` as a METIS file with edge weights.
fn metis(graph: &Graph) -> Vec<u8> {
    let csr = graph.out_edges();
    let mut text = format!(
        "% sample\n{} {} 1\n",
        graph.vertex_count(),
        csr.edge_count() / 2
    );
    for u in 0..graph.vertex_count() {
        let line: Vec<String> = csr
            .neighbors(u)
            .iter()
            .map(|v| format!("{} 1", v + 1))
            .collect();
        text.push_str(&line.join(" "));
        text.push('\n');
    }
    text.into_bytes()
}

fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let undirected = kronecker(KroneckerSpec {
        scale: 5,
        ..KroneckerSpec::default()
    })
    .unwrap();
    let directed = kronecker(KroneckerSpec {
        scale: 5,
        directed: true,
        ..KroneckerSpec::default()
    })
    .unwrap();
    let write = |f: fn(&Graph, &mut dyn Write) -> std::io::Result<()>, g: &Graph| {
        let mut out = Vec::new();
        f(g, &mut out).unwrap();
        out
    };
    let mut binary = Vec::new();
    write_binary(&directed, &mut binary).unwrap();
    vec![
        ("sym.mtx", write(write_matrix_market, &undirected)),
        ("dir.mtx", write(write_matrix_market, &directed)),
        ("real.mtx", b"%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n2 1 1.5\n3 1 -2\n4 3 1e3\n".to_vec()),
        ("edges.txt", write(write_edge_list, &directed)),
        ("graph.vyre", binary),
        ("roads.gr", dimacs(&directed)),
        ("roads.graph", metis(&undirected)),
    ]
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Truncate(usize),
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    if bytes.is_empty() {
        return;
    }
    match *edit {
        Edit::Flip(i, x) => {
            let i = i % bytes.len();
            bytes[i] ^= x.max(1);
        }
        Edit::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
        Edit::Delete(i) => {
            bytes.remove(i % bytes.len());
        }
        Edit::Truncate(i) => bytes.truncate(i % bytes.len()),
    }
}

fn edit() -> impl Strategy<Value = Edit> {
    // Bytes that matter to the parsers, more often than chance would pick them.
    let byte = prop_oneof![
        any::<u8>(),
        Just(b'\n'),
        Just(b' '),
        Just(b'%'),
        Just(b'#'),
        Just(b'-'),
        Just(b'0'),
        Just(b'9'),
    ];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, x)| Edit::Flip(i, x)),
        (any::<usize>(), byte).prop_map(|(i, b)| Edit::Insert(i, b)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        for (name, format) in [
            ("x.mtx", None),
            ("x.txt", None),
            ("x.vyre", Some(Format::Binary)),
            ("x.mtx", Some(Format::MatrixMarket)),
            ("x.gr", Some(Format::Dimacs)),
            ("x.graph", Some(Format::Metis)),
        ] {
            check(name, &bytes, format)?;
        }
    }

    #[test]
    fn mutated_files_never_panic(
        which in 0usize..7,
        edits in prop::collection::vec(edit(), 1..6),
        compress in any::<bool>(),
    ) {
        let (name, original) = &samples()[which];
        let mut bytes = original.clone();
        for e in &edits {
            apply(&mut bytes, e);
        }
        check(name, &bytes, None)?;
        if compress {
            // Mutate inside and outside the compression.
            let mut packed = gzip(&bytes);
            apply(&mut packed, &edits[0]);
            check(name, &packed, None)?;
        }
    }

    #[test]
    fn mutated_headers_never_panic(
        rows in any::<u64>(), cols in any::<u64>(), entries in any::<u64>(),
        body in "[0-9 \\-\n%]{0,80}",
    ) {
        let text = format!("%%MatrixMarket matrix coordinate pattern general\n{rows} {cols} {entries}\n{body}");
        check("h.mtx", text.as_bytes(), None)?;
    }

    #[test]
    fn mutated_road_headers_never_panic(
        n in any::<u64>(), m in any::<u64>(), fmt in 0u64..200,
        body in "[0-9 \\-\n%ac]{0,80}",
    ) {
        check("h.gr", format!("c x\np sp {n} {m}\n{body}").as_bytes(), None)?;
        check("h.graph", format!("{n} {m} {fmt}\n{body}").as_bytes(), None)?;
    }

    #[test]
    fn arbitrary_spec_strings_never_panic(text in "\\PC{0,24}") {
        if let Ok(spec) = text.parse::<GraphSpec>() {
            prop_assert_eq!(spec.to_string().parse::<GraphSpec>().ok(), Some(spec));
        }
    }
}
