//! The engine's errors as `syn::Error`s on the user's tokens: the engine's
//! message, spanned through the [`Source`] table on the tokens its byte span
//! covers.

use layout_core::text::SpanTable;
use proc_macro2::{Ident, Span, TokenStream};

use crate::source::Source;

/// `err` as a compile error. Errors from the parser carry a byte span;
/// errors found after parsing (sizes) carry a locus, which `spans` maps to
/// bytes. Either way the bytes map back to tokens through `source`.
pub(crate) fn to_syn(
    err: &layout_core::Error,
    spans: Option<&SpanTable>,
    source: &Source,
) -> syn::Error {
    let message = err.message();
    let bytes = err.span().or_else(|| spans.map(|t| t.span_of(err.locus())));
    let Some((first, last)) = bytes.and_then(|b| source.spans_of(b.start, b.end)) else {
        return syn::Error::new(Span::call_site(), message.as_str());
    };
    // `new_spanned` takes its start from the first token and its end from
    // the last, so on stable Rust the whole range is underlined.
    let mut ends = TokenStream::new();
    ends.extend(
        [Ident::new("start", first), Ident::new("end", last)]
            .map(Into::<proc_macro2::TokenTree>::into),
    );
    syn::Error::new_spanned(ends, message.as_str())
}
