//! A fixed-capacity text buffer that `const fn`s can write to.
//!
//! Error messages are composed here once, so the same sentence reaches a
//! run-time `Display`, the macro's `compile_error!` and a `const` evaluation
//! panic (`panic!("{}", msg.as_str())` is allowed in `const fn` on stable).

/// Capacity of a [`Message`] in bytes; longer text is cut at a character
/// boundary and ends in `...`.
pub const MESSAGE_CAPACITY: usize = 240;

/// A short text composed in `const` context: an error message or an
/// inline copy of a piece of input.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Message {
    buf: [u8; MESSAGE_CAPACITY],
    len: usize,
    cut: bool,
}

impl Message {
    /// An empty message.
    pub const fn new() -> Self {
        Message {
            buf: [0; MESSAGE_CAPACITY],
            len: 0,
            cut: false,
        }
    }

    /// The text written so far.
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(head) {
            Ok(s) => s,
            // Unreachable: only whole `str`s are pushed and cuts are made at
            // character boundaries.
            Err(_) => "",
        }
    }

    /// Appends `s`. Text that does not fit is cut at a character boundary
    /// and the message ends in `...`; later pushes are ignored.
    pub const fn push_str(&mut self, s: &str) {
        if self.cut {
            return;
        }
        let bytes = s.as_bytes();
        let usable = MESSAGE_CAPACITY - 3;
        let fits = self.len + bytes.len() <= usable;
        let mut n = if fits { bytes.len() } else { usable - self.len };
        if !fits {
            // Back off to a character boundary.
            while n > 0 && (bytes[n] & 0xC0) == 0x80 {
                n -= 1;
            }
        }
        let mut i = 0;
        while i < n {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        if !fits {
            let mut dots = 0;
            while dots < 3 {
                self.buf[self.len] = b'.';
                self.len += 1;
                dots += 1;
            }
            self.cut = true;
        }
    }

    /// Appends the decimal form of `n`.
    pub const fn push_u64(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut out = [0u8; 20];
        let mut i = 0;
        while i < count {
            out[i] = digits[count - 1 - i];
            i += 1;
        }
        let (head, _) = out.split_at(count);
        if let Ok(s) = core::str::from_utf8(head) {
            self.push_str(s);
        }
    }

    /// Appends the decimal form of `n`.
    pub const fn push_usize(&mut self, n: usize) {
        self.push_u64(n as u64);
    }

    /// Appends the decimal form of `n`, with a `-` when negative.
    pub const fn push_i64(&mut self, n: i64) {
        if n < 0 {
            self.push_str("-");
        }
        self.push_u64(n.unsigned_abs());
    }

    /// Appends `s` between backticks.
    pub const fn push_code(&mut self, s: &str) {
        self.push_str("`");
        self.push_str(s);
        self.push_str("`");
    }

    /// Appends `n` between backticks.
    pub const fn push_code_usize(&mut self, n: usize) {
        self.push_str("`");
        self.push_usize(n);
        self.push_str("`");
    }
}

impl Default for Message {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Display for Message {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Debug for Message {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

/// A copy of a short piece of input text (at most [`SNIPPET_CAPACITY`]
/// bytes, cut at a character boundary), so errors can quote what they
/// reject without borrowing the input.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Snippet {
    buf: [u8; SNIPPET_CAPACITY],
    len: u8,
    cut: bool,
}

/// Capacity of a [`Snippet`] in bytes.
pub const SNIPPET_CAPACITY: usize = 24;

impl Snippet {
    /// Copies `s`, cutting it at a character boundary if it is longer than
    /// [`SNIPPET_CAPACITY`].
    pub const fn new(s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut n = if bytes.len() <= SNIPPET_CAPACITY {
            bytes.len()
        } else {
            SNIPPET_CAPACITY
        };
        let cut = n < bytes.len();
        if cut {
            while n > 0 && (bytes[n] & 0xC0) == 0x80 {
                n -= 1;
            }
        }
        let mut buf = [0u8; SNIPPET_CAPACITY];
        let mut i = 0;
        while i < n {
            buf[i] = bytes[i];
            i += 1;
        }
        Snippet {
            buf,
            len: n as u8,
            cut,
        }
    }

    /// The copied text (without any mark that it was cut).
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.buf.split_at(self.len as usize);
        match core::str::from_utf8(head) {
            Ok(s) => s,
            Err(_) => "",
        }
    }

    /// Whether the original text was longer than what was kept.
    pub const fn is_cut(&self) -> bool {
        self.cut
    }
}

impl core::fmt::Debug for Snippet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::fmt::Display for Snippet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())?;
        if self.cut { f.write_str("...") } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_text() {
        let mut m = Message::new();
        m.push_str("a ");
        m.push_u64(0);
        m.push_str(" ");
        m.push_i64(-120);
        m.push_str(" ");
        m.push_u64(u64::MAX);
        assert_eq!(m.as_str(), "a 0 -120 18446744073709551615");
        let mut m = Message::new();
        m.push_i64(i64::MIN);
        assert_eq!(m.as_str(), "-9223372036854775808");
    }

    #[test]
    fn long_text_is_cut_at_a_char_boundary() {
        let mut m = Message::new();
        for _ in 0..200 {
            m.push_str("é");
        }
        assert!(m.as_str().ends_with("..."));
        assert!(m.as_str().len() <= MESSAGE_CAPACITY);
        let s = Snippet::new("ééééééééééééééééééééééé");
        assert!(s.is_cut());
        assert_eq!(s.as_str().chars().count(), 12);
    }
}
