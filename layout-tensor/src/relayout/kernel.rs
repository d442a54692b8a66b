//! The relayout planner: which kernel copies along a loop nest, chosen
//! once per call from the strides of the nest's levels (never from the
//! layouts' text), so every pair of layouts with the same structure gets
//! the same kernel, static, mixed and run-time alike.

use layout_core::walk::{LoopNest, MAX_LOOP_LEVELS};
use layout_core::{ArrayLayout, Error};

/// The kernel a relayout runs ([`TensorBase::relayout_into`]), as the
/// planner chooses it from the loop nest ([`LoopNest::relayout`]) of the
/// two layouts.
///
/// ```
/// use tessera::RelayoutKernel;
/// use tessera::ArrayLayout;
/// let kernel = |src: &str, dst: &str| {
///     let (src, dst): (ArrayLayout, ArrayLayout) = (src.parse().unwrap(), dst.parse().unwrap());
///     RelayoutKernel::for_layouts(&src, &dst).unwrap()
/// };
/// assert_eq!(kernel("f32[64,256]{1,0}", "f32[64,256]{1,0:T(8,128)}"), RelayoutKernel::ContiguousRuns);
/// assert_eq!(kernel("f32[64,256]{1,0}", "f32[64,256]{0,1}"), RelayoutKernel::Transpose);
/// assert_eq!(
///     kernel("bf16[64,256]{1,0}", "bf16[64,256]{1,0:T(8,128)(2,1)}"),
///     RelayoutKernel::Interleave { factor: 2 }
/// );
/// ```
///
/// [`TensorBase::relayout_into`]: crate::TensorBase::relayout_into
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RelayoutKernel {
    /// No loop nest serves the pair (a `*` that merges two varying
    /// dimensions, or tiles that cut a dimension at points that do not
    /// divide each other): element by element, through each layout's
    /// offsets.
    ElementByElement,
    /// The innermost level is contiguous in both buffers: runs copied
    /// whole (a pack into or unpack from `T(8,128)`, a permutation of
    /// major dims).
    ContiguousRuns,
    /// The innermost level steps through `factor` source rows (2 or 4;
    /// for packed sub-byte layouts `8 / n`, up to 8 rows of bits) into
    /// consecutive destination slots, the next level along the rows:
    /// `factor` rows interleaved (the pack of `T(2,1)` and `T(4,1)`
    /// sub-tiles).
    Interleave {
        /// Rows interleaved per destination group.
        factor: usize,
    },
    /// The innermost level reads every `factor`-th source element (2 or
    /// 4; for packed sub-byte layouts `8 / n`) into a destination row,
    /// the level outside the next one moves one source element: `factor`
    /// rows deinterleaved (the unpack of `T(2,1)` and `T(4,1)`
    /// sub-tiles).
    Deinterleave {
        /// Rows split out of each source group.
        factor: usize,
    },
    /// The innermost level is contiguous in the destination but not in
    /// the source, and another level is contiguous in the source: a
    /// transpose of the two, copied in cache-sized square blocks of
    /// vectors (a `minor_to_major` change of the two most minor dims,
    /// with or without tiling on either side). The planner moves the
    /// source's contiguous level next to the innermost one
    /// ([`LoopNest::with_level_moved`]). For packed sub-byte layouts
    /// (`E(n)`), also a transpose whose bytes hold `8 / n` slots along
    /// one level in the source and along the other in the destination
    /// (`s4` `{1,0:E(4)}` → `{0,1:E(4)}`): squares of `8 / n` bytes, a
    /// square transpose of their fields each (source rows that start
    /// mid-byte realigned as they are read, destination rows that do
    /// shifted as they are written).
    Transpose,
    /// The innermost level is a short run (2, 4 or 8 elements) contiguous
    /// in both buffers, and in units of that run the nest is a
    /// [`Transpose`](Self::Transpose): the transpose kernel over units of
    /// `unit` elements ([`LoopNest::by_units`]). A transpose into `(2,1)`
    /// or `(4,1)` sub-tiles (`{1,0}` → `{0,1:T(8,128)(2,1)}` for `bf16`)
    /// is a transpose of pairs or quads.
    UnitTranspose {
        /// Elements per unit.
        unit: usize,
    },
    /// A [`UnitTranspose`](Self::UnitTranspose) whose units start at any
    /// element of one buffer: the transpose into `(2,1)` sub-tiles of a
    /// `bf16` array whose rows are an odd number of elements long, whose
    /// pairs start at odd offsets in every other row. The units are whole
    /// (`unit` elements contiguous in both buffers, the last of a row cut
    /// short where its dimension ends), the nest has a level along which
    /// they follow each other in the source and one along which they do in
    /// the destination, and the other buffer's strides are whole units.
    /// Cache-sized pieces of the misaligned buffer go through a staging
    /// buffer on the stack (16 KiB on x86-64), where every unit starts at a
    /// multiple of `unit`, and the transpose kernel moves them as units
    /// between it and the other buffer.
    StagedUnitTranspose {
        /// Elements per unit.
        unit: usize,
    },
    /// The innermost two levels are a `side × side` square of elements
    /// (2 or 4) contiguous in both buffers, transposed between them
    /// ([`LoopNest::in_squares`]): a transpose between two layouts of
    /// `(side,1)` sub-tiles (`bf16` `{0,1:T(8,128)(2,1)}` into
    /// `{1,0:T(8,128)(2,1)}`, `s8` `T(8,128)(4,1)` the same), whose
    /// squares of `side` rows by `side` columns are `side²` consecutive
    /// slots in each. Each square is loaded, transposed in registers and
    /// stored in one pass along the nest in squares; squares of 8 bytes
    /// (`bf16`) in tiles of 4 × 4 in AVX2's vectors where the CPU has it.
    SquareTranspose {
        /// Rows (and columns) of each square.
        side: usize,
    },
    /// Any other strides: element by element along the nest.
    Strided,
    /// Packed sub-byte layouts (`E(n)` below 8 bits) whose bytes do not
    /// hold the same elements in both buffers (other than the row
    /// interleaves and the transposes of squares above), or whose slot
    /// widths differ from each other or from the value's: slot by slot
    /// along the nest, the runs contiguous in both buffers a byte at a
    /// time: copied when equally aligned, shifted when they start at
    /// different bits of a byte, and unpacked and packed again when the
    /// slot widths differ ([`PackedBase::relayout_into`]). Packed layouts
    /// whose bytes hold the same elements relayout as bytes, with the
    /// kernel for the nest in bytes ([`LoopNest::in_units`]): a transpose
    /// into `T(8,128)(2,1)E(4)` moves bytes of two `s4`.
    ///
    /// [`PackedBase::relayout_into`]: crate::PackedBase::relayout_into
    PackedSlots,
}

