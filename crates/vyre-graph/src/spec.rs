//! Naming a graph in one string, for command lines: `kron:S`, `urand:S`,
//! `grid:WxH`, `chain:N`, `star:N`, or a file path (any format
//! [`load_graph`] reads).

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use crate::build::{BuildFootprint, BuildOptions};
use crate::generate::{
    KroneckerSpec, UniformSpec, chain, grid_2d, kronecker, star, uniform_random,
};
use crate::load::{LoadError, LoadOptions, load_graph};
use crate::memory::{self, MemoryLimit};
use crate::{Graph, GraphError};

/// Generated edges per vertex of `kron:S` and `urand:S` (Graph500's 16).
const EDGE_FACTOR: u32 = 16;

/// A graph named by a string (see [`GraphSpec::from_str`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphSpec {
    /// `kron:S`: Graph500 Kronecker, `2^S` vertices, edge factor 16.
    Kronecker {
        /// log2 of the vertex count.
        scale: u32,
    },
    /// `urand:S`: uniform random, `2^S` vertices, `16 * 2^S` edges.
    Uniform {
        /// log2 of the vertex count.
        scale: u32,
    },
    /// `grid:WxH`: a `W x H` 4-neighbour grid.
    Grid {
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
    /// `chain:N`: a path of `N` vertices.
    Chain {
        /// Vertices.
        vertices: u32,
    },
    /// `star:N`: a hub with `N` leaves.
    Star {
        /// Leaves.
        leaves: u32,
    },
    /// Anything else: a file for [`load_graph`].
    File(PathBuf),
}

/// A string that does not name a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The string.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "graph spec `{}`: {}. Fix: use kron:S or urand:S (S <= 31), grid:WxH, chain:N, star:N, or a file path (write ./name for a file whose name contains ':').",
            self.spec, self.reason
        )
    }
}

impl std::error::Error for SpecError {}

const GENERATORS: [&str; 5] = ["kron", "urand", "grid", "chain", "star"];

impl FromStr for GraphSpec {
    type Err = SpecError;

    /// Parse `kron:S`, `urand:S`, `grid:WxH`, `chain:N`, `star:N` or a
    /// path. A `word:` prefix that names no generator is an error rather
    /// than a path, so that typos are caught.
    fn from_str(text: &str) -> Result<Self, SpecError> {
        let fail = |reason: String| SpecError {
            spec: text.to_string(),
            reason,
        };
        if text.trim().is_empty() {
            return Err(fail("it is empty".into()));
        }
        let Some((kind, arg)) = text.split_once(':') else {
            return Ok(Self::File(PathBuf::from(text)));
        };
        let looks_like_generator =
            !kind.is_empty() && kind.chars().all(|c| c.is_ascii_alphanumeric());
        if !GENERATORS.contains(&kind) {
            if looks_like_generator && kind.len() > 1 {
                return Err(fail(format!("`{kind}` is not a generator")));
            }
            return Ok(Self::File(PathBuf::from(text)));
        }
        let number = |s: &str, what: &str| {
            s.parse::<u32>()
                .map_err(|_| fail(format!("{what} `{s}` is not a whole number below 2^32")))
        };
        let scale = |s: &str| {
            let scale = number(s, "the scale")?;
            if scale > 31 {
                return Err(fail(format!("scale {scale} is above 31 (u32 vertex ids)")));
            }
            Ok(scale)
        };
        match kind {
            "kron" => Ok(Self::Kronecker { scale: scale(arg)? }),
            "urand" => Ok(Self::Uniform { scale: scale(arg)? }),
            "grid" => {
                let (w, h) = arg
                    .split_once(['x', 'X'])
                    .ok_or_else(|| fail(format!("grid size `{arg}` is not WxH")))?;
                let (width, height) = (number(w, "the width")?, number(h, "the height")?);
                if width == 0 || height == 0 || width.checked_mul(height).is_none() {
                    return Err(fail(format!(
                        "a {width}x{height} grid is empty or has more than 2^32 vertices"
                    )));
                }
                Ok(Self::Grid { width, height })
            }
            "chain" => {
                let vertices = number(arg, "the vertex count")?;
                if vertices == 0 {
                    return Err(fail("a chain needs at least one vertex".into()));
                }
                Ok(Self::Chain { vertices })
            }
            _ => {
                let leaves = number(arg, "the leaf count")?;
                if leaves == u32::MAX {
                    return Err(fail("a star needs leaves + 1 vertices below 2^32".into()));
                }
                Ok(Self::Star { leaves })
            }
        }
    }
}

