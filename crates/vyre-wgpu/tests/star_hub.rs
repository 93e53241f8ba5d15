//! A star whose hub has 100,000 leaves: more edges than lavapipe lets one
//! invocation loop over (65,535), so every topology must share the hub's
//! adjacency list among many invocations.

mod common;

vyre_testkit::star_hub_tests!(common::run);
