//! [`exercise`]: a fixed script of collectives whose every result is known
//! in advance, for checking any [`Communicator`] implementation (the
//! thread group in tests, a backend's collective library on devices).

use super::Communicator;
use crate::backend::BackendError;

/// Run every collective once on every rank of `group` (one thread per
/// rank, `group[r]` being rank `r`) and compare each result with the value
/// the script implies: all-gather of distinct blocks, all-to-all of lists of
/// uneven lengths (some empty), sums past 32 bits, and maxima.
///
/// # Errors
///
/// [`BackendError`] naming the first rank and collective that returned
/// something else, or the error a collective returned.
pub fn exercise<C: Communicator>(group: &mut [C]) -> Result<(), BackendError> {
    let ranks = group.len() as u32;
    for (r, comm) in group.iter().enumerate() {
        if comm.rank() != r as u32 || comm.ranks() != ranks {
            return Err(wrong(
                r as u32,
                "rank()/ranks()",
                &format!("{}/{}", comm.rank(), comm.ranks()),
            ));
        }
    }
    std::thread::scope(|scope| {
        let runs: Vec<_> = group
            .iter_mut()
            .map(|comm| scope.spawn(move || script(comm, ranks)))
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join().unwrap_or_else(|_| {
                    Err(BackendError::device(
                        "a rank's thread panicked during the collective check. Fix: run the check alone and report the panic.",
                    ))
                })
            })
            .collect::<Result<Vec<()>, _>>()
    })?;
    Ok(())
}

/// The list rank `from` sends rank `to`: `(from + to) % 3` copies of
/// `from * 1000 + to`.
fn list(from: u32, to: u32) -> Vec<u32> {
    vec![from * 1000 + to; ((from + to) % 3) as usize]
}

fn script<C: Communicator>(comm: &mut C, ranks: u32) -> Result<(), BackendError> {
    let r = comm.rank();
    let result = steps(comm, r, ranks);
    if result.is_err() {
        comm.abort();
    }
    result
}

fn steps<C: Communicator>(comm: &mut C, r: u32, ranks: u32) -> Result<(), BackendError> {
    let mine: Vec<u32> = (0..3).map(|i| r * 100 + i).collect();
    let mut gathered = vec![0; 3 * ranks as usize];
    comm.all_gather(&mine, &mut gathered)?;
    let expected: Vec<u32> = (0..ranks)
        .flat_map(|s| (0..3).map(move |i| s * 100 + i))
        .collect();
    if gathered != expected {
        return Err(wrong(r, "all_gather", &format!("{gathered:?}")));
    }
    let send: Vec<Vec<u32>> = (0..ranks).map(|to| list(r, to)).collect();
    let received = comm.all_to_all_v(&send)?;
    let expected: Vec<Vec<u32>> = (0..ranks).map(|from| list(from, r)).collect();
    if received != expected {
        return Err(wrong(r, "all_to_all_v", &format!("{received:?}")));
    }
    let mut sums = [u64::from(r) + 1, 1 << 40];
    comm.all_reduce_sum(&mut sums)?;
    let n = u64::from(ranks);
    if sums != [n * (n + 1) / 2, n << 40] {
        return Err(wrong(r, "all_reduce_sum", &format!("{sums:?}")));
    }
    let mut maxima = [u64::from(r), u64::from(ranks - 1 - r) << 33];
    comm.all_reduce_max(&mut maxima)?;
    if maxima != [n - 1, (n - 1) << 33] {
        return Err(wrong(r, "all_reduce_max", &format!("{maxima:?}")));
    }
    Ok(())
}

fn wrong(rank: u32, collective: &str, got: &str) -> BackendError {
    BackendError::device(format!(
        "rank {rank}'s {collective} returned {got}, not what every rank sent. Fix: the communicator is broken; check the collective library (its version and debug log) or the implementation."
    ))
}
