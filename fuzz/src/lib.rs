//! What the fuzz targets share: reading choices from the fuzzer's bytes,
//! and writing the layout text those choices describe (parsed by the
//! engine, so the targets test the engine's own grammar and rules).

use std::fmt::Write as _;

/// The fuzzer's bytes, read as a stream of small choices (zeros once they
/// run out, so every input is a complete description).
pub struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Choices<'a> {
    /// Reads from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Choices { data, at: 0 }
    }

    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.at..).unwrap_or(&[])
    }
}

/// A layout for an array of `dims`: any `minor_to_major`, up to two tile
/// levels of small entries (`*` sometimes), sometimes `L(n)` and, for
/// sub-byte types, `E(bits)`.
pub fn layout_text(c: &mut Choices<'_>, element_type: &str, dims: &[usize], bits: u32) -> String {
    let rank = dims.len();
    let mut m2m: Vec<usize> = (0..rank).rev().collect();
    for i in (1..rank).rev() {
        let j = c.below(i + 1);
        m2m.swap(i, j);
    }
    let mut text = format!("{element_type}[");
    for (i, d) in dims.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let _ = write!(text, "{d}");
    }
    text.push_str("]{");
    for (i, d) in m2m.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        let _ = write!(text, "{d}");
    }
    let mut attrs = String::new();
    let levels = c.below(3);
    if levels > 0 {
        attrs.push('T');
        for _ in 0..levels {
            let tile_rank = 1 + c.below(rank.max(1));
            attrs.push('(');
            for k in 0..tile_rank {
                if k > 0 {
                    attrs.push(',');
                }
                match c.below(8) {
                    0 => attrs.push('*'),
                    n => {
                        let _ = write!(attrs, "{}", [1, 2, 3, 4, 8, 5, 16][n - 1]);
                    }
                }
            }
            attrs.push(')');
        }
    }
    if c.below(4) == 0 {
        let _ = write!(attrs, "L({})", 1 + c.below(8));
    }
    if bits != 0 && bits < 8 {
        let _ = write!(attrs, "E({bits})");
    }
    if !attrs.is_empty() {
        text.push(':');
        text.push_str(&attrs);
    }
    text.push('}');
    text
}

/// `rank` dims of at most `max` each.
pub fn dims(c: &mut Choices<'_>, rank: usize, max: usize) -> Vec<usize> {
    (0..rank).map(|_| c.below(max + 1)).collect()
}
