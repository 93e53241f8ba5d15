//! Any bytes loaded as a DIMACS shortest-path file give a graph or a typed error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vyre_graph::load::{Format, LoadOptions, load_reader};

fuzz_target!(|data: &[u8]| {
    let options = LoadOptions {
        format: Some(Format::Dimacs),
        isolated_vertex_allowance: 1 << 16,
        ..LoadOptions::default()
    };
    if let Err(err) = load_reader(std::path::Path::new("x.gr"), data, options) {
        assert!(err.to_string().contains("Fix: "));
    }
});