impl RelayoutKernel {
    /// The kernel for copying along `nest` (`None`: no nest serves the
    /// pair).
    ///
    /// ```
    /// use tessera::RelayoutKernel;
    /// use tessera::{walk::LoopNest, ArrayLayout};
    /// let src: ArrayLayout = "s8[64,256]{1,0:T(8,128)(4,1)}".parse().unwrap();
    /// let dst: ArrayLayout = "s8[64,256]{1,0}".parse().unwrap();
    /// let nest = LoopNest::relayout(&src, &dst).unwrap();
    /// assert_eq!(
    ///     RelayoutKernel::for_nest(nest.as_ref()),
    ///     RelayoutKernel::Deinterleave { factor: 4 }
    /// );
    /// ```
    pub const fn for_nest(nest: Option<&LoopNest>) -> RelayoutKernel {
        let Some(nest) = nest else {
            return RelayoutKernel::ElementByElement;
        };
        let [_, step, row, [si, di]] = nest.volume_strides();
        if si == 1 && di == 1 {
            // Only runs of 2, 4 or 8 elements can be units of a transpose:
            // asked first, since the nest in units is a copy of the nest.
            match nest.levels().last() {
                Some(run) if matches!(run.extent, 2 | 4 | 8) => {}
                _ => return RelayoutKernel::ContiguousRuns,
            }
            match nest.by_units() {
                Some((units, unit))
                    if matches!(unit, 2 | 4 | 8)
                        && matches!(
                            RelayoutKernel::for_nest(Some(&units)),
                            RelayoutKernel::Transpose
                        ) =>
                {
                    RelayoutKernel::UnitTranspose { unit }
                }
                _ => match staged_units(nest) {
                    Some(staged) => RelayoutKernel::StagedUnitTranspose { unit: staged.unit },
                    None => RelayoutKernel::ContiguousRuns,
                },
            }
        } else if let Some(side) = transposed_squares(nest) {
            RelayoutKernel::SquareTranspose { side }
        } else if row[0] == 1 && di == 1 && (row[1] == 2 || row[1] == 4) {
            RelayoutKernel::Interleave { factor: row[1] }
        } else if step[0] == 1 && (si == 2 || si == 4) && di == 1 {
            RelayoutKernel::Deinterleave { factor: si }
        } else if di == 1 && source_contiguous_level(nest).is_some() {
            RelayoutKernel::Transpose
        } else {
            RelayoutKernel::Strided
        }
    }

