//! The conformance corpus: generated graphs of many shapes, each with the
//! source sets to search from.

use std::sync::{Arc, OnceLock};

use vyre_graph::bfs::{BfsTree, reference_bfs};
use vyre_graph::build::{BuildOptions, build_graph};
use vyre_graph::generate::{
    KroneckerSpec, UniformSpec, chain, complete, disjoint_union, grid_2d, kronecker, star,
    uniform_random,
};
use vyre_graph::{Graph, GraphError};
use vyre_runtime::{LoadRequest, VertexOrder};

/// How big a corpus to build.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum CorpusSize {
    /// Integration tests: every shape, small enough for lavapipe in CI.
    Small,
    /// `cargo xtask conformance`: every shape at sizes that take seconds on
    /// a CPU and lavapipe.
    Standard,
    /// GPU machines: the standard corpus plus Kronecker scales 22 to 25 and
    /// a 3000 x 3000 grid.
    Large,
}

/// One graph and the searches to run on it.
#[derive(Clone, Debug)]
pub struct Case {
    /// Short name for reports, e.g. `grid-64x64`.
    pub name: String,
    /// The graph.
    pub graph: Arc<Graph>,
    /// How the device numbers its vertices (sources and results stay in
    /// the graph's numbering).
    pub order: VertexOrder,
    /// Source sets; each is one search (several sources = multi-source BFS).
    pub sources: Vec<Vec<u32>>,
    /// Reference results, computed once per source set on first use.
    expected: Vec<OnceLock<BfsTree>>,
    /// Sources of the batch check: up to 70 (two passes) on small graphs,
    /// fewer on large ones; repeats included.
    pub batch_sources: Vec<u32>,
    /// Reference depths of each batch source, computed once on first use.
    batch_expected: OnceLock<Vec<Vec<u32>>>,
}

impl Case {
    /// What loading this case asks of a device.
    #[must_use]
    pub fn load_request(&self) -> LoadRequest {
        LoadRequest {
            order: self.order,
            ..LoadRequest::new(Arc::clone(&self.graph))
        }
    }

    /// The same case with the device numbering its vertices by degree.
    fn by_degree(&self) -> Self {
        Self {
            name: format!("{}-by-degree", self.name),
            order: VertexOrder::ByDegree,
            ..self.clone()
        }
    }

    /// The same case with the device numbering its vertices by breadth.
    fn by_breadth(&self) -> Self {
        Self {
            name: format!("{}-by-breadth", self.name),
            order: VertexOrder::ByBreadth,
            ..self.clone()
        }
    }

    /// The serial reference BFS from source set `index` (computed once).
    ///
    /// # Panics
    ///
    /// When `index` is not below `sources.len()`.
    #[must_use]
    pub fn expected(&self, index: usize) -> &BfsTree {
        self.expected[index].get_or_init(|| reference_bfs(&self.graph, &self.sources[index]))
    }

    /// The reference depths of every batch source (computed once).
    #[must_use]
    pub fn batch_expected(&self) -> &[Vec<u32>] {
        self.batch_expected.get_or_init(|| {
            self.batch_sources
                .iter()
                .map(|&s| reference_bfs(&self.graph, &[s]).depths)
                .collect()
        })
    }
}

/// Batch sources for `graph`: every single source of the case, then vertices
/// spread over the ids (a repeat of the first source among them), up to 70
/// searches (two passes of a batch) below a million vertices and 8 above.
fn batch_sources(graph: &Graph, singles: &[Vec<u32>]) -> Vec<u32> {
    let n = graph.vertex_count();
    if n == 0 {
        return Vec::new();
    }
    let lanes = if n > 1 << 20 { 8 } else { 70 };
    let mut sources: Vec<u32> = singles.iter().flatten().copied().collect();
    if let Some(&first) = sources.first() {
        sources.push(first);
    }
    let mut i = 0u64;
    while sources.len() < lanes {
        sources.push(((i * 2_654_435_761) % u64::from(n)) as u32);
        i += 1;
    }
    sources.truncate(lanes);
    sources
}

fn case(name: impl Into<String>, graph: Graph, sources: Vec<Vec<u32>>) -> Case {
    Case {
        name: name.into(),
        batch_sources: batch_sources(&graph, &sources),
        batch_expected: OnceLock::new(),
        graph: Arc::new(graph),
        order: VertexOrder::Auto,
        expected: sources.iter().map(|_| OnceLock::new()).collect(),
        sources,
    }
}

/// The vertex of highest out-degree (the lowest id among ties).
fn hub(graph: &Graph) -> u32 {
    (0..graph.vertex_count())
        .max_by_key(|&v| (graph.out_edges().degree(v), std::cmp::Reverse(v)))
        .unwrap_or(0)
}

/// A vertex of degree exactly 1 if there is one, else the last vertex.
fn leaf(graph: &Graph) -> u32 {
    (0..graph.vertex_count())
        .rev()
        .find(|&v| graph.out_edges().degree(v) == 1)
        .unwrap_or(graph.vertex_count().saturating_sub(1))
}

