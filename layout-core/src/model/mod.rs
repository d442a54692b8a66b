//! The data model: what XLA's shape text describes, as plain values. A
//! [`Tile`](tile::Tile), a [`Layout`](layout::Layout) (`minor_to_major`,
//! tiles and the other attributes) and a [`Shape`](shape::Shape) (element
//! type, dims, optional layout). Constructors check what a value can check
//! alone; the rules that relate a layout to a shape are in
//! [`validate`](crate::validate).

// Lowest first: each file uses only the ones declared before it.

// A tile of a tiled layout (`T(8,128)`).
pub mod tile;
// A layout: `minor_to_major`, tiles and the other attributes.
pub mod layout;
// A shape: element type, dims and an optional layout.
pub mod shape;