    /// The kernel [`TensorBase::relayout_into`] runs from `src` into
    /// `dst`.
    ///
    /// # Errors
    /// The layouts differ in element type, rank or a dimension's size.
    ///
    /// ```
    /// use tessera::RelayoutKernel;
    /// use tessera::ArrayLayout;
    /// let src: ArrayLayout = "f32[2048,2048]{1,0}".parse().unwrap();
    /// let dst: ArrayLayout = "f32[2048,2048]{0,1:T(8,128)}".parse().unwrap();
    /// assert_eq!(RelayoutKernel::for_layouts(&src, &dst).unwrap(), RelayoutKernel::Transpose);
    /// ```
    ///
    /// [`TensorBase::relayout_into`]: crate::TensorBase::relayout_into
    pub const fn for_layouts(
        src: &ArrayLayout,
        dst: &ArrayLayout,
    ) -> Result<RelayoutKernel, Error> {
        let nest = match LoopNest::relayout(src, dst) {
            Ok(nest) => nest,
            Err(e) => return Err(e),
        };
        let bits = [src.element_size_in_bits(), dst.element_size_in_bits()];
        if bits[0] >= 8 && bits[1] >= 8 {
            return Ok(RelayoutKernel::for_nest(nest.as_ref()));
        }
        // Packed sub-byte layouts ([`PackedBase::relayout_into`]).
        let Some(nest) = nest else {
            return Ok(RelayoutKernel::ElementByElement);
        };
        let value_bits = src.element_type().bit_width() as usize;
        if let Some(bytes) = packed_bytes(&nest, bits, value_bits) {
            return Ok(RelayoutKernel::for_nest(Some(&bytes)));
        }
        if let Some(kernel) = packed_fields(&nest, bits, value_bits) {
            return Ok(kernel);
        }
        Ok(match packed_squares(&nest, bits, value_bits) {
            Some(_) => RelayoutKernel::Transpose,
            None => RelayoutKernel::PackedSlots,
        })
    }
}

/// The kernel of a packed relayout (in slots of `bits` bits, source and
/// destination, each the value's `value_bits`) that interleaves rows of
/// fields, a byte of each of `k = 8 / bits` rows into `k` bytes that each
/// hold one `x` of the `k` rows ([`RelayoutKernel::Interleave`], the pack
/// of `(2,1)` sub-tiles of `E(4)`), or back
/// ([`RelayoutKernel::Deinterleave`]): the structure of the unpacked
/// interleaves with `factor` equal to `k`.
pub(crate) const fn packed_fields(
    nest: &LoopNest,
    bits: [usize; 2],
    value_bits: usize,
) -> Option<RelayoutKernel> {
    let Some(k) = slots_per_byte(bits, value_bits) else {
        return None;
    };
    let [_, step, row, run] = nest.volume_strides();
    if row[0] == 1 && row[1] == k && run[1] == 1 && run[0] != 1 {
        Some(RelayoutKernel::Interleave { factor: k })
    } else if step[0] == 1 && run[0] == k && run[1] == 1 {
        Some(RelayoutKernel::Deinterleave { factor: k })
    } else {
        None
    }
}

