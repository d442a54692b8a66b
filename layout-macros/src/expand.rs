//! The expansion: the engine's canonical, validated layout as a
//! `StaticLayout` type under `$crate::__private`, or one spanned error in
//! an `Invalid` placeholder type.

use layout_core::layouts::typelevel::{element_marker_name, padding_value_code};
use layout_core::{ArrayLayout, Dim, Shape, text};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::quote;

use crate::diagnostic;
use crate::source::Source;

/// Expands `$crate; <shape tokens>` to the layout's type; on error, to the
/// placeholder type carrying the one `compile_error!`.
pub(crate) fn layout(input: TokenStream) -> Result<TokenStream, TokenStream> {
    let (krate, shape) = split_crate_path(input)?;
    let source = Source::new(shape);
    let checked = match text::parse_shape(&source.text) {
        Ok(parsed) => {
            let template = parsed.shape;
            // `?` dims are checked with the engine at a probe extent of 1:
            // every rule that does not depend on the extent applies.
            let mut dims = [Dim::Static(0); layout_core::MAX_RANK];
            for (d, dim) in template.dims().iter().enumerate() {
                dims[d] = match dim {
                    Dim::Unbounded => Dim::Static(1),
                    other => *other,
                };
            }
            let probe = Shape::with_dims(template.element_type(), &dims[..template.rank()])
                .and_then(|s| match template.layout() {
                    Some(l) => s.with_layout(*l),
                    None => Ok(s),
                })
                .and_then(ArrayLayout::new);
            probe
                .map(|l| (l, template))
                .map_err(|e| diagnostic::to_syn(&e, Some(&parsed.spans), &source))
        }
        Err(e) => Err(diagnostic::to_syn(&e, None, &source)),
    };
    match checked {
        Ok((layout, template)) => {
            if template.dims().iter().all(|d| matches!(d, Dim::Static(_))) {
                Ok(static_type(&krate, &layout))
            } else {
                Ok(mixed_type(&krate, &layout, &template))
            }
        }
        Err(e) => Err(placeholder(&krate, &e)),
    }
}

/// Splits the trampoline's `$crate ;` off the user's tokens.
fn split_crate_path(input: TokenStream) -> Result<(TokenStream, TokenStream), TokenStream> {
    let mut krate = TokenStream::new();
    let mut iter = input.into_iter();
    for tree in iter.by_ref() {
        match &tree {
            TokenTree::Punct(p) if p.as_char() == ';' => {
                return Ok((krate, iter.collect()));
            }
            _ => krate.extend([tree]),
        }
    }
    Err(syn::Error::new(
        proc_macro2::Span::call_site(),
        "use `tessera::layout!`, not this macro",
    )
    .to_compile_error())
}

