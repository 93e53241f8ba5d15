use super::*;
use crate::UNREACHED;
use crate::build::{BuildOptions, build_graph};
use crate::generate::{chain, star};

#[test]
fn bitmap_sets_counts_and_lists_in_order() {
    let b = FrontierBitmap::new(100);
    for v in [99, 0, 31, 32, 64, 31] {
        b.set(v);
    }
    assert_eq!(b.count(), 5);
    assert!(b.contains(32) && !b.contains(33) && !b.contains(1000));
    assert_eq!(bitmap_to_queue(&b), vec![0, 31, 32, 64, 99]);
    b.clear();
    assert_eq!(b.count(), 0);
    queue_to_bitmap(&[5, 7, 5], &b);
    assert_eq!(bitmap_to_queue(&b), vec![5, 7]);
}

#[test]
fn start_makes_roots_and_skips_repeats_and_strangers() {
    let mut state = SearchState::new(4);
    assert_eq!(state.start(&[2, 9, 2, 0]), vec![2, 0]);
    assert_eq!((state.depth(2), state.parent(2)), (0, 2));
    assert_eq!(state.depth(1), UNREACHED);
    state.reset();
    assert_eq!(state.depth(2), UNREACHED);
}

#[test]
fn top_down_step_claims_each_vertex_once() {
    // 0 and 1 both point at 2; 1 also at 3.
    let g = build_graph(4, &[(0, 2), (1, 2), (1, 3)], BuildOptions::DIRECTED).unwrap();
    let mut state = SearchState::new(4);
    let frontier = state.start(&[0, 1]);
    let mut out = top_down_step(&g, &state, &frontier, 0);
    out.next.sort_unstable();
    assert_eq!(out.next, vec![2, 3]);
    assert_eq!(out.stats.frontier_out, 2);
    assert_eq!(out.stats.edges_examined, 3);
    assert_eq!(out.stats.frontier_out_edges, 0);
    assert_eq!(state.depth(2), 1);
    assert!([0, 1].contains(&state.parent(2)));
    assert_eq!(state.parent(3), 1);
}

#[test]
fn bottom_up_step_uses_in_edges_and_stops_at_first_parent() {
    // Directed: 0 -> 2, 1 -> 2, 2 -> 3. Vertex 3 has no in-neighbour in the
    // frontier {0, 1}; vertex 2 has two and stops at the first.
    let g = build_graph(4, &[(0, 2), (1, 2), (2, 3)], BuildOptions::DIRECTED).unwrap();
    let mut state = SearchState::new(4);
    let frontier = state.start(&[0, 1]);
    let (current, next) = (FrontierBitmap::new(4), FrontierBitmap::new(4));
    queue_to_bitmap(&frontier, &current);
    let stats = bottom_up_step(&g, &state, &current, &next, 0);
    assert_eq!(bitmap_to_queue(&next), vec![2]);
    assert_eq!(
        stats,
        StepStats {
            frontier_out: 1,
            frontier_out_edges: 1,
            // Vertex 2 finds 0 at once; vertex 3 scans its one in-edge.
            edges_examined: 2,
        }
    );
    assert_eq!((state.depth(2), state.parent(2)), (1, 0));
    assert_eq!(state.depth(3), UNREACHED);
}

#[test]
fn steps_alternate_on_a_chain() {
    let g = chain(70).unwrap();
    let mut state = SearchState::new(70);
    let mut queue = state.start(&[0]);
    let (a, b) = (FrontierBitmap::new(70), FrontierBitmap::new(70));
    for level in 0..69 {
        assert_eq!(queue, vec![level]);
        if level % 2 == 0 {
            queue = top_down_step(&g, &state, &queue, level).next;
        } else {
            a.clear();
            b.clear();
            queue_to_bitmap(&queue, &a);
            let stats = bottom_up_step(&g, &state, &a, &b, level);
            assert_eq!(stats.frontier_out, 1);
            queue = bitmap_to_queue(&b);
        }
    }
    let mut depths = vec![0; 70];
    state.depths(&mut depths);
    assert_eq!(depths, (0..70).collect::<Vec<u32>>());
}

#[test]
fn hub_frontier_out_edges_count_degrees() {
    let g = star(1000).unwrap();
    let mut state = SearchState::new(1001);
    let frontier = state.start(&[5]);
    let out = top_down_step(&g, &state, &frontier, 0);
    assert_eq!(out.next, vec![0]);
    assert_eq!(out.stats.frontier_out_edges, 1000);
    let out = top_down_step(&g, &state, &out.next, 1);
    assert_eq!(out.stats.frontier_out, 999);
    assert_eq!(out.stats.edges_examined, 1000);
}
