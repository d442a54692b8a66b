//! The capacities of the fixed-size engine: every layout, shape and tile is
//! a small `Copy` value with arrays of these lengths, so nothing allocates.
//! Inputs beyond them are errors that name the limit.

/// Most dimensions a shape may have. XLA has no fixed limit; 12 covers
/// every shape in XLA's tests (which reach rank 10) while keeping every
/// type a small fixed-size value.
pub const MAX_RANK: usize = 12;

/// Most tile levels in one layout (`T(8,128)(2,1)` has 2).
pub const MAX_TILE_LEVELS: usize = 4;

/// Most dimensions of a physical (tiled) shape: each tile level can add
/// as many dims as it has entries.
pub const MAX_PHYSICAL_RANK: usize = MAX_RANK * (MAX_TILE_LEVELS + 1);

/// Most `SC(..)` split configs in one layout.
pub const MAX_SPLIT_CONFIGS: usize = 4;

/// Most split indices in one split config.
pub const MAX_SPLIT_INDICES: usize = 8;

/// Deepest nesting of tuples the text parser accepts.
pub const MAX_TUPLE_DEPTH: usize = 64;

/// Largest dimension size: XLA's `int64` limit, or `usize::MAX` on
/// targets where that is smaller.
pub const MAX_DIM_SIZE: usize = if usize::MAX as u64 > i64::MAX as u64 {
    i64::MAX as usize
} else {
    usize::MAX
};