/// `$crate::__private::Invalid<{ compile_error!(..) 0 }>`: the error sits
/// in the const argument, so it is reported once and the type stays usable
/// for the rest of type checking (no follow-on errors).
fn placeholder(krate: &TokenStream, err: &syn::Error) -> TokenStream {
    let error = err.to_compile_error();
    quote! { #krate::__private::Invalid<{ #error 0 }> }
}

fn num(n: usize) -> TokenStream {
    TokenTree::Literal(Literal::usize_unsuffixed(n)).into()
}

/// A tuple type of `items`, with the trailing comma a 1-tuple needs.
fn tuple(items: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let items = items.into_iter();
    quote! { (#(#items,)*) }
}

fn num_list(krate: &TokenStream, values: impl IntoIterator<Item = usize>) -> TokenStream {
    tuple(values.into_iter().map(|v| {
        let v = num(v);
        quote! { #krate::__private::N<#v> }
    }))
}

/// The type of `layout`, written from the engine's canonical values only
/// (never from the user's tokens), so equal layouts give equal types.
fn static_type(krate: &TokenStream, layout: &ArrayLayout) -> TokenStream {
    let shape = layout.shape();
    let rank = num(shape.rank());
    let element = element(krate, layout);
    let dense = if layout.is_row_major_dense() {
        quote!(true)
    } else {
        quote!(false)
    };
    let dims = dim_list(krate, shape.dims());
    let (m2m, tiles, attrs) = layout_params(krate, layout);
    quote! {
        #krate::__private::StaticLayout<#rank, #element, #dense, #dims, #m2m, #tiles, #attrs>
    }
}

/// The type of a layout with `?` or `<=N` dims: `template` has the dims as
/// written (canonical), `layout` is the engine's check of it at a probe
/// extent, whose canonical layout the type carries.
fn mixed_type(krate: &TokenStream, layout: &ArrayLayout, template: &Shape) -> TokenStream {
    let rank = num(template.rank());
    let dynamic = template
        .dims()
        .iter()
        .filter(|d| !matches!(d, Dim::Static(_)))
        .count();
    let dynamic = num(dynamic);
    let element = element(krate, layout);
    let dims = dim_list(krate, template.dims());
    let (m2m, tiles, attrs) = layout_params(krate, layout);
    quote! {
        #krate::__private::MixedLayout<#rank, #dynamic, #element, #dims, #m2m, #tiles, #attrs>
    }
}

/// The element type's marker (`F32`), named so that compiler messages
/// about the layout's type say which element type it holds.
fn element(krate: &TokenStream, layout: &ArrayLayout) -> TokenStream {
    let element_type = layout.shape().element_type();
    match element_marker_name(element_type) {
        Some(name) => {
            let marker = Ident::new(name, Span::call_site());
            quote! { #krate::__private::#marker }
        }
        // The engine accepts only array element types in a layout, so
        // this is not reached; should it be, it is one compile error.
        None => placeholder(
            krate,
            &syn::Error::new(
                Span::call_site(),
                format!("`{}` is not an array element type", element_type.name()),
            ),
        ),
    }
}

fn dim_list(krate: &TokenStream, dims: &[Dim]) -> TokenStream {
    tuple(dims.iter().map(|d| match *d {
        Dim::Static(n) => {
            let n = num(n);
            quote! { #krate::__private::N<#n> }
        }
        Dim::Bounded(n) => {
            let n = num(n);
            quote! { #krate::__private::AtMost<#n> }
        }
        Dim::Unbounded => quote! { #krate::__private::Dyn },
    }))
}

/// `minor_to_major`, the tiles and the other attributes as types.
fn layout_params(
    krate: &TokenStream,
    layout: &ArrayLayout,
) -> (TokenStream, TokenStream, TokenStream) {
    let l = layout.layout();
    let m2m = num_list(krate, l.minor_to_major().iter().map(|&d| usize::from(d)));
    let tiles = tuple(
        l.tiles()
            .iter()
            .map(|t| num_list(krate, t.raw().iter().copied())),
    );
    let splits = tuple(l.split_configs().iter().map(|sc| {
        let d = num(sc.dimension());
        let idx = num_list(
            krate,
            sc.split_indices()
                .iter()
                .map(|&i| usize::try_from(i).unwrap_or(usize::MAX)),
        );
        quote! { #krate::__private::Split<#d, #idx> }
    }));
    let pad = match l.padding() {
        None => quote! { #krate::__private::NoPad },
        Some(p) => {
            let code = TokenTree::Literal(Literal::u8_unsuffixed(padding_value_code(p.value())));
            let widths = num_list(krate, p.padded_dims().iter().copied());
            quote! { #krate::__private::Pad<#code, #widths> }
        }
    };
    let defaults = l.tail_padding_alignment_in_elements() == 1
        && l.element_size_in_bits() == 0
        && l.memory_space() == 0
        && l.dynamic_shape_metadata_prefix_bytes() == 0
        && l.split_configs().is_empty()
        && l.padding().is_none();
    if defaults {
        return (m2m, tiles, quote! { #krate::__private::DefaultAttrs });
    }
    let align = num(l.tail_padding_alignment_in_elements());
    let bits = TokenTree::Literal(Literal::u32_unsuffixed(l.element_size_in_bits()));
    let space = TokenTree::Literal(Literal::u32_unsuffixed(l.memory_space()));
    let prefix = num(l.dynamic_shape_metadata_prefix_bytes());
    let attrs = quote! {
        #krate::__private::Attrs<#align, #bits, #space, #prefix, #splits, #pad>
    };
    (m2m, tiles, attrs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn expand(input: &str) -> String {
        let tokens = TokenStream::from_str(&format!("krate ; {input}")).unwrap();
        match layout(tokens) {
            Ok(t) | Err(t) => t.to_string(),
        }
    }

    #[test]
    fn snapshot_of_a_tiled_layout() {
        assert_eq!(
            expand("f32[3,5]{1,0:T(2,2)}"),
            "krate :: __private :: StaticLayout < 2 , krate :: __private :: F32 , false , \
             (krate :: __private :: N < 3 > , krate :: __private :: N < 5 > ,) , \
             (krate :: __private :: N < 1 > , krate :: __private :: N < 0 > ,) , \
             ((krate :: __private :: N < 2 > , krate :: __private :: N < 2 > ,) ,) , \
             krate :: __private :: DefaultAttrs >"
        );
    }

    #[test]
    fn equal_layouts_expand_alike() {
        let canonical = expand("f32[3,5]{1,0}");
        for spelling in [
            "f32[3,5]",
            "f32[ 3, 5 ]<1,0>",
            "f32[3,5]{1,0:L(1)E(0)S(0)M(0)}",
        ] {
            assert_eq!(expand(spelling), canonical, "{spelling}");
        }
        assert_ne!(expand("f32[3,5]{0,1}"), canonical);
    }

    #[test]
    fn every_attribute_reaches_the_type() {
        let t = expand("f32[8,<=4]{0,1:T(2,*,2)L(2)E(32)S(1)SC(0:2)M(4)pad(8,4:zero)}");
        for part in [
            "AtMost < 4 >",
            "N < 0 > , krate :: __private :: N < 2 > ,) ,)",
            "Attrs < 2 , 32 , 1 , 4 , (krate :: __private :: Split < 0 ,",
            "Pad < 1 ,",
        ] {
            assert!(t.contains(part), "{part} not in {t}");
        }
    }

    #[test]
    fn the_element_type_is_written_as_its_marker() {
        for (text, marker) in [
            ("bf16[2]", "Bf16"),
            ("s4[8]{0:E(4)}", "S4"),
            ("pred[3]", "Pred"),
            ("f8e4m3fn[4]", "F8e4m3fn"),
            ("c128[?]", "C128"),
        ] {
            let t = expand(text);
            let want = format!(", krate :: __private :: {marker} ,");
            assert!(t.contains(&want), "{want} not in {t}");
        }
    }

    #[test]
    fn any_attribute_off_its_default_writes_attrs() {
        for text in [
            "u8[64]{0:L(32)}",
            "s4[8]{0:E(4)}",
            "f32[8]{0:S(1)}",
            "f32[8]{0:M(4)}",
            "f32[8]{0:SC(0:4)}",
            "f32[8]{0:pad(16:zero)}",
        ] {
            let t = expand(text);
            assert!(t.contains("__private :: Attrs <"), "{text}: {t}");
            assert!(!t.contains("DefaultAttrs"), "{text}: {t}");
        }
        assert!(expand("f32[8]{0:T(4)}").ends_with("krate :: __private :: DefaultAttrs >"));
    }

    #[test]
    fn an_error_is_one_compile_error_in_the_placeholder() {
        let t = expand("f32[3,5]{1,1}");
        assert!(t.starts_with("krate :: __private :: Invalid < {"), "{t}");
        assert_eq!(t.matches("compile_error").count(), 1, "{t}");
        assert!(
            t.contains("dimension `1` appears twice in minor_to_major"),
            "{t}"
        );
    }

    #[test]
    fn missing_crate_path_is_an_error() {
        let t = layout(TokenStream::from_str("f32[3]").unwrap())
            .unwrap_err()
            .to_string();
        assert!(t.contains("use `tessera::layout!`"), "{t}");
    }
}