/// The nest of a packed relayout (in slots of `bits` bits each, source
/// and destination, each the value's `value_bits`) that transposes
/// squares of fields, and the slots per byte `k`: the nest in slots is a
/// [`RelayoutKernel::Transpose`] (the destination's contiguous level
/// innermost, the source's next to it, arranged so). Then `k` bytes of
/// `k` source rows, each holding `k` consecutive slots of the source's
/// contiguous level, are the `k` bytes of `k` destination rows by a
/// square transpose of their fields: `s4` `{1,0:E(4)}` → `{0,1:E(4)}`,
/// whose bytes hold pairs of `x` in one and of `y` in the other. Rows
/// that start mid-byte (an odd row length of `s4`) are realigned as they
/// are read, in the source, and shifted as they are written, in the
/// destination; without the vector kernel (x86-64's), blocks whose
/// destination rows do so go slot by slot.
pub(crate) const fn packed_squares(
    nest: &LoopNest,
    bits: [usize; 2],
    value_bits: usize,
) -> Option<(LoopNest, usize)> {
    let Some(k) = slots_per_byte(bits, value_bits) else {
        return None;
    };
    if !matches!(
        RelayoutKernel::for_nest(Some(nest)),
        RelayoutKernel::Transpose
    ) {
        return None;
    }
    let arranged = match arrange(nest, RelayoutKernel::Transpose) {
        Some(arranged) => arranged,
        None => *nest,
    };
    let [[src_along, _], [_, dst_along]] = arranged.block_strides();
    match src_along == 1 && dst_along == 1 {
        true => Some((continuing_rows_or_runs(arranged), k)),
        false => None,
    }
}

/// `nest`, arranged for a packed transpose (its rows contiguous in the
/// source, its runs in the destination), with the level whose blocks
/// continue its rows in the source, or its runs in the destination,
/// moved next outside the block, when one does and it can move without
/// passing a level of its own dimension (as [`continuing_outside`]): the
/// level whose source stride is the row level's extent, or whose
/// destination stride is the run level's; where both do, the one that
/// continues the shorter. Then the blocks of a plane continue each
/// other's rows (or runs), and the packed transpose takes them as one
/// block: the 8-row tiles of `{0,1:T(8,128)E(4)}` side by side, 128 rows
/// a tile of its vector kernel, where each alone is too few rows for it
/// (and their 8-run tiles, transposed back).
const fn continuing_rows_or_runs(nest: LoopNest) -> LoopNest {
    let levels = nest.levels();
    let n = levels.len();
    if n < 3 {
        return nest;
    }
    let [rows, runs] = [levels[n - 2].extent, levels[n - 1].extent];
    let along_rows = continuing(&nest, 0, rows, n - 2);
    let along_runs = continuing(&nest, 1, runs, n - 2);
    let k = match (along_rows, along_runs) {
        (Some(k), None) => k,
        (None, Some(k)) => k,
        (Some(k), Some(_)) if rows <= runs => k,
        (_, Some(k)) => k,
        (None, None) => return nest,
    };
    match k == n - 3 {
        true => nest,
        false => nest.with_level_moved(k, n - 3),
    }
}

/// The innermost level of `nest` outside its first `inside` levels
/// (those from `inside` in) whose stride in buffer `b` is `length` (it
/// continues their rows, or runs, there), when it can move next outside
/// them, to `inside - 1`, without passing a level of its own dimension.
const fn continuing(nest: &LoopNest, b: usize, length: usize, inside: usize) -> Option<usize> {
    let levels = nest.levels();
    let mut k = inside;
    while k > 0 {
        k -= 1;
        if levels[k].strides[b] == length && levels[k].extent > 1 {
            let mut j = k + 1;
            while j < inside {
                if levels[j].dim == levels[k].dim {
                    return None;
                }
                j += 1;
            }
            return Some(k);
        }
    }
    None
}

/// The nest of a packed relayout (in slots of `bits` bits each, source
/// and destination) in bytes, when every byte holds the same elements in
/// both buffers: both slots are the value's `value_bits` (no upper bits
/// to clear), a whole number per byte, and the nest is whole bytes
/// ([`LoopNest::in_units`]). Then the relayout is one of bytes.
pub(crate) const fn packed_bytes(
    nest: &LoopNest,
    bits: [usize; 2],
    value_bits: usize,
) -> Option<LoopNest> {
    match slots_per_byte(bits, value_bits) {
        Some(k) => nest.in_units(k),
        None => None,
    }
}

