//! Any bytes, gzip or not, with the format detected from the content.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vyre_graph::load::{LoadOptions, load_reader};

fuzz_target!(|data: &[u8]| {
    let options = LoadOptions {
        isolated_vertex_allowance: 1 << 16,
        ..LoadOptions::default()
    };
    if let Ok(graph) = load_reader(std::path::Path::new("input"), data, options) {
        let n = graph.vertex_count();
        assert!(graph.out_edges().targets().iter().all(|&t| t < n));
    }
});
