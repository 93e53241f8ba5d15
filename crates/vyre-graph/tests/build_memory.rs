//! A build's estimated peak memory ([`BuildFootprint`]) bounds what it
//! really allocates: a counting allocator measures the peak of builds of
//! several shapes. One test, so that no other test allocates meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use vyre_graph::build::{BuildFootprint, BuildOptions, build_graph};
use vyre_graph::generate::{KroneckerSpec, kronecker};

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

fn grow(bytes: usize) {
    let now = LIVE.fetch_add(bytes as u64, Relaxed) + bytes as u64;
    PEAK.fetch_max(now, Relaxed);
}

fn shrink(bytes: usize) {
    LIVE.fetch_sub(bytes as u64, Relaxed);
}

/// The system allocator, counting the bytes live and their peak.
struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; counting touches no allocator state.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `layout` obligations are passed on unchanged.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grow(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grow(layout.size());
        }
        ptr
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator, which is `System`.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            // Counted as resizing in place: large blocks are remapped, not
            // copied, so old and new are never both held.
            if new_size >= layout.size() {
                grow(new_size - layout.size());
            } else {
                shrink(layout.size() - new_size);
            }
        }
        moved
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: `ptr` came from this allocator, which is `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes `f` allocates at its peak beyond what was live before it,
/// counting what it returns (it is dropped after the measurement).
fn peak_of<T>(f: impl FnOnce() -> T) -> u64 {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    let peak = PEAK.load(Relaxed) - base;
    drop(out);
    peak
}

/// Pseudo-random pairs below `n` (an LCG: no dependency, same every run).
fn random_edges(n: u32, m: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((x >> 33) % u64::from(n)) as u32
    };
    (0..m).map(|_| (next(), next())).collect()
}

struct Case {
    name: &'static str,
    vertices: u32,
    edges: Vec<(u32, u32)>,
    options: BuildOptions,
}

#[test]
fn the_estimate_bounds_the_measured_peak_of_every_build() {
    let n = 1 << 16;
    // Past two chunks of the build (4 Mi edges each).
    let mut sorted = random_edges(n, 9 << 20, 5);
    sorted.sort_unstable();
    let cases = [
        Case {
            name: "random undirected",
            vertices: n,
            edges: random_edges(n, 1 << 20, 1),
            options: BuildOptions::UNDIRECTED,
        },
        Case {
            name: "random directed",
            vertices: n,
            edges: random_edges(n, 1 << 20, 2),
            options: BuildOptions::DIRECTED,
        },
        Case {
            name: "sorted by source, several chunks",
            vertices: n,
            edges: sorted,
            options: BuildOptions::UNDIRECTED,
        },
        Case {
            name: "mostly isolated vertices",
            vertices: 1 << 22,
            edges: random_edges(1 << 22, 1000, 3),
            options: BuildOptions::DIRECTED,
        },
    ];
    // Start the thread pool outside the measurements.
    build_graph(4, &[(0, 1)], BuildOptions::UNDIRECTED).unwrap();
    for case in &cases {
        let footprint = BuildFootprint {
            vertices: u64::from(case.vertices),
            edges: case.edges.len() as u64,
            options: case.options,
        };
        let measured = peak_of(|| build_graph(case.vertices, &case.edges, case.options).unwrap());
        report(case.name, footprint, measured);
    }
    let scale = 16;
    let footprint = BuildFootprint {
        vertices: 1 << scale,
        edges: 16 << scale,
        options: BuildOptions::UNDIRECTED,
    };
    let measured = peak_of(|| {
        kronecker(KroneckerSpec {
            scale,
            ..KroneckerSpec::default()
        })
        .unwrap()
    });
    report("kron:16", footprint, measured);
}

/// The estimate must bound the measurement, and stay within a small
/// factor of it: the arrays are counted exactly, the build's per-chunk
/// buckets at their worst case (about three times what they usually hold).
fn report(name: &str, footprint: BuildFootprint, measured: u64) {
    let estimate = footprint.peak_bytes();
    println!("{name}: measured {measured}, estimated {estimate}");
    assert!(
        measured <= estimate,
        "{name}: measured {measured} > estimated {estimate}"
    );
    assert!(
        estimate <= 4 * measured,
        "{name}: estimated {estimate} is far above the measured {measured}"
    );
}