fn power_law(scale: u32, directed: bool) -> Result<Case, GraphError> {
    let graph = kronecker(KroneckerSpec {
        scale,
        seed: u64::from(scale),
        directed,
        ..KroneckerSpec::default()
    })?;
    let (h, l) = (hub(&graph), leaf(&graph));
    let n = graph.vertex_count();
    let name = format!("kron-s{scale}{}", if directed { "-directed" } else { "" });
    Ok(case(
        name,
        graph,
        vec![vec![h], vec![l], vec![l, n / 2, n / 3]],
    ))
}

fn random(scale: u32, directed: bool) -> Result<Case, GraphError> {
    let mut spec = UniformSpec::with_scale(scale, 8, 7)?;
    spec.directed = directed;
    let graph = uniform_random(spec)?;
    let name = format!("urand-s{scale}{}", if directed { "-directed" } else { "" });
    Ok(case(name, graph, vec![vec![0], vec![1, 2, 3, 4]]))
}

fn grid(width: u32, height: u32) -> Result<Case, GraphError> {
    let graph = grid_2d(width, height)?;
    let center = (height / 2) * width + width / 2;
    let last = width * height - 1;
    Ok(case(
        format!("grid-{width}x{height}"),
        graph,
        vec![vec![0], vec![center], vec![0, last]],
    ))
}

fn path(n: u32) -> Result<Case, GraphError> {
    Ok(case(
        format!("chain-{n}"),
        chain(n)?,
        vec![vec![0], vec![n / 2]],
    ))
}

fn star_hub(leaves: u32) -> Result<Case, GraphError> {
    // From the hub, from the last leaf (the hub's bottom-up scan runs to its
    // last edge), and from the first leaf.
    Ok(case(
        format!("star-{leaves}"),
        star(leaves)?,
        vec![vec![0], vec![leaves], vec![1]],
    ))
}

fn disconnected() -> Result<Case, GraphError> {
    let parts = [
        grid_2d(20, 20)?,
        chain(100)?,
        star(50)?,
        build_graph(7, &[], BuildOptions::UNDIRECTED)?,
        complete(12)?,
    ];
    let graph = disjoint_union(&parts)?;
    // The grid starts at 0, the chain at 400, the star at 500; 551..558 are isolated.
    Ok(case(
        "disconnected",
        graph,
        vec![vec![0], vec![450], vec![500], vec![553], vec![0, 450, 560]],
    ))
}

/// Self-loops and duplicate edges kept in the CSR.
fn loops_and_duplicates() -> Result<Case, GraphError> {
    let n = 400u32;
    let mut edges = Vec::new();
    let mut x = 0x9E37_79B9_u32;
    for i in 0..2000u32 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let u = x % n;
        let v = (x >> 9) % n;
        edges.push((u, v));
        if i % 5 == 0 {
            edges.push((u, v));
            edges.push((u, u));
        }
    }
    let options = BuildOptions {
        symmetrize: true,
        remove_self_loops: false,
        remove_duplicates: false,
    };
    let graph = build_graph(n, &edges, options)?;
    Ok(case(
        "loops-and-duplicates",
        graph,
        vec![vec![0], vec![7, 300]],
    ))
}

fn trivial() -> Result<Vec<Case>, GraphError> {
    Ok(vec![
        case(
            "one-vertex",
            build_graph(1, &[], BuildOptions::UNDIRECTED)?,
            vec![vec![0]],
        ),
        case(
            "no-edges",
            build_graph(100, &[], BuildOptions::UNDIRECTED)?,
            vec![vec![5], vec![0, 99]],
        ),
        case("complete-64", complete(64)?, vec![vec![3]]),
    ])
}

/// Build the corpus.
///
/// # Errors
///
/// [`GraphError`] when a generator fails (it should not).
pub fn corpus(size: CorpusSize) -> Result<Vec<Case>, GraphError> {
    let small = size == CorpusSize::Small;
    let mut cases = vec![
        power_law(if small { 9 } else { 14 }, false)?,
        power_law(if small { 8 } else { 12 }, true)?,
        random(if small { 9 } else { 13 }, false)?,
        random(if small { 8 } else { 11 }, true)?,
        grid(if small { 24 } else { 96 }, if small { 17 } else { 64 })?,
        path(if small { 300 } else { 3000 })?,
        star_hub(100_000)?,
        disconnected()?,
        loops_and_duplicates()?,
    ];
    // Renumbered on the device: results must come back in the graph's own
    // ids, parents included.
    let relabelled: Vec<Case> = cases
        .iter()
        .filter(|c| {
            c.name.starts_with("kron") || c.name == "disconnected" || c.name.starts_with("loops")
        })
        .map(Case::by_degree)
        .chain(
            cases
                .iter()
                .filter(|c| {
                    c.name.starts_with("grid")
                        || c.name == "disconnected"
                        || c.name.starts_with("loops")
                })
                .map(Case::by_breadth),
        )
        .collect();
    cases.extend(relabelled);
    cases.extend(trivial()?);
    if size == CorpusSize::Large {
        // One search each: the serial reference on a billion edges takes seconds.
        for scale in 22..=25 {
            let mut big = power_law(scale, false)?;
            big.sources.truncate(1);
            big.expected.truncate(1);
            cases.push(big);
        }
        let mut big_grid = grid(3000, 3000)?;
        big_grid.sources.truncate(1);
        big_grid.expected.truncate(1);
        cases.push(big_grid);
    }
    Ok(cases)
}
