//! Maps keyed by object address or short name, with a hasher made for
//! them: the caches of the writer and the parser (`fast`) and of the
//! conversions (`convert`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes a pointer with one multiply, and short names byte by byte (FNV).
#[derive(Default)]
pub struct PointerHasher(u64);

impl Hasher for PointerHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(last) ^ bytes.len() as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_usize(&mut self, value: usize) {
        self.0 = (value as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by object address.
pub type PointerMap<V> = HashMap<usize, V, BuildHasherDefault<PointerHasher>>;
/// A map keyed by short names.
pub type NameMap<V> = HashMap<String, V, BuildHasherDefault<PointerHasher>>;

/// A direct-mapped cache table of `N` slots, each `empty`, built on the heap.
///
/// Out of line and cold on purpose: `Box::new([empty; N])` builds the array
/// on the stack first, and inlined into the recursive parse and write walks
/// it made every level's frame 5-10 KiB larger (stack probes and cache lines
/// at each nested value), though the table is built once a call at most.
/// `None` cannot happen (a `Vec` of `N` items converts to `[T; N]`); a caller
/// then just goes without the cache.
#[cold]
#[inline(never)]
pub(crate) fn new_table<T: Copy, const N: usize>(empty: T) -> Option<Box<[T; N]>> {
    vec![empty; N].into_boxed_slice().try_into().ok()
}
