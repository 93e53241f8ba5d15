//! Every topology, forced for whole searches, on every graph shape.

mod common;

vyre_testkit::suite_tests!(common::run =>
    topologies::every_topology_matches_the_reference_on_every_shape,
);