/// The nest of a packed relayout of contiguous runs of slots (in slots
/// of `bits` bits each, each the value's `value_bits`) with a level whose
/// steps continue the runs in the destination, and start whole bytes
/// apart in the source, moved next outside the runs (as [`continuing`]
/// allows): then each block of the innermost two levels is one run of
/// the destination, in whole-byte pieces of the source, and the packed
/// kernel copies a block at once ([`RelayoutKernel::PackedSlots`]: the
/// tile rows of `{1,0:T(8,128)E(2)}` side by side, which continue the
/// rows of `u2[R,1021]{1,0:E(2)}`). `None` when the runs are not
/// contiguous in both or not whole bytes, or no level continues them so.
///
/// Only in the destination: a run into a destination byte it fills in
/// part merges its ends with what the byte holds, which joined runs do
/// once per block. Runs joined in the source (the pack into those tiles)
/// measured slower than run by run (`u2` 12.3 times `memcpy`'s time
/// against 11.5, `s4` 6.6 against 5.9): their destination pieces start
/// and end on bytes, and the stage costs a copy more.
pub(crate) const fn packed_joined_runs(
    nest: &LoopNest,
    bits: [usize; 2],
    value_bits: usize,
) -> Option<LoopNest> {
    let Some(per_byte) = slots_per_byte(bits, value_bits) else {
        return None;
    };
    let levels = nest.levels();
    let n = levels.len();
    if n < 2 || !matches!(nest.inner_strides(), [1, 1]) {
        return None;
    }
    let runs = levels[n - 1].extent;
    if !runs.is_multiple_of(per_byte) {
        return None;
    }
    match continuing(nest, 1, runs, n - 1) {
        Some(k) if levels[k].strides[0].is_multiple_of(per_byte) => Some(match k == n - 2 {
            true => *nest,
            false => nest.with_level_moved(k, n - 2),
        }),
        _ => None,
    }
}

/// Slots per byte of a packed relayout whose source and destination
/// slots are both `value_bits` wide (no upper bits to clear) and below a
/// byte: 2, 4 or 8.
const fn slots_per_byte(bits: [usize; 2], value_bits: usize) -> Option<usize> {
    let n = bits[0];
    match n == bits[1] && n == value_bits && matches!(n, 1 | 2 | 4) {
        true => Some(8 / n),
        false => None,
    }
}

/// Which buffer of a [`RelayoutKernel::StagedUnitTranspose`] holds units
/// that start at any element: the one whose pieces go through the stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Misaligned {
    /// Units start at any element of the source, at multiples of the
    /// unit in the destination.
    Source,
    /// Units start at any element of the destination.
    Destination,
    /// Every unit starts at a multiple of the unit in both buffers (the
    /// nest is not one of units only because a partial tile cuts its
    /// runs short): no stage.
    Neither,
}

/// The structure of a [`RelayoutKernel::StagedUnitTranspose`]
/// ([`staged_units`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StagedUnits {
    /// Elements per unit: the extent of the innermost level.
    pub(crate) unit: usize,
    /// The buffer whose units start at any element.
    pub(crate) misaligned: Misaligned,
    /// The levels along which units follow each other in the source and
    /// in the destination, `[source, destination]`.
    levels: [usize; 2],
}

/// The staged unit transpose of `nest` ([`RelayoutKernel::StagedUnitTranspose`]),
/// if it is one: the innermost level a run of 2, 4 or 8 elements
/// contiguous in both buffers; a level along which runs follow each other
/// in the source (source stride the run's extent) and another along which
/// they do in the destination, each movable next to the run (the
/// destination's innermost, the source's outside it) without passing a
/// level of its own dimension ([`source_contiguous_level`] says why); and
/// the strides of one buffer whole runs.
pub(crate) const fn staged_units(nest: &LoopNest) -> Option<StagedUnits> {
    let levels = nest.levels();
    let n = levels.len();
    if n < 3 {
        return None;
    }
    let run = levels[n - 1];
    let unit = run.extent;
    if run.strides[0] != 1 || run.strides[1] != 1 || !matches!(unit, 2 | 4 | 8) {
        return None;
    }
    let (mut along, mut found) = ([0usize; 2], [false; 2]);
    let mut whole = [true; 2];
    let mut k = n - 1;
    while k > 0 {
        k -= 1;
        if levels[k].extent < 2 {
            continue;
        }
        let mut b = 0;
        while b < 2 {
            let stride = levels[k].strides[b];
            if stride == unit && !found[b] {
                (along[b], found[b]) = (k, true);
            }
            if !stride.is_multiple_of(unit) {
                whole[b] = false;
            }
            b += 1;
        }
    }
    let misaligned = match whole {
        [true, true] => Misaligned::Neither,
        [false, true] => Misaligned::Source,
        [true, false] => Misaligned::Destination,
        [false, false] => return None,
    };
    if !found[0] || !found[1] || along[0] == along[1] {
        return None;
    }
    // The moves `arrange` makes, on the levels' indices: each level passed
    // must count another dimension than the one moved.
    let mut order = [0usize; MAX_LOOP_LEVELS];
    let mut k = 0;
    while k < n {
        order[k] = k;
        k += 1;
    }
    let mut b = 2;
    while b > 0 {
        b -= 1;
        // The destination's level to `n - 2`, then the source's to `n - 3`.
        let to = n - 3 + b;
        let mut from = 0;
        while order[from] != along[b] {
            from += 1;
        }
        while from != to {
            let next = match from < to {
                true => from + 1,
                false => from - 1,
            };
            if levels[order[next]].dim == levels[along[b]].dim {
                return None;
            }
            order[from] = order[next];
            order[next] = along[b];
            from = next;
        }
    }
    Some(StagedUnits {
        unit,
        misaligned,
        levels: along,
    })
}

