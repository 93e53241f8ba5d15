//! Allocations that report a refusal instead of aborting the process.

use rayon::prelude::*;

use crate::GraphError;

fn refused<T>(len: usize, what: impl FnOnce() -> String) -> GraphError {
    GraphError::OutOfMemory {
        what: what(),
        needed: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        limit: None,
    }
}

/// Grow `vec` to hold `additional` more (amortized, like `Vec::reserve`).
pub(crate) fn try_reserve<T>(
    vec: &mut Vec<T>,
    additional: usize,
    what: impl FnOnce() -> String,
) -> Result<(), GraphError> {
    vec.try_reserve(additional)
        .map_err(|_| refused::<T>(vec.len().saturating_add(additional), what))
}

/// An empty vector with room for exactly `len`.
pub(crate) fn try_with_capacity<T>(
    len: usize,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, GraphError> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(len)
        .map_err(|_| refused::<T>(len, what))?;
    Ok(vec)
}

/// `len` default values (zeros), written in parallel: the pages are first
/// touched by many threads, as they would be by the parallel code that
/// fills the array next.
pub(crate) fn try_zeroed<T: Default + Clone + Send + Sync>(
    len: usize,
    what: impl FnOnce() -> String,
) -> Result<Vec<T>, GraphError> {
    let mut vec = try_with_capacity(len, what)?;
    vec.par_extend(rayon::iter::repeat_n(T::default(), len));
    Ok(vec)
}
