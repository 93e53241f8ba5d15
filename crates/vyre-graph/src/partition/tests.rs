use super::*;
use crate::UNREACHED;
use crate::bfs::reference_bfs as reference;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{
    KroneckerSpec, UniformSpec, chain, disjoint_union, grid_2d, kronecker, star, uniform_random,
};
use crate::validate::validate_bfs;

/// Graphs of many shapes, each with a source; ids spread so that every
/// rank of a 7-way partition owns some of them.
fn shapes() -> Vec<(&'static str, Graph, u32)> {
    let kron = |directed| {
        kronecker(KroneckerSpec {
            scale: 10,
            edge_factor: 8,
            seed: 7,
            directed,
            ..KroneckerSpec::default()
        })
        .unwrap()
    };
    let loops_and_repeats = BuildOptions {
        symmetrize: true,
        remove_self_loops: false,
        remove_duplicates: false,
    };
    let messy_edges: Vec<(u32, u32)> = (0..600u32)
        .flat_map(|v| [(v, v), (v, (v * 7 + 3) % 600), (v, (v * 7 + 3) % 600)])
        .collect();
    vec![
        ("kron", kron(false), 0),
        ("kron-directed", kron(true), 1),
        ("grid", grid_2d(40, 25).unwrap(), 517),
        ("chain", chain(700).unwrap(), 350),
        ("star", star(500).unwrap(), 0),
        ("star-leaf", star(500).unwrap(), 499),
        (
            "uniform-directed",
            uniform_random(UniformSpec {
                vertex_count: 900,
                edge_count: 2700,
                seed: 3,
                directed: true,
            })
            .unwrap(),
            17,
        ),
        (
            "disconnected",
            disjoint_union(&[
                chain(300).unwrap(),
                star(200).unwrap(),
                grid_2d(10, 10).unwrap(),
            ])
            .unwrap(),
            310,
        ),
        (
            "self-loops-duplicates",
            build_graph(600, &messy_edges, loops_and_repeats).unwrap(),
            5,
        ),
    ]
}

const RANKS: [u32; 5] = [1, 2, 3, 4, 7];

#[test]
fn ranges_cover_every_vertex_once_aligned_and_balanced() {
    for (name, graph, _) in shapes() {
        let n = graph.vertex_count();
        let weights: Vec<u64> = (0..n)
            .map(|v| {
                let inbound = if graph.is_symmetric() {
                    0
                } else {
                    graph.in_edges().neighbors(v).len() as u64
                };
                1 + graph.out_edges().neighbors(v).len() as u64 + inbound
            })
            .collect();
        let total: u64 = weights.iter().sum();
        let heaviest_word = weights
            .chunks(32)
            .map(|w| w.iter().sum::<u64>())
            .max()
            .unwrap();
        for ranks in RANKS {
            let p = Partition::balanced(&graph, &PartitionRequest { ranks }).unwrap();
            assert_eq!(p.ranks(), ranks);
            let mut next = 0;
            for r in 0..ranks {
                let range = p.range(r);
                assert_eq!(
                    range.start,
                    next,
                    "{name} P={ranks}: rank {r} must start where {} ended",
                    r.saturating_sub(1)
                );
                assert_eq!(range.start % RANK_ALIGN, 0, "{name} P={ranks}");
                let weight: u64 = weights[range.start as usize..range.end as usize]
                    .iter()
                    .sum();
                let bound = total.div_ceil(u64::from(ranks)) + 1 + heaviest_word;
                assert!(
                    weight <= bound,
                    "{name} P={ranks}: rank {r} weighs {weight} > {bound}"
                );
                for v in range.clone() {
                    assert_eq!(p.owner(v), r, "{name} P={ranks}: owner of {v}");
                }
                next = range.end;
            }
            assert_eq!(
                next, n,
                "{name} P={ranks}: the ranges end at the last vertex"
            );
            assert_eq!(p.owner(n), ranks);
        }
    }
}

#[test]
fn many_heavy_ranks_split_the_edges_evenly() {
    // 2^14 vertices: no word is a large share, so 4 ranks land near 25 %.
    let graph = kronecker(KroneckerSpec {
        scale: 14,
        ..KroneckerSpec::default()
    })
    .unwrap();
    let p = Partition::balanced(&graph, &PartitionRequest { ranks: 4 }).unwrap();
    let edges: Vec<u64> = (0..4)
        .map(|r| p.range(r).map(|v| graph.out_edges().degree(v)).sum())
        .collect();
    let total: u64 = edges.iter().sum();
    for (r, &e) in edges.iter().enumerate() {
        let share = e as f64 / total as f64;
        assert!(
            (0.20..0.30).contains(&share),
            "rank {r} holds {share:.3} of the edges"
        );
    }
}

