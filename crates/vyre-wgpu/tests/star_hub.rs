//! A star whose hub has 100,000 leaves: more edges than lavapipe lets one
//! invocation loop over (65,535), so every topology must share the hub's
//! adjacency list among many invocations.

mod common;

vyre_testkit::suite_tests!(common::run =>
    star_hub::star_with_a_100k_leaf_hub_from_hub_and_from_leaf,
);
