//! A bounded cache of recorded command buffers, keyed by the graph they
//! were recorded for and the shape of the chain; least recently used
//! entries are evicted, and uploading a graph invalidates every entry.

use std::collections::HashMap;
use std::hash::Hash;

/// Which upload a recording belongs to: buffers change with every upload,
/// so recordings of an earlier one must never be submitted again.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq, Hash)]
pub(crate) struct GraphKey(u64);

/// Recordings by `(graph, shape)`, at most `capacity` of them.
pub(crate) struct CommandCache<S, V> {
    capacity: usize,
    graph: GraphKey,
    clock: u64,
    entries: HashMap<S, (V, u64)>,
}

impl<S: Eq + Hash + Clone, V> CommandCache<S, V> {
    /// An empty cache of at most `capacity` (at least 1) recordings.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            graph: GraphKey::default(),
            clock: 0,
            entries: HashMap::new(),
        }
    }

    /// A new graph was uploaded: drop every recording (dropping a value
    /// frees its command buffer) and key later ones to the new graph.
    pub(crate) fn new_graph(&mut self) -> GraphKey {
        self.entries.clear();
        self.graph = GraphKey(self.graph.0 + 1);
        self.graph
    }

    /// The graph recordings are keyed to now.
    #[cfg(test)]
    pub(crate) fn graph(&self) -> GraphKey {
        self.graph
    }

    /// Recordings held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The recording of `shape` for the current graph, made by `record` on
    /// a miss (evicting the least recently used one when full).
    ///
    /// # Errors
    ///
    /// `record`'s error; nothing is cached then.
    pub(crate) fn get_or_record<E>(
        &mut self,
        shape: &S,
        record: impl FnOnce(GraphKey) -> Result<V, E>,
    ) -> Result<&V, E> {
        self.clock += 1;
        let now = self.clock;
        if !self.entries.contains_key(shape) {
            let value = record(self.graph)?;
            if self.entries.len() >= self.capacity
                && let Some(oldest) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(key, _)| key.clone())
            {
                self.entries.remove(&oldest);
            }
            self.entries.insert(shape.clone(), (value, now));
        }
        let entry = self.entries.get_mut(shape).map(|entry| {
            entry.1 = now;
            &entry.0
        });
        Ok(entry.expect("present: found or inserted above"))
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// A recording that counts how many of its kind were freed.
    struct Fake {
        id: u32,
        graph: GraphKey,
        freed: Rc<Cell<u32>>,
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            self.freed.set(self.freed.get() + 1);
        }
    }

    fn recorder(
        made: &Rc<Cell<u32>>,
        freed: &Rc<Cell<u32>>,
    ) -> impl Fn(GraphKey) -> Result<Fake, String> {
        let (made, freed) = (Rc::clone(made), Rc::clone(freed));
        move |graph| {
            made.set(made.get() + 1);
            Ok(Fake {
                id: made.get(),
                graph,
                freed: Rc::clone(&freed),
            })
        }
    }

    #[test]
    fn a_shape_is_recorded_once_and_reused() {
        let (made, freed) = (Rc::default(), Rc::default());
        let mut cache = CommandCache::new(4);
        let first = cache
            .get_or_record(&"sparse x8", recorder(&made, &freed))
            .unwrap()
            .id;
        let again = cache
            .get_or_record(&"sparse x8", recorder(&made, &freed))
            .unwrap()
            .id;
        assert_eq!((first, again, made.get()), (1, 1, 1));
        cache
            .get_or_record(&"dense x1", recorder(&made, &freed))
            .unwrap();
        assert_eq!((made.get(), cache.len(), freed.get()), (2, 2, 0));
    }

    #[test]
    fn the_least_recently_used_recording_is_evicted_and_freed() {
        let (made, freed) = (Rc::default(), Rc::default());
        let mut cache = CommandCache::new(2);
        cache.get_or_record(&1, recorder(&made, &freed)).unwrap();
        cache.get_or_record(&2, recorder(&made, &freed)).unwrap();
        // Using 1 again makes 2 the oldest.
        cache.get_or_record(&1, recorder(&made, &freed)).unwrap();
        cache.get_or_record(&3, recorder(&made, &freed)).unwrap();
        assert_eq!((cache.len(), freed.get(), made.get()), (2, 1, 3));
        // 1 survived (no new recording); 2 was evicted (recorded anew).
        assert_eq!(
            cache.get_or_record(&1, recorder(&made, &freed)).unwrap().id,
            1
        );
        assert_eq!(
            cache.get_or_record(&2, recorder(&made, &freed)).unwrap().id,
            4
        );
    }

    #[test]
    fn a_new_graph_invalidates_every_recording() {
        let (made, freed) = (Rc::default(), Rc::default());
        let mut cache = CommandCache::new(8);
        let old = cache.graph();
        assert_eq!(
            cache
                .get_or_record(&1, recorder(&made, &freed))
                .unwrap()
                .graph,
            old
        );
        cache.get_or_record(&2, recorder(&made, &freed)).unwrap();
        let new = cache.new_graph();
        assert_ne!(new, old);
        assert_eq!((cache.len(), freed.get()), (0, 2));
        let again = cache.get_or_record(&1, recorder(&made, &freed)).unwrap();
        assert_eq!((again.id, again.graph), (3, new));
    }

    #[test]
    fn a_failed_recording_is_not_cached() {
        let mut cache: CommandCache<u32, u32> = CommandCache::new(2);
        assert!(cache.get_or_record(&1, |_| Err("device lost")).is_err());
        assert_eq!(cache.len(), 0);
        assert_eq!(*cache.get_or_record(&1, |_| Ok::<_, &str>(7)).unwrap(), 7);
    }
}
