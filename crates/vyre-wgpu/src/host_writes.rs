//! Small host writes (a command's words, a search's sources) carried to the
//! device in upload slots: host-visible buffers the backend keeps mapped
//! between commands, copied from inside the command's own encoder.
//!
//! `Queue::write_buffer` creates a staging buffer for every write and
//! submits the writes in a command buffer of their own ahead of the
//! command's, which costs each command more host and driver time than its
//! small kernels take on the device. A slot is written while mapped,
//! unmapped, copied from, and mapped again when the submission that read it
//! ends (which the backend waits for anyway). Where no slot is mapped or the
//! writes do not fit one, the writes go through `write_buffer` as before;
//! both ways the data is in place before anything recorded after
//! [`UploadSlots::record`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Slots kept: a search's start and its first command are in flight at
/// once; the rest is slack for a mapping that ends late.
const SLOTS: usize = 4;

/// Bytes of one slot: a command's words and dispatch arguments, or a
/// search's words and up to 1,000 sources.
const SLOT_BYTES: u64 = 4096;

/// A slot's state, shared with its map callback: mapped and free, read by
/// a submission (until it maps again), or never used again (mapping failed:
/// the device was lost).
const MAPPED: u8 = 0;
const BUSY: u8 = 1;
const FAILED: u8 = 2;

/// Words bound for device buffers, gathered before one submission.
#[derive(Default)]
pub(crate) struct HostWrites<'b> {
    /// Target buffer, byte offset in it, and bytes of `data` to copy there.
    targets: Vec<(&'b wgpu::Buffer, u64, std::ops::Range<usize>)>,
    data: Vec<u8>,
}

