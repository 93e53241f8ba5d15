//! Every topology at every workgroup width the engine may pick, with grids
//! that cover every slot, grids of one workgroup (the kernels stride), and
//! grids spread over y and z.

mod common;

vyre_testkit::suite_tests!(common::run =>
    launch_shapes::every_width_and_grid_shape_gives_the_reference_depths,
);
