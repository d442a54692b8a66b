//! Bytes to tokens with byte spans.
//!
//! Tokens: identifiers (`f32`, `T`, `SC`, `pad`), plain decimal integers,
//! the punctuation of XLA's shape grammar, `<=`, and the end of input.
//! Whitespace and `/* ... */` comments (XLA prints `/*index=5*/` in long
//! tuples) separate tokens and are skipped. A number glued to letters
//! (`3usize`, `0x10`) is one invalid-integer token, never a number and an
//! identifier.

use crate::error::message::Snippet;
use crate::error::{ByteSpan, Error, ErrorKind};

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Ident,
    /// Decimal digits; `None` when the value does not fit `u64`.
    Int(Option<u64>),
    /// One of `[ ] { } < > ( ) , : * # ? -`.
    Punct(u8),
    /// `<=`.
    LessEq,
    /// The end of the input.
    End,
}

/// A token and where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: TokenKind,
    pub(crate) span: ByteSpan,
}

/// A cursor over the input. `Copy`, so looking ahead is a copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lexer { text, pos: 0 }
    }

    /// The text of `span`.
    pub(crate) fn slice(&self, span: ByteSpan) -> &'a str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// A snippet quoting `token` for error messages.
    pub(crate) fn quote(&self, token: Token) -> Snippet {
        Snippet::new(self.slice(token.span))
    }

    /// The next token without consuming it.
    pub(crate) fn peek(&self) -> Result<Token, Error> {
        let mut copy = *self;
        copy.next_token()
    }

    /// The token after the next one, without consuming either.
    pub(crate) fn peek2(&self) -> Result<Token, Error> {
        let mut copy = *self;
        copy.next_token()?;
        copy.next_token()
    }

    /// Consumes and returns the next token.
    pub(crate) fn next_token(&mut self) -> Result<Token, Error> {
        self.skip_trivia()?;
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let Some(&c) = bytes.get(start) else {
            return Ok(Token {
                kind: TokenKind::End,
                span: ByteSpan::new(start, start),
            });
        };
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            self.pos = self.word_end(start);
            TokenKind::Ident
        } else if c.is_ascii_digit() {
            let digits_end = bytes[start..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(bytes.len(), |n| start + n);
            let end = self.word_end(digits_end);
            self.pos = end;
            if end != digits_end {
                return Err(Error::spanned(
                    ErrorKind::InvalidInteger {
                        text: Snippet::new(&self.text[start..end]),
                    },
                    ByteSpan::new(start, end),
                ));
            }
            let mut value: Option<u64> = Some(0);
            for &d in &bytes[start..end] {
                value = value
                    .and_then(|v| v.checked_mul(10))
                    .and_then(|v| v.checked_add(u64::from(d - b'0')));
            }
            TokenKind::Int(value)
        } else if c == b'<' && bytes.get(start + 1) == Some(&b'=') {
            self.pos = start + 2;
            TokenKind::LessEq
        } else if b"[]{}<>(),:*#?-".contains(&c) {
            self.pos = start + 1;
            TokenKind::Punct(c)
        } else {
            let ch = self.text[start..].chars().next().unwrap_or('\u{FFFD}');
            return Err(Error::spanned(
                ErrorKind::UnexpectedCharacter { found: ch },
                ByteSpan::new(start, start + ch.len_utf8()),
            ));
        };
        Ok(Token {
            kind,
            span: ByteSpan::new(start, self.pos),
        })
    }

    /// End of the identifier-like run starting at `from`.
    fn word_end(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        bytes[from..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .map_or(bytes.len(), |n| from + n)
    }

    fn skip_trivia(&mut self) -> Result<(), Error> {
        let bytes = self.text.as_bytes();
        loop {
            while bytes.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
                self.pos += 1;
            }
            if bytes.get(self.pos) == Some(&b'/') && bytes.get(self.pos + 1) == Some(&b'*') {
                let start = self.pos;
                match self.text[start + 2..].find("*/") {
                    Some(n) => self.pos = start + 2 + n + 2,
                    None => {
                        return Err(Error::spanned(
                            ErrorKind::UnexpectedEnd {
                                expected: "`*/` closing the comment",
                            },
                            ByteSpan::new(start, self.text.len()),
                        ));
                    }
                }
            } else {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Result<[TokenKind; 8], Error> {
        let mut l = Lexer::new(text);
        let mut out = [TokenKind::End; 8];
        for slot in &mut out {
            *slot = l.next_token()?.kind;
        }
        Ok(out)
    }

    #[test]
    fn tokens_and_spans() {
        let k = kinds("f32[ <=3, ?]{1,0:T(2,*)}").unwrap();
        assert_eq!(k[0], TokenKind::Ident);
        assert_eq!(k[1], TokenKind::Punct(b'['));
        assert_eq!(k[2], TokenKind::LessEq);
        assert_eq!(k[3], TokenKind::Int(Some(3)));
        assert_eq!(k[4], TokenKind::Punct(b','));
        assert_eq!(k[5], TokenKind::Punct(b'?'));
        let mut l = Lexer::new("  bf16 ");
        let t = l.next_token().unwrap();
        assert_eq!(t.span, ByteSpan::new(2, 6));
        assert_eq!(l.next_token().unwrap().kind, TokenKind::End);
    }

    #[test]
    fn bad_numbers_and_characters() {
        let e = kinds("f32[3usize]").unwrap_err();
        assert_eq!(e.span(), Some(ByteSpan::new(4, 10)));
        assert!(matches!(e.kind(), ErrorKind::InvalidInteger { .. }));
        assert_eq!(
            kinds("99999999999999999999").unwrap()[0],
            TokenKind::Int(None)
        );
        let e = kinds("f32[é]").unwrap_err();
        assert_eq!(e.span(), Some(ByteSpan::new(4, 6)));
    }

    #[test]
    fn comments_are_skipped_and_must_close() {
        assert_eq!(kinds("/*index=5*/f32").unwrap()[0], TokenKind::Ident);
        assert!(kinds("/*index=5").is_err());
    }
}