impl fmt::Display for GraphSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Kronecker { scale } => write!(f, "kron:{scale}"),
            Self::Uniform { scale } => write!(f, "urand:{scale}"),
            Self::Grid { width, height } => write!(f, "grid:{width}x{height}"),
            Self::Chain { vertices } => write!(f, "chain:{vertices}"),
            Self::Star { leaves } => write!(f, "star:{leaves}"),
            Self::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// Why [`GraphSpec::build`] failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpecBuildError {
    /// A generator failed.
    Graph(GraphError),
    /// A file did not load.
    Load(LoadError),
}

impl fmt::Display for SpecBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Graph(e) => e.fmt(f),
            Self::Load(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SpecBuildError {}

/// Choices a spec string leaves open.
#[derive(Clone, Copy, Debug)]
pub struct SpecOptions<'a> {
    /// Seed of the random generators.
    pub seed: u64,
    /// Generate directed Kronecker and uniform graphs.
    pub directed: bool,
    /// How files are loaded; its `memory_limit` bounds generators too.
    pub load: LoadOptions<'a>,
}

impl Default for SpecOptions<'_> {
    fn default() -> Self {
        Self {
            seed: 1,
            directed: false,
            load: LoadOptions::default(),
        }
    }
}

impl GraphSpec {
    /// Vertices a generator makes, known before it runs (`None` for a
    /// file, whose count is known once it is parsed).
    #[must_use]
    pub fn vertex_count(&self) -> Option<u32> {
        match *self {
            // scale <= 31 and w * h, n, leaves + 1 were checked to fit u32.
            Self::Kronecker { scale } | Self::Uniform { scale } => Some(1 << scale),
            Self::Grid { width, height } => Some(width * height),
            Self::Chain { vertices } => Some(vertices),
            Self::Star { leaves } => Some(leaves + 1),
            Self::File(_) => None,
        }
    }

    /// Make the graph with [`SpecOptions::default`].
    ///
    /// # Errors
    ///
    /// What the generator or loader returns.
    pub fn build(&self) -> Result<Graph, SpecBuildError> {
        self.build_with(SpecOptions::default())
    }

    /// Make the graph. A generator first checks that its peak memory fits
    /// the limit (`options.load.memory_limit`, or what is available).
    ///
    /// # Errors
    ///
    /// What the generator or loader returns; [`GraphError::OutOfMemory`]
    /// before generating a graph that would not fit.
    pub fn build_with(&self, options: SpecOptions<'_>) -> Result<Graph, SpecBuildError> {
        if let Some(needed) = self.generated_bytes(options.directed) {
            let memory = MemoryLimit::resolve(options.load.memory_limit);
            memory::check(memory.as_ref(), needed, || format!("generating {self}"))
                .map_err(SpecBuildError::Graph)?;
        }
        let generated = match *self {
            Self::Kronecker { scale } => kronecker(KroneckerSpec {
                scale,
                seed: options.seed,
                directed: options.directed,
                edge_factor: EDGE_FACTOR,
                ..KroneckerSpec::default()
            }),
            Self::Uniform { scale } => UniformSpec::with_scale(scale, EDGE_FACTOR, options.seed)
                .and_then(|spec| {
                    uniform_random(UniformSpec {
                        directed: options.directed,
                        ..spec
                    })
                }),
            Self::Grid { width, height } => grid_2d(width, height),
            Self::Chain { vertices } => chain(vertices),
            Self::Star { leaves } => star(leaves),
            Self::File(ref path) => {
                return load_graph(path, options.load).map_err(SpecBuildError::Load);
            }
        };
        generated.map_err(SpecBuildError::Graph)
    }

