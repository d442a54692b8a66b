//! The layout types a program holds and the traits they share: the
//! compile-time [`StaticLayout`](static_layout::StaticLayout) (`layout!`)
//! and [`MixedLayout`](mixed_layout::MixedLayout) with their type-level
//! parameters ([`typelevel`]), the run-time
//! [`PreparedLayout`](crate::PreparedLayout), the [`traits`] every layout
//! implements ([`ArrayLayout`](crate::ArrayLayout) included) and the tile
//! views of all of them ([`tiling`]).

// Lowest first, like the layers of the crate: each file uses only the
// ones declared before it.

// Type-level numbers in decimal, for compile errors (in `typelevel`).
mod decimal;
// Type-level numbers, element markers and attributes.
pub mod typelevel;
// The traits every layout implements (and `ArrayLayout`'s impls).
pub mod traits;
// `layout!`'s fully static layout type.
pub mod static_layout;
// Layouts with dims known only at run time (`?`, `<=N`).
pub mod mixed_layout;
// The traits for static and mixed layouts.
mod mixed_traits;
mod static_traits;
// `ArrayLayout` with its offset formula computed once.
pub(crate) mod prepared;
// Tile views of every layout.
pub mod tiling;
