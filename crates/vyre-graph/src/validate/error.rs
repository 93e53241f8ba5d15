//! Why a BFS result failed validation.

use std::fmt;

/// The Graph500 check a [`ValidationError`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Graph500Check {
    /// 1: the tree has no cycles.
    Acyclic,
    /// 2: tree edges join levels differing by exactly one.
    TreeEdgeLevels,
    /// 3: every edge joins levels differing by at most one.
    EdgeLevels,
    /// 4: the tree spans the sources' component.
    SpansComponent,
    /// 5: every tree edge is an edge of the graph.
    ParentEdgeExists,
}

/// A BFS result that fails validation. Every message says what is wrong
/// and ends with `Fix: ...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValidationError {
    /// The arrays do not have one entry per vertex.
    LengthMismatch {
        /// Vertices in the graph.
        vertices: u32,
        /// Entries in the depth array.
        depths: usize,
        /// Entries in the parent array.
        parents: usize,
    },
    /// A source is not a vertex.
    SourceOutOfRange {
        /// The source.
        source: u32,
    },
    /// A source does not have depth 0 and itself as parent.
    SourceNotRoot {
        /// The source.
        source: u32,
        /// Its depth.
        depth: u32,
        /// Its parent.
        parent: u32,
    },
    /// Depth and parent disagree on whether a vertex was reached, a
    /// non-source has depth 0, or a parent is not a vertex.
    Inconsistent {
        /// The vertex.
        vertex: u32,
        /// Its depth.
        depth: u32,
        /// Its parent.
        parent: u32,
    },
    /// Check 1: following parents from `vertex` loops without reaching a
    /// source.
    ParentCycle {
        /// A vertex on or leading into the cycle.
        vertex: u32,
    },
    /// Check 2: a tree edge does not go down exactly one level.
    TreeEdgeLevel {
        /// The child.
        vertex: u32,
        /// Its parent.
        parent: u32,
        /// The child's depth.
        vertex_depth: u32,
        /// The parent's depth.
        parent_depth: u32,
    },
    /// Check 3: an edge skips levels.
    EdgeLevelSpread {
        /// The edge's source.
        from: u32,
        /// The edge's target.
        to: u32,
        /// Depth of `from`.
        from_depth: u32,
        /// Depth of `to`.
        to_depth: u32,
    },
    /// Check 4: an edge leads from a reached vertex to an unreached one.
    ComponentNotSpanned {
        /// The reached vertex.
        reached: u32,
        /// The unreached neighbour.
        unreached: u32,
    },
    /// Check 5: a tree edge is not in the graph.
    ParentEdgeMissing {
        /// The child.
        vertex: u32,
        /// Its claimed parent.
        parent: u32,
    },
}

impl ValidationError {
    /// The Graph500 check that failed, if it is one of the five.
    #[must_use]
    pub fn check(&self) -> Option<Graph500Check> {
        match self {
            Self::ParentCycle { .. } => Some(Graph500Check::Acyclic),
            Self::TreeEdgeLevel { .. } => Some(Graph500Check::TreeEdgeLevels),
            Self::EdgeLevelSpread { .. } => Some(Graph500Check::EdgeLevels),
            Self::ComponentNotSpanned { .. } => Some(Graph500Check::SpansComponent),
            Self::ParentEdgeMissing { .. } => Some(Graph500Check::ParentEdgeExists),
            _ => None,
        }
    }
}

const FIX: &str = "Fix: compare this search with vyre_graph::bfs::reference_bfs on the same graph and sources to find the step that wrote this vertex.";

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::LengthMismatch {
                vertices,
                depths,
                parents,
            } => write!(
                f,
                "the result has {depths} depths and {parents} parents for {vertices} vertices. Fix: pass arrays of one entry per vertex of the searched graph."
            ),
            Self::SourceOutOfRange { source } => write!(
                f,
                "source {source} is not a vertex of the graph. Fix: validate with the sources the search was started from."
            ),
            Self::SourceNotRoot {
                source,
                depth,
                parent,
            } => write!(
                f,
                "source {source} has depth {depth} and parent {parent}, not depth 0 and itself. {FIX}"
            ),
            Self::Inconsistent {
                vertex,
                depth,
                parent,
            } => write!(
                f,
                "vertex {vertex} has depth {depth} and parent {parent}: reached and unreached at once, a depth-0 non-source, or a parent that is no vertex. {FIX}"
            ),
            Self::ParentCycle { vertex } => write!(
                f,
                "Graph500 check 1 failed: following parents from vertex {vertex} loops without reaching a source. {FIX}"
            ),
            Self::TreeEdgeLevel {
                vertex,
                parent,
                vertex_depth,
                parent_depth,
            } => write!(
                f,
                "Graph500 check 2 failed: tree edge {parent} -> {vertex} joins depths {parent_depth} and {vertex_depth}, which do not differ by exactly 1. {FIX}"
            ),
            Self::EdgeLevelSpread {
                from,
                to,
                from_depth,
                to_depth,
            } => write!(
                f,
                "Graph500 check 3 failed: edge {from} -> {to} joins depths {from_depth} and {to_depth}, so {to} should have been found one level after {from} at the latest. {FIX}"
            ),
            Self::ComponentNotSpanned { reached, unreached } => write!(
                f,
                "Graph500 check 4 failed: vertex {reached} was reached but its neighbour {unreached} was not, so the tree does not span the component. {FIX}"
            ),
            Self::ParentEdgeMissing { vertex, parent } => write!(
                f,
                "Graph500 check 5 failed: vertex {vertex} names {parent} as parent, but the graph has no edge {parent} -> {vertex}. {FIX}"
            ),
        }
    }
}

impl std::error::Error for ValidationError {}
