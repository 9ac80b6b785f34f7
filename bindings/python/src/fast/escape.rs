//! JSON string escaping exactly as `serde_json` writes it, and the short
//! copies the writer makes.

/// What a byte becomes inside a JSON string, as `serde_json` writes it:
/// 0 for itself, else the letter after the backslash (`u` for `\u00XX`).
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

/// How many leading bytes (a multiple of 8, or all) need no escape.
fn clean_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGH != 0;
    let mut chunks = bytes.chunks_exact(8);
    let mut clean = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // A byte below 0x20 (high bytes of UTF-8 never are), a quote, a backslash.
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH != 0;
        if control
            || has_zero(word ^ (ONES * u64::from(b'"')))
            || has_zero(word ^ (ONES * u64::from(b'\\')))
        {
            return clean;
        }
        clean += 8;
    }
    if chunks
        .remainder()
        .iter()
        .all(|&byte| ESCAPE[byte as usize] == 0)
    {
        bytes.len()
    } else {
        clean
    }
}

/// Writes UTF-8 `bytes` as a JSON string. Only ASCII bytes are ever
/// escaped, so multi-byte sequences pass through whole.
/// Appends `bytes`: slices of 4 to 32 bytes (most names and values) are
/// copied with two overlapping moves of 4, 8 or 16 bytes instead of a call
/// to `memcpy`.
#[inline]
#[allow(unsafe_code)]
pub(crate) fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if !(4..=32).contains(&n) {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(n);
    // SAFETY: `reserve` made room for `n` more bytes; each pair of reads of
    // `W` bytes (at 0 and at `n - W`) lies within `bytes` because
    // `W <= n <= 2 * W`, each write within the room, and `set_len` covers
    // exactly the `n` bytes the two overlapping writes fill.
    unsafe {
        let len = out.len();
        let dst = out.as_mut_ptr().add(len);
        let src = bytes.as_ptr();
        if n >= 16 {
            let head = std::ptr::read_unaligned(src.cast::<u128>());
            let tail = std::ptr::read_unaligned(src.add(n - 16).cast::<u128>());
            std::ptr::write_unaligned(dst.cast::<u128>(), head);
            std::ptr::write_unaligned(dst.add(n - 16).cast::<u128>(), tail);
        } else if n >= 8 {
            let head = std::ptr::read_unaligned(src.cast::<u64>());
            let tail = std::ptr::read_unaligned(src.add(n - 8).cast::<u64>());
            std::ptr::write_unaligned(dst.cast::<u64>(), head);
            std::ptr::write_unaligned(dst.add(n - 8).cast::<u64>(), tail);
        } else {
            let head = std::ptr::read_unaligned(src.cast::<u32>());
            let tail = std::ptr::read_unaligned(src.add(n - 4).cast::<u32>());
            std::ptr::write_unaligned(dst.cast::<u32>(), head);
            std::ptr::write_unaligned(dst.add(n - 4).cast::<u32>(), tail);
        }
        out.set_len(len + n);
    }
}

pub(crate) fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Most strings need no escape: skip clean 8-byte words at once.
    let clean = clean_prefix(bytes);
    if clean == bytes.len() {
        put(out, bytes);
        out.push(b'"');
        return;
    }
    let mut start = 0;
    for (index, &byte) in bytes.iter().enumerate().skip(clean) {
        let escape = ESCAPE[byte as usize];
        if escape == 0 {
            continue;
        }
        // In bounds: `start <= index < bytes.len()` (indexing panics on a bug
        // rather than writing a truncated string).
        out.extend_from_slice(&bytes[start..index]);
        if escape == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(byte >> 4) as usize]);
            out.push(HEX[(byte & 0xf) as usize]);
        } else {
            out.push(b'\\');
            out.push(escape);
        }
        start = index + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// The two unsafe-free references these are checked against: `Vec::extend_from_slice`
/// for `put`, `serde_json`'s string writer for `escaped`. Small enough to run under
/// Miri (`make miri`), which checks the word moves of `put` for out-of-bounds and
/// uninitialised accesses.
#[cfg(test)]
mod tests {
    use super::{escaped, put};

    /// Every length from 0 to 40 (`put`'s word-move path is 4 to 32 bytes, the
    /// clean-prefix scan takes 8-byte words), with each piece at the start, the
    /// middle and the end (so in the first word, a later word and the tail).
    fn strings() -> Vec<String> {
        let pieces = [
            "a", "\"", "\\", "\n", "\u{1}", "\u{7f}", "é", "😀", "/", "\u{1f}",
        ];
        let mut all = Vec::new();
        for piece in pieces {
            for len in 0..=40 {
                if len == 0 {
                    all.push(String::new());
                    continue;
                }
                for at in [0, len / 2, len - 1] {
                    let mut text = "x".repeat(len);
                    text.replace_range(at..at + 1, piece);
                    all.push(text);
                }
            }
        }
        all
    }

    #[test]
    fn put_appends_exactly_the_bytes() {
        for text in strings() {
            for prefix in 0..3 {
                let mut out = vec![b'p'; prefix];
                put(&mut out, text.as_bytes());
                let mut want = vec![b'p'; prefix];
                want.extend_from_slice(text.as_bytes());
                assert_eq!(out, want, "{text:?}");
            }
        }
    }

    #[test]
    fn escaped_writes_what_serde_json_writes() {
        for text in strings() {
            let mut out = b"[".to_vec();
            escaped(&mut out, text.as_bytes());
            let want = format!("[{}", serde_json::to_string(&text).unwrap_or_default());
            assert_eq!(String::from_utf8_lossy(&out), want, "{text:?}");
        }
    }
}
