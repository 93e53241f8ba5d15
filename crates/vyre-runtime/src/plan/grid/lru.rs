//! A small bounded map with least-recently-used eviction, for plans that are
//! cheap to recompute but asked for on every wave.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// "No slot" in the recency list.
const NIL: u32 = u32::MAX;

/// One cached entry and its neighbours in the recency list.
#[derive(Debug)]
struct Slot<K, V> {
    key: K,
    value: V,
    /// More recently used neighbour, or [`NIL`] at the head.
    newer: u32,
    /// Less recently used neighbour, or [`NIL`] at the tail.
    older: u32,
}

/// A map of at most `capacity` entries; inserting into a full map evicts the
/// least recently inserted-or-hit entry. Every hit refreshes its entry.
///
/// Recency is a doubly linked list threaded through a slot array (head = most
/// recent), so a hit, an insert and an eviction are each O(1), and there is
/// no counter that could overflow however long the cache lives. The slot
/// array and the index are allocated up front; an eviction reuses the
/// evicted slot.
#[derive(Debug)]
pub(super) struct BoundedLru<K, V> {
    index: FxHashMap<K, u32>,
    slots: Vec<Slot<K, V>>,
    head: u32,
    tail: u32,
    capacity: usize,
    hits: u64,
    misses: u64,
}

impl<K: Copy + Eq + Hash, V: Copy> BoundedLru<K, V> {
    /// An empty cache that holds at most `capacity` entries (at most
    /// `u32::MAX - 1`).
    pub(super) fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.min(NIL as usize - 1);
        Self {
            index: FxHashMap::with_capacity_and_hasher(capacity, Default::default()),
            slots: Vec::with_capacity(capacity),
            head: NIL,
            tail: NIL,
            capacity,
            hits: 0,
            misses: 0,
        }
    }

    /// The cached value for `key`, marked most recently used; counts a hit or
    /// a miss.
    pub(super) fn get(&mut self, key: &K) -> Option<V> {
        let Some(&slot) = self.index.get(key) else {
            self.misses = self.misses.saturating_add(1);
            return None;
        };
        self.hits = self.hits.saturating_add(1);
        self.move_to_front(slot);
        Some(self.slots[slot as usize].value)
    }

    /// Store `value` under `key` as the most recently used entry, evicting
    /// the least recently used one when the cache is full.
    pub(super) fn insert(&mut self, key: K, value: V) {
        if let Some(&slot) = self.index.get(&key) {
            self.slots[slot as usize].value = value;
            self.move_to_front(slot);
            return;
        }
        let slot = if self.slots.len() < self.capacity {
            // Below capacity, so the index fits u32 (capacity < NIL).
            let slot = self.slots.len() as u32;
            self.slots.push(Slot {
                key,
                value,
                newer: NIL,
                older: NIL,
            });
            slot
        } else if self.tail != NIL {
            let slot = self.tail;
            self.unlink(slot);
            let reused = &mut self.slots[slot as usize];
            self.index.remove(&reused.key);
            reused.key = key;
            reused.value = value;
            slot
        } else {
            // Zero capacity: nothing is ever kept.
            return;
        };
        self.push_front(slot);
        self.index.insert(key, slot);
    }

    /// Hits and misses counted by [`BoundedLru::get`].
    pub(super) fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// Entries held now.
    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    fn move_to_front(&mut self, slot: u32) {
        if self.head != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    fn unlink(&mut self, slot: u32) {
        let (newer, older) = {
            let s = &self.slots[slot as usize];
            (s.newer, s.older)
        };
        match newer {
            NIL => self.head = older,
            n => self.slots[n as usize].older = older,
        }
        match older {
            NIL => self.tail = newer,
            o => self.slots[o as usize].newer = newer,
        }
    }

    fn push_front(&mut self, slot: u32) {
        let old_head = self.head;
        {
            let s = &mut self.slots[slot as usize];
            s.newer = NIL;
            s.older = old_head;
        }
        match old_head {
            NIL => self.tail = slot,
            h => self.slots[h as usize].newer = slot,
        }
        self.head = slot;
    }

    /// Keys from most to least recently used.
    #[cfg(test)]
    fn keys_by_recency(&self) -> Vec<K> {
        let mut keys = Vec::new();
        let mut at = self.head;
        while at != NIL {
            keys.push(self.slots[at as usize].key);
            at = self.slots[at as usize].older;
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::BoundedLru;
    use proptest::prelude::*;

    #[test]
    fn evicts_the_least_recently_used_entry() {
        let mut cache = BoundedLru::with_capacity(3);
        cache.insert(1, 10);
        cache.insert(2, 20);
        cache.insert(3, 30);
        assert_eq!(cache.get(&1), Some(10));
        cache.insert(4, 40);
        assert_eq!(cache.keys_by_recency(), vec![4, 1, 3], "2 was evicted");
        assert_eq!(cache.hits_and_misses(), (1, 0));
        assert_eq!(cache.get(&2), None);
        assert_eq!(cache.hits_and_misses(), (1, 1));
    }

    #[test]
    fn reinserting_a_key_replaces_it_without_eviction() {
        let mut cache = BoundedLru::with_capacity(2);
        cache.insert(1, 10);
        cache.insert(2, 20);
        cache.insert(1, 11);
        assert_eq!(cache.keys_by_recency(), vec![1, 2]);
        assert_eq!(cache.get(&1), Some(11));
        assert_eq!(cache.get(&2), Some(20));
    }

    #[test]
    fn capacity_one_and_zero() {
        let mut one = BoundedLru::with_capacity(1);
        one.insert(1, 10);
        one.insert(2, 20);
        assert_eq!((one.get(&1), one.get(&2), one.len()), (None, Some(20), 1));
        let mut zero = BoundedLru::with_capacity(0);
        zero.insert(1, 10);
        assert_eq!((zero.get(&1), zero.len()), (None, 0));
    }

    #[derive(Clone, Copy, Debug)]
    enum Op {
        Get(u8),
        Insert(u8, u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..24u8).prop_map(Op::Get),
            (0..24u8, any::<u16>()).prop_map(|(k, v)| Op::Insert(k, v)),
        ]
    }

    proptest! {
        /// Against a list kept in recency order by brute force.
        #[test]
        fn matches_a_brute_force_lru(capacity in 0..10usize, ops in prop::collection::vec(op(), 0..200)) {
            let mut cache = BoundedLru::with_capacity(capacity);
            let mut model: Vec<(u8, u16)> = Vec::new(); // most recent first
            let (mut hits, mut misses) = (0u64, 0u64);
            for op in ops {
                match op {
                    Op::Get(k) => {
                        let expected = model.iter().position(|&(key, _)| key == k).map(|at| {
                            let entry = model.remove(at);
                            model.insert(0, entry);
                            entry.1
                        });
                        if expected.is_some() { hits += 1 } else { misses += 1 }
                        prop_assert_eq!(cache.get(&k), expected);
                    }
                    Op::Insert(k, v) => {
                        cache.insert(k, v);
                        if let Some(at) = model.iter().position(|&(key, _)| key == k) {
                            model.remove(at);
                        } else if model.len() == capacity {
                            model.pop();
                        }
                        if capacity > 0 {
                            model.insert(0, (k, v));
                        }
                    }
                }
                let keys: Vec<u8> = model.iter().map(|&(k, _)| k).collect();
                prop_assert_eq!(cache.keys_by_recency(), keys);
                prop_assert_eq!(cache.len(), model.len());
            }
            prop_assert_eq!(cache.hits_and_misses(), (hits, misses));
        }
    }
}
