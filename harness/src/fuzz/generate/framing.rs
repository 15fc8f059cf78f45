//! Byte-level mutations of encoded messages: what a line-delimited JSON reader meets when the
//! bytes are not one message per line (truncated, not UTF-8, a NUL, newlines inside, CRLF, a
//! BOM, split over writes or several in one, a giant line, blank lines, flipped bits).

use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// One framing mutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Framing {
    Truncate,
    InvalidUtf8,
    NulByte,
    /// Newlines inside the JSON (pretty-printed, or one after a `,` or `:`).
    EmbeddedNewline,
    Crlf,
    Bom,
    /// One message over several writes.
    SplitWrites,
    /// Several messages in one write.
    CoalescedWrites,
    /// A line of 1 to 3 MiB.
    GiantLine,
    /// Empty and whitespace-only lines around the message.
    BlankLines,
    BitFlip,
}

impl Framing {
    /// Every framing mutation with its weight among framing mutations.
    pub const WEIGHTED: [(Framing, u32); 11] = [
        (Framing::Truncate, 25),
        (Framing::InvalidUtf8, 25),
        (Framing::NulByte, 15),
        (Framing::EmbeddedNewline, 20),
        (Framing::Crlf, 15),
        (Framing::Bom, 12),
        (Framing::SplitWrites, 25),
        (Framing::CoalescedWrites, 20),
        (Framing::GiantLine, 3),
        (Framing::BlankLines, 15),
        (Framing::BitFlip, 25),
    ];
}

/// Byte sequences that are not UTF-8: a byte never used, an overlong NUL, a lone continuation
/// byte, a truncated three-byte character, an encoded surrogate, a five-byte form.
const INVALID_UTF8: [&[u8]; 6] =
    [b"\xff", b"\xc0\x80", b"\x80", b"\xe2\x82", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"];

const BLANK_LINES: [&[u8]; 5] = [b"\n", b"   \n", b"\t\r\n", b"\r\n", b" \t \n"];

/// `writes` with the framing mutation applied to `writes[target]` (all of them for
/// [`Framing::CoalescedWrites`] and [`Framing::Crlf`]); the new writes and what was done.
pub fn apply(
    framing: Framing,
    mut writes: Vec<Vec<u8>>,
    target: usize,
    rng: &mut ChaCha8Rng,
) -> (Vec<Vec<u8>>, String) {
    if writes.is_empty() {
        writes.push(b"\n".to_vec());
    }
    let target = target.min(writes.len() - 1);
    let mut bytes = std::mem::take(&mut writes[target]);
    // Where a mutation lands inside the line: never after its newline.
    let body = bytes.strip_suffix(b"\n").map_or(bytes.len(), <[u8]>::len);
    let what = match framing {
        Framing::Truncate => {
            let at = rng.random_range(0..body.max(1));
            bytes.truncate(at);
            if rng.random_bool(0.5) {
                bytes.push(b'\n');
                format!("truncated to {at} bytes")
            } else {
                format!("truncated to {at} bytes, no newline")
            }
        }
        Framing::InvalidUtf8 => {
            let seq = INVALID_UTF8.choose(rng).copied().unwrap_or(b"\xff");
            let at = inside_string(&bytes[..body], rng);
            bytes.splice(at..at, seq.iter().copied());
            format!("invalid UTF-8 {seq:02x?} at byte {at}")
        }
        Framing::NulByte => {
            let at = rng.random_range(0..=body);
            bytes.insert(at, 0);
            format!("NUL byte at {at}")
        }
        Framing::EmbeddedNewline => {
            let pretty = serde_json::from_slice::<serde_json::Value>(&bytes[..body])
                .ok()
                .filter(|_| rng.random_bool(0.5))
                .and_then(|v| serde_json::to_vec_pretty(&v).ok());
            match pretty {
                Some(mut pretty) => {
                    pretty.push(b'\n');
                    bytes = pretty;
                    "pretty-printed over several lines".to_owned()
                }
                None => {
                    let seams: Vec<usize> = (0..body)
                        .filter(|&i| matches!(bytes[i], b',' | b':' | b'{'))
                        .map(|i| i + 1)
                        .collect();
                    let at = seams.choose(rng).copied().unwrap_or(body / 2);
                    bytes.insert(at, b'\n');
                    format!("newline inside the JSON at byte {at}")
                }
            }
        }
        Framing::Crlf => {
            for write in writes.iter_mut().chain(std::iter::once(&mut bytes)) {
                if write.last() == Some(&b'\n') {
                    write.pop();
                    write.extend_from_slice(b"\r\n");
                }
            }
            "CRLF line endings".to_owned()
        }
        Framing::Bom => {
            bytes.splice(0..0, [0xef, 0xbb, 0xbf]);
            "BOM before the message".to_owned()
        }
        Framing::SplitWrites => {
            let parts = rng.random_range(2..=8usize).min(bytes.len().max(1));
            let mut cuts: Vec<usize> = (1..parts).map(|_| rng.random_range(1..bytes.len().max(2))).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut pieces = Vec::with_capacity(cuts.len() + 1);
            let mut start = 0;
            for cut in cuts.into_iter().filter(|&c| c < bytes.len()) {
                pieces.push(bytes[start..cut].to_vec());
                start = cut;
            }
            pieces.push(bytes[start..].to_vec());
            let what = format!("message split over {} writes", pieces.len());
            writes.splice(target..=target, pieces);
            return (writes, what);
        }
        Framing::CoalescedWrites => {
            writes[target] = bytes;
            let n = writes.len();
            return (vec![writes.concat()], format!("{n} messages in one write"));
        }
        Framing::GiantLine => {
            let len = rng.random_range(1 << 20..3 << 20);
            if rng.random_bool(0.5) {
                // Valid JSON: whitespace before the message is allowed.
                bytes.splice(0..0, std::iter::repeat_n(b' ', len));
                format!("message after {len} spaces on one line")
            } else {
                let mut giant = vec![b'A'; len];
                giant.push(b'\n');
                bytes.splice(0..0, giant);
                format!("a line of {len} bytes before the message")
            }
        }
        Framing::BlankLines => {
            let before: Vec<u8> = (0..rng.random_range(0..=2))
                .flat_map(|_| BLANK_LINES.choose(rng).copied().unwrap_or(b"\n").iter().copied())
                .collect();
            let after = BLANK_LINES.choose(rng).copied().unwrap_or(b"\n");
            bytes.splice(0..0, before.iter().copied());
            bytes.extend_from_slice(after);
            "blank and whitespace-only lines around the message".to_owned()
        }
        Framing::BitFlip => {
            let flips = rng.random_range(1..=4);
            for _ in 0..flips {
                let at = rng.random_range(0..body.max(1)).min(bytes.len().saturating_sub(1));
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= 1 << rng.random_range(0..8);
                }
            }
            if flips == 1 {
                "1 bit flipped".to_owned()
            } else {
                format!("{flips} bits flipped")
            }
        }
    };
    writes[target] = bytes;
    (writes, what)
}

/// A position inside a JSON string of the line when there is one (just after a quote), so the
/// rest of the line still parses; anywhere otherwise.
fn inside_string(line: &[u8], rng: &mut ChaCha8Rng) -> usize {
    let quotes: Vec<usize> = (0..line.len()).filter(|&i| line[i] == b'"').map(|i| i + 1).collect();
    quotes.choose(rng).copied().unwrap_or_else(|| rng.random_range(0..=line.len()))
}