/// `nest`, arranged for a staged unit transpose, with the level that
/// continues the units of the misaligned buffer moved next outside the
/// volume (its outermost level), when one does and it can move without
/// passing a level of its own dimension: the level whose stride in that
/// buffer is the extent of the level along which units follow each other
/// there, times the unit. Then the stage's pieces hold blocks side by side that
/// continue each other's runs (or rows), each one copy, and each line of
/// the misaligned buffer is read (or written) whole: the `x / 8` level
/// of a transpose into `T(8,128)(4,1)`, whose blocks are 8 bytes of each
/// of 128 rows, takes 8 of them per line. As the walk came, a piece took
/// 8 bytes of every row, and the next piece the next 8.
const fn continuing_outside(nest: LoopNest, misaligned: Misaligned) -> LoopNest {
    let levels = nest.levels();
    let n = levels.len();
    let (b, along) = match misaligned {
        Misaligned::Source => (0, levels[n - 3]),
        Misaligned::Destination => (1, levels[n - 2]),
        Misaligned::Neither => return nest,
    };
    let Some(length) = along.extent.checked_mul(levels[n - 1].extent) else {
        return nest;
    };
    if n < 4 {
        return nest;
    }
    match continuing(&nest, b, length, n - 3) {
        Some(k) if k != n - 4 => nest.with_level_moved(k, n - 4),
        _ => nest,
    }
}

/// The innermost level, other than the innermost one, whose source stride
/// is 1, if any, and if no level inside it counts the same dimension: the
/// walk splits a volume's blocks where a dimension ends assuming that a
/// dimension's digits come most significant first, which moving such a
/// level past another of its dimension would break (`T(4)(2,1)` tiles
/// make the source-contiguous digit of `x` the `x / 4` one).
const fn source_contiguous_level(nest: &LoopNest) -> Option<usize> {
    let levels = nest.levels();
    let mut k = levels.len().saturating_sub(1);
    while k > 0 {
        k -= 1;
        if levels[k].strides[0] == 1 {
            let mut j = k + 1;
            while j < levels.len() {
                if levels[j].dim == levels[k].dim {
                    return None;
                }
                j += 1;
            }
            return Some(k);
        }
    }
    None
}

/// The side of the squares of a [`RelayoutKernel::SquareTranspose`]
/// nest: 2 or 4 (the `(2,1)` and `(4,1)` sub-tiles), when
/// [`LoopNest::in_squares`] finds them. The copy of squares
/// (`relayout/squares.rs`) moves `side²` elements at a time, where the
/// nest in elements looks like an interleave whose rows are `side`
/// elements apart, which the row interleave cannot take: 31–54 times
/// `memcpy`'s time at 1 MiB.
const fn transposed_squares(nest: &LoopNest) -> Option<usize> {
    match nest.in_squares() {
        Some((_, side)) if side == 2 || side == 4 => Some(side),
        _ => None,
    }
}

