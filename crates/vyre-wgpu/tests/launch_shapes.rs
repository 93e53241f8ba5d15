//! Every topology at every workgroup width the engine may pick, with grids
//! that cover every slot, grids of one workgroup (the kernels stride), and
//! grids spread over y and z.

mod common;

vyre_testkit::launch_shapes_tests!(common::run);
