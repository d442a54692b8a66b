//! The layout types a program holds and the traits they share: the
//! compile-time [`StaticLayout`](static_layout::StaticLayout) (`layout!`)
//! and [`MixedLayout`](mixed_layout::MixedLayout) with their type-level
//! parameters ([`typelevel`]), the run-time
//! [`PreparedLayout`](crate::PreparedLayout), the [`traits`] every layout
//! implements ([`ArrayLayout`](crate::ArrayLayout) included) and the tile
//! views of all of them ([`tiling`]).

pub mod mixed_layout;
pub(crate) mod prepared;
pub mod static_layout;
pub mod tiling;
pub mod traits;
pub mod typelevel;