/// `nest` arranged for `kernel`: for a [`RelayoutKernel::Transpose`], the
/// source's contiguous level moved next to the innermost one (the
/// transpose kernel's rows); for a [`RelayoutKernel::UnitTranspose`], the
/// nest in units, arranged so; for a [`RelayoutKernel::SquareTranspose`],
/// the nest in squares ([`LoopNest::in_squares`]); any other kernel takes
/// the nest as it is.
pub(crate) const fn arrange(nest: &LoopNest, kernel: RelayoutKernel) -> Option<LoopNest> {
    if let RelayoutKernel::SquareTranspose { .. } = kernel {
        // In squares, in the destination's order: the copy walks it so,
        // or arranges it as a transpose for AVX2's tiles of 8-byte squares.
        return match nest.in_squares() {
            Some((squares, _)) => Some(squares),
            None => None,
        };
    }
    if let RelayoutKernel::UnitTranspose { .. } = kernel {
        // In units, arranged as a transpose.
        let Some((units, _)) = nest.by_units() else {
            return None;
        };
        return match arrange(&units, RelayoutKernel::Transpose) {
            Some(arranged) => Some(arranged),
            None => Some(units),
        };
    }
    if let RelayoutKernel::StagedUnitTranspose { .. } = kernel {
        // The level along which units follow each other in the destination
        // next to the run, the source's outside it ([`staged_units`]
        // checked the moves).
        let Some(staged) = staged_units(nest) else {
            return None;
        };
        let [along_src, along_dst] = staged.levels;
        let n = nest.levels().len();
        let moved = nest.with_level_moved(along_dst, n - 2);
        let along_src = match along_src > along_dst && along_src <= n - 2 {
            true => along_src - 1,
            false => along_src,
        };
        let arranged = moved.with_level_moved(along_src, n - 3);
        return Some(continuing_outside(arranged, staged.misaligned));
    }
    match (kernel, source_contiguous_level(nest)) {
        (RelayoutKernel::Transpose, Some(k)) => {
            let row = nest.levels().len() - 2;
            match k == row {
                true => None,
                false => Some(nest.with_level_moved(k, row)),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{
        Misaligned, RelayoutKernel, arrange, packed_joined_runs, packed_squares, staged_units,
    };
    use crate::relayout::tests::nest;

    /// A packed relayout out of tiles into rows that start mid-byte joins
    /// the tile rows side by side: the level of `x / 128`, whose steps
    /// continue the runs in the destination and start whole bytes apart
    /// in the source, next outside the runs. Not into tiles (their
    /// destination pieces start on bytes), nor where the source's pieces
    /// would start mid-byte.
    #[test]
    fn packed_joined_runs_join_tile_rows_in_the_destination() {
        let joined = |src: &str, dst: &str, bits: usize| {
            packed_joined_runs(&nest(src, dst), [bits, bits], bits)
                .map(|j| (j.levels()[j.levels().len() - 2].extent, j.block_strides()))
        };
        // 8 tile rows of 128 slots (the last 125 long), a tile (1024
        // slots) apart in the source and continuing each other in the
        // destination.
        let tiles = joined("u2[64,1021]{1,0:T(8,128)E(2)}", "u2[64,1021]{1,0:E(2)}", 2);
        assert_eq!(tiles, Some((8, [[1024, 128], [1, 1]])));
        let planes = joined(
            "s4[5,4,333]{2,1,0:T(2,128)E(4)}",
            "s4[5,4,333]{2,1,0:E(4)}",
            4,
        );
        assert_eq!(planes, Some((3, [[256, 128], [1, 1]])));
        // Into the tiles: their rows continue each other in the
        // destination (its tiles are contiguous), but the source's rows
        // of 1021 start mid-byte.
        let pack = joined("u2[64,1021]{1,0:E(2)}", "u2[64,1021]{1,0:T(8,128)E(2)}", 2);
        assert_eq!(pack, None);
        // Tiles of 2 slots of `u2` a row: pieces of half a byte.
        let halves = joined("u2[64,1021]{1,0:T(8,2)E(2)}", "u2[64,1021]{1,0:E(2)}", 2);
        assert_eq!(halves, None);
        // A transpose: the runs are not contiguous in both.
        let n = nest(
            "u2[64,1021]{1,0:T(8,128)E(2)}",
            "u2[64,1021]{0,1:T(8,128)E(2)}",
        );
        assert!(packed_joined_runs(&n, [2, 2], 2).is_none());
    }

    /// A packed transpose into tiles of 8 destination rows takes the
    /// tiles side by side: the level of `x / 8`, whose blocks continue the
    /// rows in the source, next outside the block, so that a plane's
    /// blocks are one block of rows; where the rows are whole, nothing
    /// moves.
    #[test]
    fn packed_squares_take_tiles_of_few_rows_side_by_side() {
        let n = nest("s4[256,512]{1,0:E(4)}", "s4[256,512]{0,1:T(8,128)E(4)}");
        let (squares, k) = packed_squares(&n, [4, 4], 4).unwrap();
        assert_eq!(k, 2);
        let [step, row, run] = squares.plane_strides();
        let rows = squares.levels()[squares.levels().len() - 2].extent;
        assert_eq!((rows, row[0], run[1]), (8, 1, 1));
        // The next block: 8 slots on in the source, a row of tiles (the
        // 2 tiles of `y`, each 8 rows of 128) on in the destination.
        assert_eq!(step, [8, 2 * 8 * 128]);
        // And back: 8 runs of each tile, the next tile's a step on.
        let n = nest("s4[256,512]{0,1:T(8,128)E(4)}", "s4[256,512]{1,0:E(4)}");
        let (squares, _) = packed_squares(&n, [4, 4], 4).unwrap();
        let [step, row, run] = squares.plane_strides();
        let runs = squares.levels()[squares.levels().len() - 1].extent;
        assert_eq!((runs, row[0], run[1]), (8, 1, 1));
        assert_eq!(step, [2 * 8 * 128, 8]);
        let n = nest("s4[256,512]{1,0:E(4)}", "s4[256,512]{0,1:E(4)}");
        let (squares, _) = packed_squares(&n, [4, 4], 4).unwrap();
        assert_eq!(squares.levels().len(), n.levels().len());
        assert_eq!(squares.plane_strides()[1..], n.plane_strides()[1..]);
    }

    /// The unpack of a transposed tiling reads its source's contiguous
    /// level two levels out: the planner moves it next to the innermost.
    #[test]
    fn transposes_take_the_source_run_as_rows() {
        let n = nest("f32[300,300]{0,1:T(8,128)}", "f32[300,300]{1,0}");
        assert_eq!(
            RelayoutKernel::for_nest(Some(&n)),
            RelayoutKernel::Transpose
        );
        let arranged = arrange(&n, RelayoutKernel::Transpose).unwrap();
        let [_, _, row, run] = arranged.volume_strides();
        assert_eq!([row[0], run[1]], [1, 1]);
        // Already in place: nothing to move.
        let n = nest("f32[40,300]{1,0}", "f32[40,300]{0,1}");
        assert!(arrange(&n, RelayoutKernel::Transpose).is_none());
    }

    /// A staged unit transpose has the level along which units follow
    /// each other in the destination next to the run, the source's outside
    /// it, and outside the volume the level that continues the misaligned
    /// buffer's pieces: `x / 8`, 8 elements of a row (4 pairs) on from the
    /// last in the source, or in the destination.
    #[test]
    fn staged_transposes_take_the_units_levels_and_the_one_that_continues_them() {
        let into = "bf16[721,761]{1,0}";
        let tiled = "bf16[721,761]{0,1:T(8,128)(2,1)}";
        for (src, dst, misaligned, b) in [
            (into, tiled, Misaligned::Source, 0),
            (tiled, into, Misaligned::Destination, 1),
        ] {
            let n = nest(src, dst);
            let kernel = RelayoutKernel::for_nest(Some(&n));
            assert_eq!(kernel, RelayoutKernel::StagedUnitTranspose { unit: 2 });
            assert_eq!(staged_units(&n).unwrap().misaligned, misaligned);
            let arranged = arrange(&n, kernel).unwrap();
            let [outer, step, row, run] = arranged.volume_strides();
            assert_eq!([run, [step[0], row[1]]], [[1, 1], [2, 2]], "{src} -> {dst}");
            assert_eq!(outer[b], 8, "{src} -> {dst}");
            // The same walk: every element once.
            assert_eq!(arranged.element_count(), n.element_count());
        }
        // Rows of an even number of elements: whole units, no stage.
        let n = nest("bf16[721,762]{1,0}", "bf16[721,762]{0,1:T(8,128)(2,1)}");
        assert_eq!(
            RelayoutKernel::for_nest(Some(&n)),
            RelayoutKernel::UnitTranspose { unit: 2 }
        );
    }
}
