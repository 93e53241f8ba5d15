//! A small bounded map with least-recently-used eviction, for plans that are
//! cheap to recompute but asked for on every wave.

use std::hash::Hash;

use rustc_hash::FxHashMap;

/// A cached value and the clock tick of its last insertion or hit.
#[derive(Clone, Copy, Debug)]
struct Entry<V> {
    value: V,
    last_seen: u64,
}

/// A map of at most `capacity` entries; inserting into a full map evicts the
/// entry least recently inserted or hit. Every hit refreshes its entry.
///
/// Recency is a per-cache tick counter. When it reaches `u64::MAX` the
/// entries are renumbered `1..=len` in their recency order and the clock
/// continues from `len`, so it never overflows and never loses the order.
#[derive(Debug)]
pub(super) struct BoundedLru<K, V> {
    entries: FxHashMap<K, Entry<V>>,
    capacity: usize,
    clock: u64,
    hits: u64,
    misses: u64,
}

impl<K: Copy + Eq + Hash, V: Copy> BoundedLru<K, V> {
    /// An empty cache that holds at most `capacity` entries; its table is
    /// allocated up front so that inserts never grow it.
    pub(super) fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: FxHashMap::with_capacity_and_hasher(capacity, Default::default()),
            capacity,
            clock: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The cached value for `key`, marked most recently used; counts a hit or
    /// a miss.
    pub(super) fn get(&mut self, key: &K) -> Option<V> {
        let now = self.tick();
        match self.entries.get_mut(key) {
            Some(entry) => {
                entry.last_seen = now;
                self.hits = self.hits.saturating_add(1);
                Some(entry.value)
            }
            None => {
                self.misses = self.misses.saturating_add(1);
                None
            }
        }
    }

    /// Store `value` under `key` as the most recently used entry, evicting
    /// the least recently used one when the cache is full.
    pub(super) fn insert(&mut self, key: K, value: V) {
        if self.capacity == 0 {
            return;
        }
        let now = self.tick();
        if let Some(entry) = self.entries.get_mut(&key) {
            *entry = Entry {
                value,
                last_seen: now,
            };
            return;
        }
        if self.entries.len() >= self.capacity {
            self.evict_least_recent();
        }
        self.entries.insert(
            key,
            Entry {
                value,
                last_seen: now,
            },
        );
    }

    /// Hits and misses counted by [`BoundedLru::get`].
    pub(super) fn hits_and_misses(&self) -> (u64, u64) {
        (self.hits, self.misses)
    }

    /// Entries held now.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    fn evict_least_recent(&mut self) {
        let oldest = self
            .entries
            .iter()
            .min_by_key(|(_, entry)| entry.last_seen)
            .map(|(key, _)| *key);
        if let Some(key) = oldest {
            self.entries.remove(&key);
        }
    }

    /// The next tick; renumbers the entries first when the clock is spent.
    fn tick(&mut self) -> u64 {
        if self.clock == u64::MAX {
            self.renumber();
        }
        self.clock += 1;
        self.clock
    }

    /// Renumber entries `1..=len` keeping their order (ticks are unique, so
    /// the order is total) and restart the clock after them. Runs once per
    /// 2^64 ticks, so its allocation is not on any hot path.
    fn renumber(&mut self) {
        let mut seen: Vec<u64> = self.entries.values().map(|entry| entry.last_seen).collect();
        seen.sort_unstable();
        for entry in self.entries.values_mut() {
            let rank = seen.partition_point(|&tick| tick < entry.last_seen);
            entry.last_seen = rank as u64 + 1;
        }
        self.clock = seen.len() as u64;
    }

    #[cfg(test)]
    pub(super) fn set_clock(&mut self, clock: u64) {
        self.clock = clock;
    }

    #[cfg(test)]
    pub(super) fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }
}

#[cfg(test)]
mod tests {
    use super::BoundedLru;

    #[test]
    fn evicts_the_least_recently_used_entry() {
        let mut cache = BoundedLru::with_capacity(3);
        cache.insert(1, 10);
        cache.insert(2, 20);
        cache.insert(3, 30);
        assert_eq!(cache.get(&1), Some(10));
        cache.insert(4, 40);
        assert!(!cache.contains(&2), "2 was the least recently used");
        assert!(cache.contains(&1) && cache.contains(&3) && cache.contains(&4));
        assert_eq!(cache.len(), 3);
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
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(&1), Some(11));
        assert_eq!(cache.get(&2), Some(20));
    }

    #[test]
    fn clock_wrap_keeps_recency_order() {
        let mut cache = BoundedLru::with_capacity(3);
        cache.set_clock(u64::MAX - 3);
        cache.insert(1, 10); // tick MAX - 2
        cache.insert(2, 20); // tick MAX - 1
        cache.insert(3, 30); // tick MAX
        // The clock is spent: this hit renumbers 1, 2, 3 -> 1, 2, 3, then
        // refreshes 1 to tick 4.
        assert_eq!(cache.get(&1), Some(10));
        cache.insert(4, 40);
        assert!(!cache.contains(&2), "2 is now the least recently used");
        assert!(cache.contains(&1) && cache.contains(&3) && cache.contains(&4));
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let mut cache = BoundedLru::with_capacity(0);
        cache.insert(1, 10);
        assert_eq!(cache.get(&1), None);
        assert_eq!(cache.len(), 0);
    }
}