    /// The most host memory generating this graph holds: the edge list the
    /// simple generators store, and the build. `None` for a file.
    fn generated_bytes(&self, directed: bool) -> Option<u64> {
        let random = if directed {
            BuildOptions::DIRECTED
        } else {
            BuildOptions::UNDIRECTED
        };
        // Vertices, edges, and the capacity of the edge list the generator
        // stores (none for the random ones: they recompute their edges).
        let (vertices, edges, list, options) = match *self {
            Self::Kronecker { scale } | Self::Uniform { scale } => {
                (1u64 << scale, u64::from(EDGE_FACTOR) << scale, 0, random)
            }
            Self::Grid { width, height } => {
                let (w, h) = (u64::from(width), u64::from(height));
                let edges = w.saturating_sub(1) * h + w * h.saturating_sub(1);
                (w * h, edges, 2 * w * h, BuildOptions::UNDIRECTED)
            }
            Self::Chain { vertices } => {
                let edges = u64::from(vertices).saturating_sub(1);
                (u64::from(vertices), edges, edges, BuildOptions::UNDIRECTED)
            }
            Self::Star { leaves } => {
                let n = u64::from(leaves);
                (n + 1, n, n, BuildOptions::UNDIRECTED)
            }
            Self::File(_) => return None,
        };
        let footprint = BuildFootprint {
            vertices,
            edges,
            options,
        };
        let list = list * std::mem::size_of::<(u32, u32)>() as u64;
        Some(list + footprint.peak_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "kron:20",
            "urand:3",
            "grid:30x4",
            "chain:9",
            "star:70000",
            "graphs/web.mtx.gz",
            "./odd:name.txt",
        ] {
            let spec: GraphSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "grid:3X4".parse(),
            Ok(GraphSpec::Grid {
                width: 3,
                height: 4
            })
        );
        assert_eq!(
            "C:/graphs/x.mtx".parse(),
            Ok(GraphSpec::File("C:/graphs/x.mtx".into()))
        );
    }

    #[test]
    fn bad_specs_are_typed_errors() {
        for bad in [
            "",
            "kron:",
            "kron:abc",
            "kron:32",
            "urand:-1",
            "grid:3",
            "grid:0x5",
            "grid:65536x65536",
            "chain:0",
            "star:4294967295",
            "kronn:5",
        ] {
            let err = bad.parse::<GraphSpec>().unwrap_err();
            assert_eq!(err.spec, bad);
            assert!(err.to_string().contains("Fix: "), "{err}");
        }
    }

    fn within(bytes: u64) -> SpecOptions<'static> {
        SpecOptions {
            load: LoadOptions {
                memory_limit: Some(bytes),
                ..LoadOptions::default()
            },
            ..SpecOptions::default()
        }
    }

    #[test]
    fn generators_that_would_not_fit_are_refused_before_generating() {
        // Generating kron:30 takes minutes and a few hundred GiB: only a
        // check before generating returns at once.
        for text in [
            "kron:30",
            "urand:28",
            "grid:20000x20000",
            "chain:200000000",
            "star:200000000",
        ] {
            let spec: GraphSpec = text.parse().unwrap();
            let err = spec.build_with(within(1 << 30)).unwrap_err();
            assert!(
                matches!(
                    err,
                    SpecBuildError::Graph(GraphError::OutOfMemory { limit: Some(_), .. })
                ),
                "{text}: {err}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with(&format!("generating {text} needs about")),
                "{message}"
            );
            assert!(message.contains("Fix: "), "{message}");
        }
        let spec: GraphSpec = "chain:100000".parse().unwrap();
        assert!(spec.build_with(within(1 << 20)).is_err());
        let g = spec.build_with(within(1 << 30)).unwrap();
        assert_eq!(g.vertex_count(), 100_000);
    }

    #[test]
    fn generator_vertex_counts_are_known_before_building() {
        for (text, n) in [
            ("kron:4", 16),
            ("urand:3", 8),
            ("grid:3x4", 12),
            ("chain:9", 9),
            ("star:5", 6),
        ] {
            let spec: GraphSpec = text.parse().unwrap();
            assert_eq!(spec.vertex_count(), Some(n), "{text}");
            assert_eq!(spec.build().unwrap().vertex_count(), n, "{text}");
        }
        let file: GraphSpec = "roads.gr".parse().unwrap();
        assert_eq!(file.vertex_count(), None);
    }

    #[test]
    fn specs_build_their_graphs() {
        let g = "grid:3x4".parse::<GraphSpec>().unwrap().build().unwrap();
        assert_eq!((g.vertex_count(), g.edge_count()), (12, 2 * 17));
        let g = "kron:8".parse::<GraphSpec>().unwrap().build().unwrap();
        assert_eq!(g.vertex_count(), 256);
        let err = "no/such/file.mtx"
            .parse::<GraphSpec>()
            .unwrap()
            .build()
            .unwrap_err();
        assert!(matches!(err, SpecBuildError::Load(_)));
    }
}
