//! Any string parses to a spec that prints back to itself, or to an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vyre_graph::spec::GraphSpec;

fuzz_target!(|text: &str| {
    if let Ok(spec) = text.parse::<GraphSpec>() {
        assert_eq!(spec.to_string().parse::<GraphSpec>().ok(), Some(spec));
    }
});
