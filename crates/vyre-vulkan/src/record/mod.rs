//! Command buffers recorded once and submitted again: a chain of levels is
//! a list of steps (a pipeline, its descriptor set and where its grid comes
//! from), recorded with pipeline barriers between dispatches and a
//! timestamp before and after the chain, and kept in a cache keyed by the
//! graph and the chain's shape, so that a chained level costs the device's
//! dispatch and nothing on the host.

pub(crate) mod cache;
pub(crate) mod chain;
pub(crate) mod shape;
pub(crate) mod timestamps;

pub(crate) use cache::CommandCache;
pub(crate) use chain::{Recorded, Step, record_chain};
pub(crate) use shape::ChainShape;
pub(crate) use timestamps::Timestamps;
