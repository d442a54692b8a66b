//! Mirrors of XLA's utility classes, function for function, over the
//! engine's types: [`index_util`] (`IndexUtil`), [`layout_util`]
//! (`LayoutUtil`) and [`shape_util`] (`ShapeUtil`). They sit on top of the
//! engine and nothing in the engine uses them.

pub mod index_util;
pub mod layout_util;
pub mod shape_util;
