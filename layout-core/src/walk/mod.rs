//! Loop nests: visiting every element of a layout, or of two layouts at
//! once, incrementally (no division and no offset recomputed per element).
//!
//! The engine's [`physical_dims`](crate::ArrayLayout::physical_dims) says which
//! digit `(index[d] / div) % modulus` of the logical index each physical
//! dim holds. When the digits of every logical dimension form an exact
//! mixed-radix chain (each `div` is the previous `div * modulus`, the last
//! digit covers the whole dimension), the index can be counted digit by
//! digit: a [`LoopNest`] is that list of counters, each with its stride in
//! one or two buffers.
//!
//! ```text
//! f32[3,5]{1,0:T(2,2)}, in memory order:
//!
//!   level   counts            extent  stride
//!   y / 2   tile rows         2       12
//!   x / 2   tile columns      3        4
//!   y % 2   row in tile       2        2
//!   x % 2   column in tile    2        1
//! ```
//!
//! A relayout nest ([`LoopNest::relayout`]) refines the digits of both
//! layouts to common ones, orders them as the destination's memory, and
//! merges levels that are contiguous in both buffers, so its innermost
//! level is the longest run that both buffers hold in order: for
//! row-major → `T(8,128)`, runs of 128 elements with stride 1 in both.
//!
//! Bounds are handled per level, not per element: a level's trip count is
//! `min(extent, ceil((size - outer part) / div))`, computed when the level
//! is entered, so tile padding is skipped without a test per element.
//!
//! Kernels take more than one element per call: a run of the innermost
//! level ([`LoopNest::for_each_run`]), a block of two levels, a plane of
//! three, or a volume of four ([`LoopNest::for_each_volume`]), each as
//! large as the trip counts allow while all its runs have the same length.

// Lowest first: each file uses only the ones declared before it.

// Building nests over one layout or two.
mod nest;
// Running a nest: runs, blocks, planes, volumes.
mod traverse;
// A relayout nest built once for every size of a mixed layout.
mod template;
// A layout's slots as runs of its innermost physical dim.
mod slot_runs;
// Iterators over elements and slots.
mod iter;
// A layout's padding or elements as boxes of its physical dims.
mod boxes;

pub use boxes::{MAX_SLOT_BOXES, SlotBoxes};
pub use iter::{Elements, Slots};
pub use nest::{Level, LoopNest, MAX_LOOP_LEVELS, check_same_dims};
pub use slot_runs::SlotRuns;
pub use template::NestTemplate;
pub use traverse::{for_each_run_start, for_each_step};
