//! vyre wgpu backend.
