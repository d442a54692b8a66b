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
///
/// ```
/// use tessera::{ArrayLayout, Message};
/// let err = "f32[3]".parse::<ArrayLayout>()?.try_offset(&[3]).unwrap_err();
/// let m: Message = err.message(); // composed without allocating
/// assert_eq!(m.as_str(), "index 3 is out of bounds for dimension `0` of size 3");
/// const RANK: Message = {
///     let mut m = Message::new();
///     m.push_str("rank ");
///     m.push_usize(2);
///     m
/// };
/// assert_eq!(RANK.as_str(), "rank 2");
/// # Ok::<(), tessera::Error>(())
/// ```
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

    /// Appends `s` with every character [`needs_escape`] written as an
    /// escape (`\0`, `\u{1b}`), so echoed input cannot drive a terminal.
    ///
    /// ```
    /// use tessera::Message;
    /// let mut m = Message::new();
    /// m.push_escaped("a\u{1b}[31mb");
    /// assert_eq!(m.as_str(), "a\\u{1b}[31mb");
    /// ```
    pub const fn push_escaped(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let (c, len) = decode_char(bytes, i);
            let (head, _) = bytes.split_at(i + len);
            let (_, one) = head.split_at(i);
            match escape_char(c) {
                Some(e) => self.push_str(e.as_str()),
                // `one` is the whole character, so it is valid UTF-8.
                None => {
                    if let Ok(t) = core::str::from_utf8(one) {
                        self.push_str(t);
                    }
                }
            }
            i += len;
        }
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

/// Whether echoing `c` to a terminal could act on it rather than show it:
/// the C0 and C1 controls, `DEL`, and the bidirectional controls (U+061C,
/// U+200E, U+200F, U+202A..=U+202E, U+2066..=U+2069) that reorder a line.
///
/// ```
/// use tessera::message::needs_escape;
/// assert!(needs_escape('\u{1b}') && needs_escape('\u{202e}') && needs_escape('\0'));
/// assert!(!needs_escape('é') && !needs_escape(' '));
/// ```
pub const fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\0'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// The escape of `c` as Rust writes it (`\0`, `\t`, `\n`, `\r`,
/// `\u{1b}`), or `None` when `c` is shown as itself.
///
/// ```
/// use tessera::message::escape_char;
/// assert_eq!(escape_char('\u{202e}').unwrap().as_str(), "\\u{202e}");
/// assert_eq!(escape_char('\0').unwrap().as_str(), "\\0");
/// assert!(escape_char('x').is_none());
/// ```
pub const fn escape_char(c: char) -> Option<Escape> {
    if !needs_escape(c) {
        return None;
    }
    let mut e = Escape {
        buf: [0; 10],
        len: 0,
    };
    let short = match c {
        '\0' => Some(b'0'),
        '\t' => Some(b't'),
        '\n' => Some(b'n'),
        '\r' => Some(b'r'),
        _ => None,
    };
    e.push(b'\\');
    if let Some(letter) = short {
        e.push(letter);
        return Some(e);
    }
    e.push(b'u');
    e.push(b'{');
    let v = c as u32;
    let mut shift = 28;
    let mut started = false;
    while shift >= 0 {
        let digit = ((v >> shift) & 0xF) as u8;
        if digit != 0 || started || shift == 0 {
            started = true;
            e.push(if digit < 10 {
                b'0' + digit
            } else {
                b'a' + digit - 10
            });
        }
        shift -= 4;
    }
    e.push(b'}');
    Some(e)
}

/// The text of one escaped character, from [`escape_char`].
///
/// ```
/// use tessera::message::{Escape, escape_char};
/// let e: Escape = escape_char('\t').unwrap();
/// assert_eq!(e.as_str(), "\\t");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Escape {
    buf: [u8; 10],
    len: usize,
}

impl Escape {
    const fn push(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }

    /// The escape, e.g. `\u{1b}`.
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(head) {
            Ok(s) => s,
            // Unreachable: only ASCII is pushed.
            Err(_) => "",
        }
    }
}

/// The character starting at byte `i` of the valid UTF-8 `bytes`, and its
/// length in bytes.
const fn decode_char(bytes: &[u8], i: usize) -> (char, usize) {
    let b0 = bytes[i] as u32;
    let (len, mut v) = if b0 < 0x80 {
        (1, b0)
    } else if b0 < 0xE0 {
        (2, b0 & 0x1F)
    } else if b0 < 0xF0 {
        (3, b0 & 0x0F)
    } else {
        (4, b0 & 0x07)
    };
    let mut k = 1;
    while k < len {
        v = (v << 6) | (bytes[i + k] as u32 & 0x3F);
        k += 1;
    }
    match char::from_u32(v) {
        Some(c) => (c, len),
        None => ('\u{fffd}', len),
    }
}

/// `text` displayed with every character [`needs_escape`] escaped, for
/// echoing input (messages, caret reports, command-line output).
///
/// ```
/// use tessera::message::Escaped;
/// assert_eq!(Escaped("f32[3\u{1b}[31m]").to_string(), "f32[3\\u{1b}[31m]");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a str);

impl core::fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for c in self.0.chars() {
            match escape_char(c) {
                Some(e) => f.write_str(e.as_str())?,
                None => core::fmt::Write::write_char(f, c)?,
            }
        }
        Ok(())
    }
}

/// Columns `c` takes when echoed: its escape's length, else 1.
///
/// ```
/// use tessera::message::echo_width;
/// assert_eq!((echo_width('\u{1b}'), echo_width('é')), (6, 1));
/// ```
pub fn echo_width(c: char) -> usize {
    escape_char(c).map_or(1, |e| e.as_str().len())
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
///
/// ```
/// use tessera::{ArrayLayout, ErrorKind, Snippet};
/// let err = "f33[3]".parse::<ArrayLayout>().unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::UnknownElementType { name: Snippet::new("f33") });
/// let long = Snippet::new("f32[3,5]{1,0:T(8,128)(2,1)}");
/// assert!(long.is_cut());
/// assert_eq!(long.to_string(), "f32[3,5]{1,0:T(8,128)(2,..."); // 24 bytes kept
/// ```
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
