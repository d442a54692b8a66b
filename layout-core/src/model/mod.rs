//! The data model: what XLA's shape text describes, as plain values. A
//! [`Tile`](tile::Tile), a [`Layout`](layout::Layout) (`minor_to_major`,
//! tiles and the other attributes) and a [`Shape`](shape::Shape) (element
//! type, dims, optional layout). Constructors check what a value can check
//! alone; the rules that relate a layout to a shape are in
//! [`validate`](crate::validate).

pub mod layout;
pub mod shape;
pub mod tile;