#[test]
fn bad_requests_are_typed_errors_with_a_fix() {
    let graph = chain(10).unwrap();
    let cases = [
        (0, PartitionError::NoRanks),
        (
            MAX_RANKS + 1,
            PartitionError::TooManyRanks {
                ranks: MAX_RANKS + 1,
            },
        ),
    ];
    for (ranks, expected) in cases {
        let error = Partition::balanced(&graph, &PartitionRequest { ranks }).unwrap_err();
        assert_eq!(error, expected);
        assert!(error.to_string().contains("Fix: "), "{error}");
    }
    let other = Partition::balanced(&chain(64).unwrap(), &PartitionRequest { ranks: 2 }).unwrap();
    let error = RankRows::of(&graph, &other, 0).unwrap_err();
    assert!(
        matches!(
            error,
            PartitionError::OtherGraph {
                partitioned: 64,
                vertices: 10
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("Fix: "));
}

#[test]
fn more_ranks_than_vertices_leaves_ranks_empty() {
    let graph = build_graph(1, &[], BuildOptions::UNDIRECTED).unwrap();
    let p = Partition::balanced(&graph, &PartitionRequest { ranks: 4 }).unwrap();
    assert_eq!(p.range(0), 0..1);
    assert!((1..4).all(|r| p.range(r).is_empty()));
    assert_eq!(p.owner(0), 0);
    let (depths, parents) = simulated(&graph, 4, 0, Exchanges::Alternate);
    assert_eq!((depths, parents), (vec![0], vec![0]));
}

#[test]
fn small_graphs_leave_late_ranks_empty_but_owned_once() {
    let graph = chain(40).unwrap();
    let p = Partition::balanced(&graph, &PartitionRequest { ranks: 7 }).unwrap();
    let owned: u32 = (0..7).map(|r| p.range(r).len() as u32).sum();
    assert_eq!(owned, 40);
    assert!((0..7).any(|r| p.range(r).is_empty()));
    for v in 0..40 {
        assert!(p.range(p.owner(v)).contains(&v));
    }
}

#[test]
fn rank_rows_are_exactly_the_graphs_rows() {
    for (name, graph, _) in shapes() {
        for ranks in RANKS {
            let p = Partition::balanced(&graph, &PartitionRequest { ranks }).unwrap();
            let mut stored = 0;
            for r in 0..ranks {
                let rows = RankRows::of(&graph, &p, r).unwrap();
                assert_eq!(rows.range(), p.range(r));
                for v in p.range(r) {
                    assert_eq!(
                        rows.out_neighbors(v),
                        graph.out_edges().neighbors(v),
                        "{name}"
                    );
                    assert_eq!(
                        rows.in_neighbors(v),
                        graph.in_edges().neighbors(v),
                        "{name}"
                    );
                    assert_eq!(rows.out_degree(v), graph.out_edges().degree(v));
                    // The CSR arrays a device copies hold the same rows.
                    let local = (v - p.range(r).start) as usize;
                    let (offsets, targets) = rows.out_csr();
                    let row = &targets[offsets[local] as usize..offsets[local + 1] as usize];
                    assert_eq!(row, graph.out_edges().neighbors(v), "{name}");
                    match rows.in_csr() {
                        Some((offsets, targets)) => {
                            let row =
                                &targets[offsets[local] as usize..offsets[local + 1] as usize];
                            assert_eq!(row, graph.in_edges().neighbors(v), "{name}");
                        }
                        None => assert!(graph.is_symmetric(), "{name}"),
                    }
                }
                assert_eq!(rows.out_csr().0.len(), p.range(r).len() + 1);
                stored += rows.stored_edges();
            }
            let expected = if graph.is_symmetric() { 1 } else { 2 } * graph.edge_count();
            assert_eq!(
                stored, expected,
                "{name} P={ranks}: every edge stored once per direction"
            );
        }
    }
}

#[test]
fn assembled_bitmap_puts_each_block_at_its_owners_words() {
    let graph = chain(100).unwrap();
    let p = Partition::balanced(&graph, &PartitionRequest { ranks: 3 }).unwrap();
    let block = p.max_words();
    // Rank r's block holds words r*10 + 1, r*10 + 2, ... then padding 0xdead.
    let mut gathered = vec![0xdead; 3 * block];
    for r in 0..3u32 {
        for (i, _) in p.words(r).enumerate() {
            gathered[r as usize * block + i] = r * 10 + 1 + i as u32;
        }
    }
    let mut out = vec![0u32; 4];
    assemble_bitmap(&p, &gathered, &mut out);
    for r in 0..3u32 {
        for (i, w) in p.words(r).enumerate() {
            assert_eq!(out[w], r * 10 + 1 + i as u32);
        }
    }
}

#[test]
fn a_vertex_reached_twice_is_sent_once_to_its_owner() {
    // 0 and 1 (rank 0) both reach 40 (rank 1).
    let graph = build_graph(64, &[(0, 40), (1, 40), (0, 1)], BuildOptions::UNDIRECTED).unwrap();
    let p = Partition {
        starts: vec![0, 32, 64],
    };
    let rows = RankRows::of(&graph, &p, 0).unwrap();
    let mut rank = RankSearch::new(p.range(0), 64).unwrap();
    rank.start(&[0, 1]);
    let mut outbox = Outbox::new(2);
    let examined = rank.expand(&rows, &p, 0, &mut outbox);
    assert_eq!(examined, 4);
    assert_eq!(outbox.lists()[0], Vec::<u32>::new());
    assert_eq!(outbox.lists()[1], vec![40, 0]);
    assert_eq!(outbox.pairs(), 1);
    // Nothing owned is new: 0 and 1 are sources.
    assert_eq!(rank.advance(&rows, examined).frontier_out, 0);
}

#[test]
fn the_first_arrival_wins_and_foreign_pairs_are_ignored() {
    let graph = chain(64).unwrap();
    let p = Partition {
        starts: vec![0, 32, 64],
    };
    let rows = RankRows::of(&graph, &p, 1).unwrap();
    let mut rank = RankSearch::new(p.range(1), 64).unwrap();
    rank.start(&[]);
    rank.merge(&[33, 7, 33, 9, 5, 4], 2);
    let stats = rank.advance(&rows, 0);
    assert_eq!((stats.frontier_out, stats.frontier_out_edges), (1, 2));
    let (mut depths, mut parents) = (vec![UNREACHED; 64], vec![UNREACHED; 64]);
    rank.write_depths(&mut depths);
    rank.write_parents(&mut parents);
    assert_eq!((depths[33], parents[33]), (3, 7));
    assert_eq!(depths[5], UNREACHED, "vertex 5 belongs to rank 0");
}

/// Which exchange each level of the simulated search uses.
#[derive(Clone, Copy, Debug)]
enum Exchanges {
    Lists,
    Bitmap,
    Alternate,
}

/// A search over `ranks` ranks, run one rank after another with the
/// exchanges done by hand, returning depths and parents.
fn simulated(graph: &Graph, ranks: u32, source: u32, exchanges: Exchanges) -> (Vec<u32>, Vec<u32>) {
    let p = Partition::balanced(graph, &PartitionRequest { ranks }).unwrap();
    let n = graph.vertex_count();
    let rows: Vec<RankRows> = (0..ranks)
        .map(|r| RankRows::of(graph, &p, r).unwrap())
        .collect();
    let mut state: Vec<RankSearch> = (0..ranks)
        .map(|r| RankSearch::new(p.range(r), n).unwrap())
        .collect();
    state.iter_mut().for_each(|s| s.start(&[source]));
    let mut outboxes: Vec<Outbox> = (0..ranks).map(|_| Outbox::new(ranks)).collect();
    let block = p.max_words();
    for level in 0.. {
        let lists = match exchanges {
            Exchanges::Lists => true,
            Exchanges::Bitmap => false,
            Exchanges::Alternate => level % 2 == 0,
        };
        let mut examined = vec![0u64; ranks as usize];
        if lists {
            for r in 0..ranks as usize {
                examined[r] = state[r].expand(&rows[r], &p, level, &mut outboxes[r]);
            }
            for (dest, rank) in state.iter_mut().enumerate() {
                for outbox in &outboxes {
                    rank.merge(&outbox.lists()[dest], level);
                }
            }
        } else {
            let mut gathered = vec![0u32; block * ranks as usize];
            for r in 0..ranks as usize {
                state[r].frontier_words(&mut gathered[r * block..(r + 1) * block]);
            }
            let mut global = vec![0u32; n.div_ceil(32) as usize];
            assemble_bitmap(&p, &gathered, &mut global);
            for r in 0..ranks as usize {
                examined[r] = state[r].pull(&rows[r], &global, level);
            }
        }
        let found: u32 = (0..ranks as usize)
            .map(|r| state[r].advance(&rows[r], examined[r]).frontier_out)
            .sum();
        if found == 0 {
            break;
        }
    }
    let (mut depths, mut parents) = (vec![0; n as usize], vec![0; n as usize]);
    for s in &state {
        s.write_depths(&mut depths);
        s.write_parents(&mut parents);
    }
    (depths, parents)
}

#[test]
fn simulated_ranks_match_the_reference_with_every_exchange() {
    for (name, graph, source) in shapes() {
        let expected = reference(&graph, &[source]);
        for ranks in RANKS {
            for exchanges in [Exchanges::Lists, Exchanges::Bitmap, Exchanges::Alternate] {
                let (depths, parents) = simulated(&graph, ranks, source, exchanges);
                assert_eq!(depths, expected.depths, "{name} P={ranks} {exchanges:?}");
                validate_bfs(&graph, &[source], &depths, &parents)
                    .unwrap_or_else(|e| panic!("{name} P={ranks} {exchanges:?}: {e}"));
            }
        }
    }
}
