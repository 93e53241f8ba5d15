//! Every topology, forced for whole searches, on every graph shape.

mod common;

vyre_testkit::topologies_tests!(common::run);
