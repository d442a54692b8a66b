//! Macro tokens to shape text, with a table from byte ranges back to the
//! tokens' spans, so the engine's parser reads exactly what the user wrote
//! and its errors can point at the user's tokens.

use std::ops::Range;

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};

/// The text of a token stream and where each token sits in it.
pub(crate) struct Source {
    /// Token texts joined by spaces (none after a joint punctuation
    /// character, so `<` `=` stays `<=`).
    pub(crate) text: String,
    /// Each token (a group's open and close characters count as tokens) in
    /// text order: its byte range and its span.
    pub(crate) tokens: Vec<(Range<usize>, Span)>,
}

impl Source {
    /// Writes out `input`, recording each token's byte range.
    pub(crate) fn new(input: TokenStream) -> Source {
        let mut source = Source {
            text: String::new(),
            tokens: Vec::new(),
        };
        let mut glue = false;
        source.walk(input, &mut glue);
        source
    }

    fn push(&mut self, text: &str, span: Span, glue: &mut bool, joint: bool) {
        if !self.text.is_empty() && !*glue {
            self.text.push(' ');
        }
        let start = self.text.len();
        self.text.push_str(text);
        self.tokens.push((start..self.text.len(), span));
        *glue = joint;
    }

    fn walk(&mut self, input: TokenStream, glue: &mut bool) {
        for tree in input {
            match tree {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    if !open.is_empty() {
                        self.push(open, g.span_open(), glue, false);
                    }
                    self.walk(g.stream(), glue);
                    if !close.is_empty() {
                        self.push(close, g.span_close(), glue, false);
                    }
                }
                TokenTree::Ident(i) => self.push(&i.to_string(), i.span(), glue, false),
                TokenTree::Punct(p) => {
                    let joint = p.spacing() == Spacing::Joint;
                    self.push(p.as_char().encode_utf8(&mut [0; 4]), p.span(), glue, joint);
                }
                TokenTree::Literal(l) => self.push(&l.to_string(), l.span(), glue, false),
            }
        }
    }

    /// The spans of the first and last tokens overlapping `start..end`; for
    /// an empty range, the token at or after `start` (the last token at the
    /// end of the text). `None` when there are no tokens.
    pub(crate) fn spans_of(&self, start: usize, end: usize) -> Option<(Span, Span)> {
        let overlapping: Vec<Span> = self
            .tokens
            .iter()
            .filter(|(r, _)| r.start < end && start < r.end)
            .map(|(_, s)| *s)
            .collect();
        if let (Some(first), Some(last)) = (overlapping.first(), overlapping.last()) {
            return Some((*first, *last));
        }
        let next = self
            .tokens
            .iter()
            .find(|(r, _)| r.end > start)
            .or(self.tokens.last());
        next.map(|(_, s)| (*s, *s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    #[test]
    fn text_and_ranges() {
        let ts = TokenStream::from_str("f32[ 3, <=5 ]<1,0:T(2,2)>").unwrap();
        let s = Source::new(ts);
        assert_eq!(s.text, "f32 [ 3 , <= 5 ] < 1 , 0 : T ( 2 , 2 ) >");
        let ranges: Vec<_> = s.tokens.iter().map(|(r, _)| &s.text[r.clone()]).collect();
        assert_eq!(ranges[..6], ["f32", "[", "3", ",", "<", "="]);
        assert_eq!(ranges.last(), Some(&">"));
    }

    #[test]
    fn empty_range_finds_next_token() {
        let s = Source::new(TokenStream::from_str("f32 [ 3 ]").unwrap());
        assert!(s.spans_of(3, 3).is_some());
        assert!(s.spans_of(100, 100).is_some());
        assert!(Source::new(TokenStream::new()).spans_of(0, 0).is_none());
    }
}