impl<'b> HostWrites<'b> {
    /// Write `words` at `target`: a buffer and a byte offset in it.
    pub(crate) fn put(&mut self, target: (&'b wgpu::Buffer, u64), words: &[u32]) {
        let (target, offset) = target;
        let start = self.data.len();
        self.data.extend_from_slice(bytemuck::cast_slice(words));
        self.targets.push((target, offset, start..self.data.len()));
    }

    /// Write everything through `queue.write_buffer`.
    fn through_queue(&self, queue: &wgpu::Queue) -> SlotInUse {
        for (target, offset, bytes) in &self.targets {
            queue.write_buffer(target, *offset, &self.data[bytes.clone()]);
        }
        SlotInUse(None)
    }
}

struct Slot {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
}

/// The backend's upload slots.
pub(crate) struct UploadSlots {
    slots: Vec<Slot>,
}

/// The slot a recorded submission reads, to map again once it is submitted.
#[must_use = "pass it to UploadSlots::submitted after the submission"]
pub(crate) struct SlotInUse(Option<usize>);

impl UploadSlots {
    /// Create the slots, mapped.
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let slots = (0..SLOTS)
            .map(|_| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("vyre upload slot"),
                    size: SLOT_BYTES,
                    usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: true,
                }),
                state: Arc::new(AtomicU8::new(MAPPED)),
            })
            .collect();
        Self { slots }
    }

    /// Make `writes` land before whatever is recorded into `encoder` next:
    /// copies from a mapped slot, or `queue.write_buffer` when none is
    /// mapped or the writes do not fit one.
    pub(crate) fn record(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        writes: &HostWrites<'_>,
    ) -> SlotInUse {
        let fits = writes.data.len() as u64 <= SLOT_BYTES;
        let free = self
            .slots
            .iter()
            .position(|s| s.state.load(Ordering::Acquire) == MAPPED);
        let (Some(index), true) = (free, fits) else {
            return writes.through_queue(queue);
        };
        let slot = &self.slots[index];
        let len = writes.data.len() as u64;
        if len > 0 {
            // A slot maps whole, so its range is always there; a failure
            // here would be a bug, and the fallback keeps the data right.
            let Ok(mut view) = slot.buffer.get_mapped_range_mut(0..len) else {
                return writes.through_queue(queue);
            };
            view.copy_from_slice(&writes.data);
        }
        slot.buffer.unmap();
        slot.state.store(BUSY, Ordering::Release);
        for (target, offset, bytes) in &writes.targets {
            let size = (bytes.end - bytes.start) as u64;
            encoder.copy_buffer_to_buffer(&slot.buffer, bytes.start as u64, target, *offset, size);
        }
        SlotInUse(Some(index))
    }

    /// The submission recorded with `used` is submitted: map its slot
    /// again, which ends when that submission does.
    pub(crate) fn submitted(&mut self, used: SlotInUse) {
        let Some(index) = used.0 else { return };
        let slot = &self.slots[index];
        let state = Arc::clone(&slot.state);
        slot.buffer
            .map_async(wgpu::MapMode::Write, 0..SLOT_BYTES, move |result| {
                let next = if result.is_ok() { MAPPED } else { FAILED };
                state.store(next, Ordering::Release);
            });
    }

    /// Slots mapped now, for tests.
    #[cfg(test)]
    pub(crate) fn mapped(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| s.state.load(Ordering::Acquire) == MAPPED)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::wait_idle;
    use crate::open::open_for_tests;
    use crate::readback::read_words;

    fn buffer(device: &wgpu::Device, words: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 4 * words,
            usage,
            mapped_at_creation: false,
        })
    }

    /// Submit `writes` the way a command does; whether through a slot.
    fn submit(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slots: &mut UploadSlots,
        writes: &HostWrites<'_>,
    ) -> bool {
        let mut encoder = device.create_command_encoder(&Default::default());
        let used = slots.record(queue, &mut encoder, writes);
        let through_slot = used.0.is_some();
        queue.submit([encoder.finish()]);
        slots.submitted(used);
        through_slot
    }

    #[test]
    fn writes_land_through_slots_and_through_the_fallback() {
        let Some(opened) = open_for_tests() else {
            return;
        };
        let (device, queue) = (opened.device, opened.queue);
        let usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        let staging = buffer(
            &device,
            4096,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let a = buffer(&device, 16 * (SLOTS as u64 + 2), usage);
        let b = buffer(&device, 2048, usage);
        let mut slots = UploadSlots::new(&device);
        assert_eq!(slots.mapped(), SLOTS);
        // Commands recorded but not yet submitted hold every slot, so the
        // next one falls back; each writes its own words.
        let rounds = SLOTS as u32 + 1;
        let words = |round: u32| -> Vec<u32> { (0..16).map(|i| round * 1000 + i + 1).collect() };
        let mut recorded = Vec::new();
        for round in 0..rounds {
            let mut writes = HostWrites::default();
            let first = words(round);
            writes.put((&a, 64 * u64::from(round)), &first);
            writes.put((&b, 4 * (100 + 2 * u64::from(round))), &[round, round + 1]);
            let mut encoder = device.create_command_encoder(&Default::default());
            let used = slots.record(&queue, &mut encoder, &writes);
            recorded.push((used.0.is_some(), encoder, used));
        }
        let through: Vec<bool> = recorded.iter().map(|r| r.0).collect();
        let mut expected = vec![true; SLOTS];
        expected.push(false);
        assert_eq!(
            through, expected,
            "each mapped slot once, then the fallback"
        );
        for (_, encoder, used) in recorded {
            queue.submit([encoder.finish()]);
            slots.submitted(used);
        }
        let mut got = vec![0u32; 16 * rounds as usize];
        read_words(&device, &queue, (&a, 0), &staging, &mut got).expect("read a");
        let mut pairs = vec![0u32; 100 + 2 * rounds as usize];
        read_words(&device, &queue, (&b, 0), &staging, &mut pairs).expect("read b");
        for round in 0..rounds {
            let at = 16 * round as usize;
            assert_eq!(&got[at..at + 16], words(round).as_slice(), "round {round}");
            let at = 100 + 2 * round as usize;
            assert_eq!(&pairs[at..at + 2], &[round, round + 1], "round {round}");
        }
        wait_idle(&device, "waiting").expect("idle");
        assert_eq!(
            slots.mapped(),
            SLOTS,
            "slots map again once their submissions end"
        );
        // Writes larger than a slot fall back, and land whole.
        let big: Vec<u32> = (0..1100).map(|i| i * 7 + 3).collect();
        let mut writes = HostWrites::default();
        writes.put((&b, 0), &big);
        assert!(
            !submit(&device, &queue, &mut slots, &writes),
            "too big for a slot"
        );
        let mut got = vec![0u32; 1100];
        read_words(&device, &queue, (&b, 0), &staging, &mut got).expect("read big");
        assert_eq!(got, big);
        // A slot is written afresh each time: its words replace the earlier
        // ones and nothing else moves.
        for value in [42, 43] {
            let mut writes = HostWrites::default();
            writes.put((&b, 4 * 1099), &[value]);
            assert!(submit(&device, &queue, &mut slots, &writes));
            read_words(&device, &queue, (&b, 0), &staging, &mut got).expect("read again");
            assert_eq!(got[1099], value);
            assert_eq!(&got[..1099], &big[..1099]);
        }
    }
}
