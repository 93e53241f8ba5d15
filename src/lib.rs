//! vyre: breadth-first search and other graph waves on GPUs with persistent
//! megakernels.
#![forbid(unsafe_code)]

pub use vyre_driver as driver;
pub use vyre_graph as graph;
pub use vyre_runtime as runtime;
