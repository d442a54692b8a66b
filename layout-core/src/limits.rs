//! The capacities of the fixed-size engine: every layout, shape and tile is
//! a small `Copy` value with arrays of these lengths, so nothing allocates.
//! Inputs beyond them are errors that name the limit.

/// Most dimensions a shape may have. XLA has no fixed limit; 12 covers
/// every shape in XLA's tests (which reach rank 10) while keeping every
/// type a small fixed-size value.
///
/// ```
/// use tessera::{ArrayLayout, MAX_RANK};
/// let dims = vec!["1"; MAX_RANK + 1].join(",");
/// let e = format!("f32[{dims}]").parse::<ArrayLayout>().unwrap_err();
/// assert_eq!(e.to_string(), "rank 13 is above tessera's maximum of 12");
/// ```
pub const MAX_RANK: usize = 12;

/// Most tile levels in one layout (`T(8,128)(2,1)` has 2).
///
/// ```
/// use tessera::{ArrayLayout, MAX_TILE_LEVELS};
/// let four: ArrayLayout = "f32[64,64]{1,0:T(32,32)(16,16)(8,8)(4,4)}".parse()?;
/// assert_eq!(four.layout().tiles().len(), MAX_TILE_LEVELS);
/// assert!("f32[64,64]{1,0:T(32,32)(16,16)(8,8)(4,4)(2,2)}".parse::<ArrayLayout>().is_err());
/// # Ok::<(), tessera::Error>(())
/// ```
pub const MAX_TILE_LEVELS: usize = 4;

/// Most dimensions of a physical (tiled) shape: each tile level can add
/// as many dims as it has entries.
///
/// ```
/// use tessera::{ArrayLayout, MAX_PHYSICAL_RANK};
/// // `[2 tile rows, 3 tile columns, 2 rows, 2 columns]`.
/// let a: ArrayLayout = "f32[3,5]{1,0:T(2,2)}".parse()?;
/// assert_eq!(a.physical_dims().len(), 4);
/// assert!(a.physical_dims().len() <= MAX_PHYSICAL_RANK);
/// # Ok::<(), tessera::Error>(())
/// ```
pub const MAX_PHYSICAL_RANK: usize = MAX_RANK * (MAX_TILE_LEVELS + 1);

/// Most `SC(..)` split configs in one layout.
///
/// ```
/// use tessera::{ArrayLayout, MAX_SPLIT_CONFIGS};
/// let four = "f32[64,64]{1,0:SC(0:8)(0:16)(1:8)(1:16)}";
/// assert_eq!(four.parse::<ArrayLayout>()?.layout().split_configs().len(), MAX_SPLIT_CONFIGS);
/// assert!("f32[64,64]{1,0:SC(0:8)(0:16)(1:8)(1:16)(1:32)}".parse::<ArrayLayout>().is_err());
/// # Ok::<(), tessera::Error>(())
/// ```
pub const MAX_SPLIT_CONFIGS: usize = 4;

/// Most split indices in one split config.
///
/// ```
/// use tessera::{ArrayLayout, MAX_SPLIT_INDICES};
/// let eight = "f32[512]{0:SC(0:8,16,24,32,40,48,56,64)}";
/// assert_eq!(eight.parse::<ArrayLayout>()?.layout().split_configs()[0].split_indices().len(), MAX_SPLIT_INDICES);
/// assert!("f32[512]{0:SC(0:8,16,24,32,40,48,56,64,72)}".parse::<ArrayLayout>().is_err());
/// # Ok::<(), tessera::Error>(())
/// ```
pub const MAX_SPLIT_INDICES: usize = 8;

/// Deepest nesting of tuples the text parser accepts.
///
/// ```
/// use tessera::{MAX_TUPLE_DEPTH, text::write_canonical};
/// let nest = |depth: usize| format!("{}f32[2]{}", "(".repeat(depth), ")".repeat(depth));
/// let mut out = String::new();
/// assert!(write_canonical(&nest(MAX_TUPLE_DEPTH), &mut out).is_ok());
/// assert!(write_canonical(&nest(MAX_TUPLE_DEPTH + 1), &mut String::new()).is_err());
/// ```
pub const MAX_TUPLE_DEPTH: usize = 64;

/// Largest dimension size: XLA's `int64` limit, or `usize::MAX` on
/// targets where that is smaller.
///
/// ```
/// use tessera::{ArrayLayout, MAX_DIM_SIZE};
/// assert!(format!("u8[{MAX_DIM_SIZE}]").parse::<ArrayLayout>().is_ok());
/// let e = format!("u8[{}]", MAX_DIM_SIZE as u128 + 1).parse::<ArrayLayout>().unwrap_err();
/// assert_eq!(e.to_string(), "dimension size is too large (the maximum is 9223372036854775807)");
/// ```
pub const MAX_DIM_SIZE: usize = if usize::MAX as u64 > i64::MAX as u64 {
    i64::MAX as usize
} else {
    usize::MAX
};
