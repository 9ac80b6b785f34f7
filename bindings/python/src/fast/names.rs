//! [`SharedNames`]: the member names one parse has built, found again by
//! their bytes, so a name repeated across a document is one `str`.
//!
//! A document has a few distinct names met thousands of times, mostly
//! short: the lookup is an open-addressing table over the names' bytes,
//! kept one after another in an arena (no `String` a name), compared a
//! word at a time in line rather than through a `memcmp` call.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// Slots in the first table (a power of two); it doubles at half full.
const FIRST_SLOTS: usize = 64;

/// One name: its hash, where its bytes sit in the arena, its `str`.
#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    start: u32,
    len: u32,
    object: *mut ffi::PyObject,
}

const EMPTY: Slot = Slot {
    hash: 0,
    start: 0,
    len: 0,
    object: std::ptr::null_mut(),
};

/// The names of one parse and the `str` built for each.
#[derive(Default)]
pub struct SharedNames<'py> {
    slots: Vec<Slot>,
    used: usize,
    arena: Vec<u8>,
    /// Owns every `str` the slots point to, for the whole parse.
    kept: Vec<Bound<'py, PyString>>,
}

/// A word of `bytes` at `at` (`at + 8 <= bytes.len()`, else 0).
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .and_then(|part| <[u8; 8]>::try_from(part).ok())
        .map_or(0, u64::from_le_bytes)
}

/// Four bytes of `bytes` at `at` (`at + 4 <= bytes.len()`, else 0).
#[inline(always)]
fn half(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 4)
        .and_then(|part| <[u8; 4]>::try_from(part).ok())
        .map_or(0, |part| u64::from(u32::from_le_bytes(part)))
}

/// The bytes of a name shorter than a word in one: two overlapping
/// halves from 4 bytes up, else the first, middle and last bytes. For
/// names of one length, equal words mean equal bytes.
#[inline(always)]
fn short(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    if n >= 4 {
        return half(bytes, 0) | (half(bytes, n - 4) << 32);
    }
    let byte = |at: usize| bytes.get(at).map_or(0, |&b| u64::from(b));
    match n {
        0 => 0,
        _ => byte(0) | (byte(n / 2) << 8) | (byte(n - 1) << 16),
    }
}

/// The first slot to probe for `hash` in a table of `mask + 1` slots: the
/// high half folded in, since a product's low bits depend only on the low
/// bits of what was multiplied.
#[inline(always)]
fn first(hash: u64, mask: usize) -> usize {
    ((hash >> 32) ^ hash) as usize & mask
}

/// The name's bytes folded into words: whole words, then the last eight
/// bytes (overlapping) or, for a name shorter than a word, its bytes
/// zero-padded. Equal words and equal lengths mean equal names.
#[inline(always)]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let n = bytes.len();
    let mut h = (n as u64).wrapping_mul(K);
    if n < 8 {
        return (h ^ short(bytes)).wrapping_mul(K);
    }
    let mut at = 0;
    while at + 8 <= n {
        h = (h.rotate_left(5) ^ word(bytes, at)).wrapping_mul(K);
        at += 8;
    }
    (h.rotate_left(5) ^ word(bytes, n - 8)).wrapping_mul(K)
}

/// Whether `a` and `b` (of equal length) hold the same bytes.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return short(a) == short(b);
    }
    let mut at = 0;
    while at + 8 <= n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

impl<'py> SharedNames<'py> {
    /// The `str` built for `name` earlier in this parse, borrowed (the
    /// table owns it until the parse ends).
    #[inline]
    pub fn get(&self, name: &str) -> Option<*mut ffi::PyObject> {
        if self.slots.is_empty() {
            return None;
        }
        let bytes = name.as_bytes();
        let hash = hash(bytes);
        let mask = self.slots.len() - 1;
        let mut index = first(hash, mask);
        loop {
            let slot = self.slots.get(index)?;
            if slot.object.is_null() {
                return None;
            }
            if slot.hash == hash && slot.len as usize == bytes.len() {
                let start = slot.start as usize;
                let stored = self.arena.get(start..start + bytes.len())?;
                if same(stored, bytes) {
                    return Some(slot.object);
                }
            }
            index = (index + 1) & mask;
        }
    }

    /// Keeps `object` as the `str` of `name` (not yet in the table) and
    /// returns it, borrowed.
    pub fn insert(&mut self, name: &str, object: Bound<'py, PyString>) -> *mut ffi::PyObject {
        let pointer = object.as_ptr();
        self.kept.push(object);
        let (Ok(start), Ok(len)) = (u32::try_from(self.arena.len()), u32::try_from(name.len()))
        else {
            // Beyond 4 GiB of names: kept, not shared.
            return pointer;
        };
        if (self.used + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.arena.extend_from_slice(name.as_bytes());
        let hash = hash(name.as_bytes());
        let mask = self.slots.len() - 1;
        let mut index = first(hash, mask);
        while let Some(slot) = self.slots.get_mut(index) {
            if slot.object.is_null() {
                *slot = Slot {
                    hash,
                    start,
                    len,
                    object: pointer,
                };
                self.used += 1;
                break;
            }
            index = (index + 1) & mask;
        }
        pointer
    }

    /// Keeps `object` alive for the parse without sharing it.
    pub fn keep(&mut self, object: Bound<'py, PyString>) -> *mut ffi::PyObject {
        let pointer = object.as_ptr();
        self.kept.push(object);
        pointer
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(FIRST_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size]);
        let mask = size - 1;
        for slot in old.into_iter().filter(|slot| !slot.object.is_null()) {
            let mut index = first(slot.hash, mask);
            while let Some(target) = self.slots.get_mut(index) {
                if target.object.is_null() {
                    *target = slot;
                    break;
                }
                index = (index + 1) & mask;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{hash, same};

    #[test]
    fn equal_words_mean_equal_names() {
        let names = [
            "",
            "a",
            "ab",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "side_effects",
            "classification",
            "a\u{e9}",
            "abcdefghabcdefgh",
            "abcdefghabcdefgi",
            "xbcdefghabcdefgh",
        ];
        for a in names {
            for b in names {
                assert_eq!(same(a.as_bytes(), b.as_bytes()), a == b, "{a:?} {b:?}");
                if a == b {
                    assert_eq!(hash(a.as_bytes()), hash(b.as_bytes()));
                }
            }
        }
    }
}
