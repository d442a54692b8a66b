//! Runs: the elements of a layout cut into stretches whose offsets move by
//! one fixed stride, walked with one addition per element.
//!
//! - In logical (row-major index) order, for iterators: a [`RunCursor`]
//!   computes an offset only where a run of the last dimension starts
//!   (for `f32[..]{1,0:T(8,128)}`, once per 128 elements), so an iterator
//!   is a few words whatever the rank or the tiling; an untouched
//!   iterator's `fold` walks the engine's logical loop nest instead.
//! - In memory order, for `for_each` and the fills: the engine's nest of
//!   the layout onto itself, whose runs follow one another through the
//!   buffer ([`Order::Memory`]).

use layout_core::walk::{LoopNest, SlotBoxes};
use layout_core::{AnyLayout, ArrayLayout, LayoutIndex, MAX_RANK};

/// How offsets move along the last dimension: by `stride` per step,
/// within aligned stretches of `period` steps (0: the whole dimension).
/// `(0, 1)` when the layout has no such formula (a `*` that combines
/// dims): every element is a run of its own, placed by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) stride: usize,
    pub(crate) period: usize,
}

const PER_ELEMENT: Step = Step {
    stride: 0,
    period: 1,
};

/// The [`Step`] of `layout`'s last dimension, from the innermost level of
/// its logical loop nest (the lowest digit of the last dimension, merged
/// with the digits above it that continue it in memory).
pub(crate) const fn last_dim_step(layout: &ArrayLayout) -> Step {
    let rank = layout.rank();
    if rank == 0 {
        return PER_ELEMENT;
    }
    let nest = match LoopNest::logical(layout) {
        Some(n) => n,
        None => return PER_ELEMENT,
    };
    match nest.levels().split_last() {
        Some((run, _)) if run.dim == rank - 1 && run.div == 1 => Step {
            stride: run.strides[0],
            // A level as long as the dimension never wraps.
            period: if run.extent >= layout.size(rank - 1) {
                0
            } else {
                run.extent
            },
        },
        // The last dimension has size 1 (no level counts it): every run
        // is one element long anyway.
        _ => PER_ELEMENT,
    }
}

/// The [`Step`] of `layout`: a constant for static layouts.
#[inline(always)]
pub(crate) fn step_of<L: AnyLayout>(layout: &L) -> Step {
    match const {
        match L::FIXED_LAYOUT {
            Some(l) => Some(last_dim_step(&l)),
            None => None,
        }
    } {
        Some(step) => step,
        None => last_dim_step(&layout.to_array_layout()),
    }
}

/// A run: `len` elements at `offset + i * stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub(crate) offset: usize,
    pub(crate) stride: usize,
    pub(crate) len: usize,
}

/// Where the next run starts, in logical order: `row` counts the index
/// over every dimension but the last (row-major), `x` is the last.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunCursor {
    row: usize,
    x: usize,
    step: Step,
}

impl RunCursor {
    #[inline(always)]
    pub(crate) fn new<L: AnyLayout>(layout: &L) -> RunCursor {
        RunCursor::at_row(layout, 0)
    }

    /// A cursor at the start of row `row` (the row-major number of an
    /// index without its last entry).
    #[inline(always)]
    pub(crate) fn at_row<L: AnyLayout>(layout: &L, row: usize) -> RunCursor {
        RunCursor {
            row,
            x: 0,
            step: step_of(layout),
        }
    }

    /// The next run, with the logical index of its first element written
    /// to `index` (the first `rank` entries). The caller stops after
    /// `element_count` elements.
    #[inline(always)]
    pub(crate) fn next_run<L: AnyLayout>(&mut self, layout: &L, index: &mut [usize]) -> Run {
        let rank = layout.rank();
        if rank == 0 {
            return Run {
                offset: 0,
                stride: 0,
                len: 1,
            };
        }
        let last = rank - 1;
        // The row number in mixed radix over the dims before the last:
        // divisions by constants for static layouts, once per run.
        let mut rest = self.row;
        let mut d = last;
        while d > 0 {
            d -= 1;
            let size = layout.size(d);
            index[d] = rest % size;
            rest /= size;
        }
        index[last] = self.x;
        let offset = layout.offset_in_bounds(&index[..rank]);
        let width = layout.size(last);
        let mut len = width - self.x;
        if self.step.period != 0 {
            let to_wrap = self.step.period - self.x % self.step.period;
            if to_wrap < len {
                len = to_wrap;
            }
        }
        self.x += len;
        if self.x == width {
            self.x = 0;
            self.row += 1;
        }
        Run {
            offset,
            stride: self.step.stride,
            len,
        }
    }
}

/// A run of the logical walk with the way its index moves: element `i`
/// is at `offset + i * stride` and has the run's first index with
/// `index[dim] + i * div`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IndexedRun {
    pub(crate) offset: usize,
    pub(crate) stride: usize,
    pub(crate) len: usize,
    pub(crate) dim: usize,
    pub(crate) div: usize,
}

/// A block of runs of a walk: `rows` runs of `run.len` elements, run `r`
/// starting at `run.offset + r * row_stride` with the block's first index
/// plus `r * row_div` in dimension `row_dim`; within a run, as
/// [`IndexedRun`]. A block is one run (`rows` 1) when both levels count
/// the same dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IndexedBlock {
    pub(crate) run: IndexedRun,
    pub(crate) rows: usize,
    pub(crate) row_stride: usize,
    pub(crate) row_dim: usize,
    pub(crate) row_div: usize,
}

impl IndexedBlock {
    /// The block as one slice of consecutive slots, when it is one:
    /// `Some(len)` of the stretch from `run.offset`.
    #[inline(always)]
    pub(crate) fn contiguous_len(&self) -> Option<usize> {
        let r = &self.run;
        (r.stride == 1 && (self.rows == 1 || self.row_stride == r.len)).then(|| self.rows * r.len)
    }

    /// Calls `f(index, piece)` for each piece of the block that is one
    /// stretch of slots: each row when its elements are consecutive,
    /// else each element; `index` is the piece's first index (put back
    /// after).
    #[inline(always)]
    fn for_each_piece(
        &self,
        first: &mut [usize; MAX_RANK],
        mut f: impl FnMut(&mut [usize; MAX_RANK], IndexedBlock),
    ) {
        let r = self.run;
        let (x0, y0) = (first[r.dim], first[self.row_dim]);
        let mut start = r.offset;
        for row in 0..self.rows {
            first[self.row_dim] = y0 + row * self.row_div;
            if r.stride == 1 {
                f(first, single(IndexedRun { offset: start, ..r }));
            } else {
                let mut offset = start;
                for k in 0..r.len {
                    first[r.dim] = x0 + k * r.div;
                    let one = IndexedRun {
                        offset,
                        stride: 1,
                        len: 1,
                        ..r
                    };
                    f(first, single(one));
                    offset = offset.wrapping_add(r.stride);
                }
                first[r.dim] = x0;
            }
            start = start.wrapping_add(self.row_stride);
        }
        first[self.row_dim] = y0;
    }

    /// Folds `f(acc, index, value)` over a contiguous block's elements in
    /// slot order, `rows` the values of its rows in turn and `first` its
    /// first index ([`fold_rows`](Self::fold_rows) around
    /// [`fold_run`](Self::fold_run)).
    #[inline(always)]
    pub(crate) fn fold_block<I: LayoutIndex, R: IntoIterator, B>(
        &self,
        first: I,
        mut rows: impl Iterator<Item = R>,
        acc: B,
        mut f: impl FnMut(B, &I, R::Item) -> B,
    ) -> B {
        self.fold_rows(first, acc, |acc, index, _| match rows.next() {
            Some(row) => self.fold_run(index, row, acc, &mut f),
            None => acc,
        })
    }

    /// Folds `f(acc, index, row)` over the block's rows (its runs),
    /// `index` the row's first index, moved from `index` (the block's
    /// first index). `f` may move the index but puts it back.
    #[inline(always)]
    pub(crate) fn fold_rows<I: AsMut<[usize]>, B>(
        &self,
        mut index: I,
        mut acc: B,
        mut f: impl FnMut(B, &mut I, usize) -> B,
    ) -> B {
        // A rank-0 index has no entry to move (its one run is one slot).
        let y0 = index.as_mut().get(self.row_dim).copied().unwrap_or(0);
        for row in 0..self.rows {
            if let Some(y) = index.as_mut().get_mut(self.row_dim) {
                *y = y0 + row * self.row_div;
            }
            acc = f(acc, &mut index, row);
        }
        acc
    }

    /// Folds `f(acc, index, value)` over a run of the block: the `x`-th
    /// of `values` gets the index `index` (the run's first) moved `x`
    /// steps along the run. A plain counted loop over the values, which
    /// the compiler vectorises where `f` allows: each element's index is
    /// built afresh ([`LayoutIndex::with_entry`]), so that a run-time
    /// index (`DimVec`) handed out by value is a value in registers, not
    /// a copy of memory written through the run's dimension.
    #[inline(always)]
    pub(crate) fn fold_run<I: LayoutIndex, V, B>(
        &self,
        index: &I,
        values: impl IntoIterator<Item = V>,
        mut acc: B,
        mut f: impl FnMut(B, &I, V) -> B,
    ) -> B {
        let (dim, div) = (self.run.dim, self.run.div);
        let Some(&x0) = index.as_ref().get(dim) else {
            // Rank 0: one slot, no entry to move.
            return values.into_iter().fold(acc, |a, v| f(a, index, v));
        };
        for (x, v) in values.into_iter().enumerate() {
            acc = f(acc, &index.with_entry(dim, x0 + x * div), v);
        }
        acc
    }

    /// Calls `f(index, k)` for element `k` of the block counted in slot
    /// order (the block is [`contiguous_len`](Self::contiguous_len)),
    /// `index` its logical index, from `first` (the block's first index).
    /// The index is a local kept by counters: when `f` does not read it,
    /// the loop is the bare count.
    #[inline(always)]
    fn for_each_contiguous(
        &self,
        first: &[usize; MAX_RANK],
        rank: usize,
        len: usize,
        mut f: impl FnMut(&[usize], usize),
    ) {
        let r = &self.run;
        let mut local = *first;
        let (x0, mut y) = (first[r.dim], first[self.row_dim]);
        let mut x = 0;
        for k in 0..len {
            local[self.row_dim] = y;
            local[r.dim] = x0 + x * r.div;
            f(&local[..rank], k);
            x += 1;
            if x == r.len {
                x = 0;
                y += self.row_div;
            }
        }
    }

    /// Calls `f(index, start)` for each run (row) of the block, `index`
    /// its first element's logical index, `start` its first slot.
    #[inline(always)]
    fn for_each_row(
        &self,
        first: &[usize; MAX_RANK],
        mut f: impl FnMut(&mut [usize; MAX_RANK], usize),
    ) {
        let mut local = *first;
        let y0 = first[self.row_dim];
        let mut start = self.run.offset;
        for row in 0..self.rows {
            local[self.row_dim] = y0 + row * self.row_div;
            f(&mut local, start);
            start = start.wrapping_add(self.row_stride);
        }
    }

    /// Calls `f(index, k)` for element `k` of a run whose first index is
    /// `local` (put back after), the run's dimension counted up.
    #[inline(always)]
    fn for_each_in_run(
        &self,
        local: &mut [usize; MAX_RANK],
        rank: usize,
        mut f: impl FnMut(&[usize], usize),
    ) {
        let r = &self.run;
        let x0 = local[r.dim];
        for k in 0..r.len {
            local[r.dim] = x0 + k * r.div;
            f(&local[..rank], k);
        }
        local[r.dim] = x0;
    }

    /// Calls `f(index, offset)` for every element, run by run.
    #[inline(always)]
    fn for_each_strided(
        &self,
        first: &[usize; MAX_RANK],
        rank: usize,
        mut f: impl FnMut(&[usize], usize),
    ) {
        let r = &self.run;
        let mut local = *first;
        let (x0, y0) = (first[r.dim], first[self.row_dim]);
        let mut start = r.offset;
        for row in 0..self.rows {
            local[self.row_dim] = y0 + row * self.row_div;
            let mut offset = start;
            for k in 0..r.len {
                local[r.dim] = x0 + k * r.div;
                f(&local[..rank], offset);
                offset = offset.wrapping_add(r.stride);
            }
            start = start.wrapping_add(self.row_stride);
        }
    }
}

/// The order a walk visits elements in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Row-major index order (iterators: `collect`, `zip` and `eq` see
    /// the logical array).
    Logical,
    /// The buffer's own order, padding skipped (`for_each`: the fastest
    /// walk, a stream through memory).
    Memory,
}

/// Calls `f(index, run)` for every run of `layout` in logical (row-major
/// index) order, `index` holding the run's first index in its first
/// `rank` entries (`f` may move it but must put it back). Runs are the
/// innermost level of the engine's logical loop nest, counted by its
/// odometer (no division, an offset by additions): a constant nest for
/// static layouts, built once per call (about a microsecond) for others.
/// Layouts with no nest (a `*` that combines dims) fall back to
/// [`RunCursor`], an offset from the layout per run.
#[inline(always)]
pub(crate) fn for_each_indexed_run<L: AnyLayout>(
    layout: &L,
    f: impl FnMut(&mut [usize; MAX_RANK], IndexedRun),
) {
    for_each_indexed_run_in(layout, Order::Logical, f);
}

/// [`for_each_indexed_run`] in either [`Order`]: the memory order walks
/// the engine's relayout nest of the layout onto itself (levels in the
/// buffer's order), whose runs follow one another through the buffer.
#[inline(always)]
pub(crate) fn for_each_indexed_run_in<L: AnyLayout>(
    layout: &L,
    order: Order,
    mut f: impl FnMut(&mut [usize; MAX_RANK], IndexedRun),
) {
    with_nest(layout, order, |nest| walk_runs(layout, nest, &mut f));
}

/// Calls `f` with `layout`'s loop nest in `order` (`None` when it has
/// none): a constant promoted to a `'static` for static layouts, built on
/// the stack once for others.
#[inline(always)]
fn with_nest<L: AnyLayout, R>(
    layout: &L,
    order: Order,
    f: impl FnOnce(Option<&LoopNest>) -> R,
) -> R {
    let logical: &'static Option<Option<LoopNest>> = &const {
        match L::FIXED_LAYOUT {
            Some(l) => Some(LoopNest::logical(&l)),
            None => None,
        }
    };
    let memory: &'static Option<Option<LoopNest>> = &const {
        match L::FIXED_LAYOUT {
            Some(l) => Some(memory_nest(&l)),
            None => None,
        }
    };
    let fixed = match order {
        Order::Logical => logical,
        Order::Memory => memory,
    };
    match fixed {
        Some(n) => f(n.as_ref()),
        None => {
            let a = layout.to_array_layout();
            let built = match order {
                Order::Logical => LoopNest::logical(&a),
                Order::Memory => memory_nest(&a),
            };
            f(built.as_ref())
        }
    }
}

/// The walk of [`for_each_indexed_run_in`] over a chosen nest.
#[inline(always)]
fn walk_runs<L: AnyLayout>(
    layout: &L,
    nest: Option<&LoopNest>,
    f: &mut impl FnMut(&mut [usize; MAX_RANK], IndexedRun),
) {
    match nest {
        Some(nest) => {
            let (dim, div) = match nest.levels().last() {
                Some(l) => (l.dim, l.div),
                None => (0, 0),
            };
            let [stride, _] = nest.inner_strides();
            nest.for_each_indexed_run(
                #[inline(always)]
                |index, [offset, _], len| {
                    f(
                        index,
                        IndexedRun {
                            offset,
                            stride,
                            len,
                            dim,
                            div,
                        },
                    );
                },
            );
        }
        None => {
            let rank = layout.rank();
            let mut remaining = layout.element_count();
            let mut cursor = RunCursor::new(layout);
            let mut index = [0usize; MAX_RANK];
            while remaining > 0 {
                let run = cursor.next_run(layout, &mut index);
                f(
                    &mut index,
                    IndexedRun {
                        offset: run.offset,
                        stride: run.stride,
                        len: run.len,
                        dim: rank.saturating_sub(1),
                        div: (rank > 0) as usize,
                    },
                );
                remaining -= run.len;
            }
        }
    }
}

/// [`for_each_indexed_run_in`] a block of runs at a time
/// ([`IndexedBlock`]): the innermost two levels of the nest, so that a
/// tile whose rows follow one another in the buffer is one stretch. The
/// fallback without a nest hands out single runs.
#[inline(always)]
pub(crate) fn for_each_indexed_block_in<L: AnyLayout>(
    layout: &L,
    order: Order,
    f: impl FnMut(&mut [usize; MAX_RANK], IndexedBlock),
) {
    with_nest(layout, order, |nest| walk_blocks(layout, nest, f));
}

/// The walk of [`for_each_indexed_block_in`] over a nest already built.
#[inline(always)]
fn walk_blocks<L: AnyLayout>(
    layout: &L,
    nest: Option<&LoopNest>,
    mut f: impl FnMut(&mut [usize; MAX_RANK], IndexedBlock),
) {
    match nest {
        Some(nest) => {
            let levels = nest.levels();
            let (run, row) = match levels {
                [.., row, run] => (*run, Some(*row)),
                [run] => (*run, None),
                [] => return walk_runs(layout, Some(nest), &mut |i, r| f(i, single(r))),
            };
            let (row_dim, row_div, row_stride) = match row {
                Some(r) if r.dim != run.dim => (r.dim, r.div, r.strides[0]),
                _ => (run.dim, 0, 0),
            };
            nest.for_each_indexed_block(
                #[inline(always)]
                |index, [offset, _], rows, len| {
                    let run = IndexedRun {
                        offset,
                        stride: run.strides[0],
                        len,
                        dim: run.dim,
                        div: run.div,
                    };
                    f(
                        index,
                        IndexedBlock {
                            run,
                            rows,
                            row_stride,
                            row_dim,
                            row_div,
                        },
                    );
                },
            );
        }
        // No nest: the walk per run, without building the nest again.
        None => walk_runs(layout, None, &mut |i, r| f(i, single(r))),
    }
}

/// Calls `f(start, len, elements)` for every stretch of `layout`'s
/// buffer in memory order, together covering every slot once: a stretch
/// of padding (`elements` `None`), or of elements (`Some((first,
/// block))`, the block contiguous, `first` its first element's index, to
/// be put back if moved). `false` when the layout has no memory-order
/// nest that visits offsets in increasing order (a `*` that combines
/// dims, tiles that cut across each other), and nothing was called.
#[inline(always)]
pub(crate) fn for_each_slot_stretch<L: AnyLayout>(
    layout: &L,
    f: impl FnMut(usize, usize, Option<(&mut [usize; MAX_RANK], &IndexedBlock)>),
) -> bool {
    // One nest (built once for a run-time layout) decides and walks.
    with_nest(layout, Order::Memory, |nest| match nest {
        Some(n) if n.is_increasing() => {
            walk_stretches(layout, n, f);
            true
        }
        _ => false,
    })
}

/// The walk of [`for_each_slot_stretch`] over a memory-order nest that
/// visits offsets in increasing order.
#[inline(always)]
fn walk_stretches<L: AnyLayout>(
    layout: &L,
    nest: &LoopNest,
    mut f: impl FnMut(usize, usize, Option<(&mut [usize; MAX_RANK], &IndexedBlock)>),
) {
    // Every slot before `cursor` has been handed out.
    let mut cursor = 0;
    walk_blocks(
        layout,
        Some(nest),
        #[inline(always)]
        |index: &mut [usize; MAX_RANK], block: IndexedBlock| match block.contiguous_len() {
            Some(len) => {
                let start = block.run.offset;
                if start > cursor {
                    f(cursor, start - cursor, None);
                }
                f(start, len, Some((index, &block)));
                cursor = start + len;
            }
            // Rows apart (an edge tile's), or elements apart: one
            // block per row, or per element.
            None => block.for_each_piece(
                index,
                #[inline(always)]
                |local, row| {
                    let start = row.run.offset;
                    if start > cursor {
                        f(cursor, start - cursor, None);
                    }
                    f(start, row.run.len, Some((local, &row)));
                    cursor = start + row.run.len;
                },
            ),
        },
    );
    let end = layout.buffer_len();
    if end > cursor {
        f(cursor, end - cursor, None);
    }
}

/// The fold of `next`: for a walk already begun, or a layout whose
/// memory-order nest does not visit offsets in increasing order.
#[inline]
pub(crate) fn fold_by_next<I: Iterator, B>(
    it: &mut I,
    mut acc: B,
    mut f: impl FnMut(B, I::Item) -> B,
) -> B {
    for item in it {
        acc = f(acc, item);
    }
    acc
}

/// A run as a block of one row.
#[inline(always)]
pub(crate) fn single(run: IndexedRun) -> IndexedBlock {
    IndexedBlock {
        run,
        rows: 1,
        row_stride: 0,
        row_dim: run.dim,
        row_div: 0,
    }
}

/// Calls `f(a, b, len)` for pieces of the logical (row-major index) walks
/// of two layouts of the same dims, in turn: the `len` elements of the
/// piece are at `a.offset + i * a.stride` in `first`'s buffer and at
/// `b.offset + i * b.stride` in `second`'s (`a.len` and `b.len` are the
/// runs' lengths left, at least `len`). Each piece is the longest stretch
/// that is one run in both walks, so a pair of contiguous runs is one
/// call (the unpack of a packed tensor as slices). Stops at the end of
/// the shorter walk.
#[inline]
pub(crate) fn for_each_run_pair<A: AnyLayout, B: AnyLayout>(
    first: &A,
    second: &B,
    mut f: impl FnMut(Run, Run, usize),
) {
    // Runs of rows even where a walk is one run (row-major): the pieces
    // stay in the L1 cache while `f` goes over them, twice for
    // `pack_from` (a check, then the packing). As one piece of every
    // element, `pack_from` of `s4[256,1024]` took 1.3 times as long.
    let (mut at_a, mut at_b) = (Position::by_rows(first), Position::by_rows(second));
    let (mut a, mut b) = (None, None);
    loop {
        let Some(ra) = a.take().or_else(|| at_a.take_run(first)) else {
            return;
        };
        let Some(rb) = b.take().or_else(|| at_b.take_run(second)) else {
            return;
        };
        let len = ra.len.min(rb.len);
        f(ra, rb, len);
        let rest = |r: Run| Run {
            offset: r.offset.wrapping_add(len.wrapping_mul(r.stride)),
            stride: r.stride,
            len: r.len - len,
        };
        (a, b) = (
            (ra.len > len).then(|| rest(ra)),
            (rb.len > len).then(|| rest(rb)),
        );
    }
}

/// Calls `f(index, offset)` for every element of `layout` in logical
/// (row-major index) order ([`for_each_indexed_run`], element by element).
#[inline(always)]
pub(crate) fn for_each_offset<L: AnyLayout>(layout: &L, mut f: impl FnMut(&[usize], usize)) {
    let rank = layout.rank();
    for_each_indexed_run(
        layout,
        #[inline(always)]
        |index, run| {
            // The index `f` sees lives in a fresh local per run: when `f`
            // does not read it, the compiler drops every store to it, and the
            // loop is the bare walk over the run.
            let mut local = *index;
            let (rank, start) = (rank, index[run.dim]);
            let mut offset = run.offset;
            for k in 0..run.len {
                local[run.dim] = start + k * run.div;
                f(&local[..rank], offset);
                offset = offset.wrapping_add(run.stride);
            }
        },
    );
}

/// Calls `f(index, element)` for every element of `data` (a buffer of
/// `layout`) in `order`, a block of runs at a time: a block whose runs
/// follow one another (the rows of a tile) is one sub-slice, one bounds
/// check and one loop the compiler can vectorise; a block of contiguous
/// runs that do not (an edge tile's rows) is a sub-slice per run.
#[inline(always)]
pub(crate) fn for_each_element<L: AnyLayout, T>(
    layout: &L,
    order: Order,
    data: &[T],
    mut f: impl FnMut(&[usize], &T),
) {
    let rank = layout.rank();
    for_each_indexed_block_in(
        layout,
        order,
        #[inline(always)]
        |index, block| match block.contiguous_len() {
            Some(len) => {
                let slots = &data[block.run.offset..block.run.offset + len];
                block.for_each_contiguous(index, rank, len, |i, k| f(i, &slots[k]));
            }
            // Rows that do not follow one another (an edge tile's): a
            // sub-slice per row.
            None if block.run.stride == 1 => block.for_each_row(index, |local, start| {
                let row = &data[start..start + block.run.len];
                block.for_each_in_run(local, rank, |i, k| f(i, &row[k]));
            }),
            None => block.for_each_strided(index, rank, |i, o| f(i, &data[o])),
        },
    );
}

/// [`for_each_element`], writable.
#[inline(always)]
pub(crate) fn for_each_element_mut<L: AnyLayout, T>(
    layout: &L,
    order: Order,
    data: &mut [T],
    mut f: impl FnMut(&[usize], &mut T),
) {
    let rank = layout.rank();
    for_each_indexed_block_in(
        layout,
        order,
        #[inline(always)]
        |index, block| match block.contiguous_len() {
            Some(len) => {
                let slots = &mut data[block.run.offset..block.run.offset + len];
                block.for_each_contiguous(index, rank, len, |i, k| f(i, &mut slots[k]));
            }
            None if block.run.stride == 1 => block.for_each_row(index, |local, start| {
                let row = &mut data[start..start + block.run.len];
                block.for_each_in_run(local, rank, |i, k| f(i, &mut row[k]));
            }),
            None => block.for_each_strided(index, rank, |i, o| f(i, &mut data[o])),
        },
    );
}

/// Calls `f(start, len)` for every stretch of slots that holds elements
/// only, in memory order, with padding between them skipped: each
/// stretch as long as it goes (runs that follow one another in the buffer
/// are joined, so the whole tiles of a padded layout are one stretch);
/// `false` when the layout has no memory-order nest (a `*` that combines
/// dims), and nothing was called.
#[inline(always)]
pub(crate) fn for_each_element_span<L: AnyLayout>(
    layout: &L,
    mut f: impl FnMut(usize, usize),
) -> bool {
    with_nest(layout, Order::Memory, |nest| {
        let Some(nest) = nest else {
            return false;
        };
        let [stride, _] = nest.inner_strides();
        if stride == 1 {
            // The stretch being grown: `[start, end)`.
            let (mut first, mut end) = (0, 0);
            nest.for_each_run(|[start, _], len| {
                if start != end {
                    if end > first {
                        f(first, end - first);
                    }
                    first = start;
                }
                end = start + len;
            });
            if end > first {
                f(first, end - first);
            }
        } else {
            nest.for_each_run(|[start, _], len| {
                for i in 0..len {
                    f(start + i * stride, 1);
                }
            });
        }
        true
    })
}

/// Calls `f(start, len)` for every stretch of `layout`'s padding slots
/// (`padding`) or element slots ([`SlotBoxes::for_each_span`]); `false`
/// when they are not boxes of its physical dims, and nothing was called.
/// A static layout's boxes are constants, so the loops fold.
#[inline(always)]
pub(crate) fn for_each_slot_box_span<L: AnyLayout>(
    layout: &L,
    padding: bool,
    f: impl FnMut(usize, usize),
) -> bool {
    let fixed: &'static Option<[Option<SlotBoxes>; 2]> = &const {
        match L::FIXED_LAYOUT {
            Some(l) => Some([SlotBoxes::elements(&l), SlotBoxes::padding(&l)]),
            None => None,
        }
    };
    let built;
    let boxes = match fixed {
        Some(b) => &b[padding as usize],
        None => {
            let a = layout.to_array_layout();
            built = match padding {
                true => SlotBoxes::padding(&a),
                false => SlotBoxes::elements(&a),
            };
            &built
        }
    };
    match boxes {
        Some(b) => {
            b.for_each_span(f);
            true
        }
        None => false,
    }
}

/// The nest that visits `layout`'s elements in its own memory order.
const fn memory_nest(layout: &ArrayLayout) -> Option<LoopNest> {
    match LoopNest::relayout(layout, layout) {
        Ok(n) => n,
        Err(_) => None,
    }
}

/// Where an element iterator is: the current run and what is left.
///
/// A layout whose logical order is its buffer's order (row-major dense:
/// offsets `0..element_count` in turn, [`ArrayLayout::is_row_major_dense`])
/// is one run from the start (`flat`), so a loop over `next` is a loop
/// over a slice: for a static layout, the run's length and the absence
/// of any other are constants, and the compiler vectorises a `for` loop
/// over it as it does one over the slice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Position {
    cursor: RunCursor,
    /// The next element's offset in the current run and how many of its
    /// elements are left; every run moves by the stride of the cursor's
    /// step (a constant for static layouts).
    offset: usize,
    pub(crate) left: usize,
    /// Elements after the current run: checked only where a run starts,
    /// so handing out an element inside a run is one comparison.
    after: usize,
    /// Whether the walk is one run of every element (`cursor` unused).
    flat: bool,
}

impl Position {
    /// The start of `layout`'s walk: one run of every element when its
    /// logical order is its buffer's, else runs of its last dimension.
    #[inline(always)]
    pub(crate) fn new<L: AnyLayout>(layout: &L) -> Position {
        // Constants for static layouts; one look at a run-time layout's
        // description for both.
        let (step, flat) = match const {
            match L::FIXED_LAYOUT {
                Some(l) => Some((last_dim_step(&l), l.is_row_major_dense())),
                None => None,
            }
        } {
            Some(walk) => walk,
            None => {
                let l = layout.to_array_layout();
                (last_dim_step(&l), l.is_row_major_dense())
            }
        };
        let at = Position::rows_with(layout, step);
        match flat {
            // Offsets `0..count` one after the other. (The cursor, which
            // `into_rows` replaces, goes unused: no run follows.)
            true => Position {
                cursor: RunCursor {
                    step: Step {
                        stride: 1,
                        period: 0,
                    },
                    ..at.cursor
                },
                offset: 0,
                left: at.after,
                after: 0,
                flat: true,
            },
            false => at,
        }
    }

    /// The start of `layout`'s walk in runs of its last dimension, each
    /// starting at the index [`Position::start_run`] writes.
    #[inline(always)]
    pub(crate) fn by_rows<L: AnyLayout>(layout: &L) -> Position {
        Position::rows_with(layout, step_of(layout))
    }

    /// [`Position::by_rows`] with the layout's [`Step`] given.
    #[inline(always)]
    fn rows_with<L: AnyLayout>(layout: &L, step: Step) -> Position {
        Position {
            cursor: RunCursor { row: 0, x: 0, step },
            offset: 0,
            left: 0,
            after: layout.element_count(),
            flat: false,
        }
    }

    /// This position in runs of the last dimension ([`Position::by_rows`]),
    /// between runs: for walks that count each run's first index
    /// ([`Indexed`](crate::iter::Indexed)). A run begun is cut where it
    /// was left, so that the next one starts at the next element (logical
    /// order is row-major, so that element is the count handed out so far,
    /// in mixed radix).
    pub(crate) fn into_rows<L: AnyLayout>(self, layout: &L) -> Position {
        if self.left == 0 && !self.flat {
            return self;
        }
        let mut at = Position::by_rows(layout);
        let remaining = self.remaining();
        let consumed = at.after - remaining;
        at.after = remaining;
        let rank = layout.rank();
        if rank > 0 && remaining > 0 {
            // Elements are left, so the last dimension is not empty.
            let width = layout.size(rank - 1);
            (at.cursor.row, at.cursor.x) = (consumed / width, consumed % width);
        }
        at
    }

    /// Whether every offset of the current run is below `len`: its last
    /// one is (they grow by the stride).
    pub(crate) fn run_below(&self, len: usize) -> bool {
        let last = self
            .stride()
            .checked_mul(self.left.saturating_sub(1))
            .and_then(|d| d.checked_add(self.offset));
        self.left == 0 || matches!(last, Some(last) if last < len)
    }

    /// The stride of every run.
    #[inline(always)]
    fn stride(&self) -> usize {
        self.cursor.step.stride
    }

    /// Elements not yet returned, the current run's included.
    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.left + self.after
    }

    /// Whether the current run is used up and another one follows.
    #[inline(always)]
    pub(crate) fn at_run_start(&self) -> bool {
        self.left == 0 && self.after > 0
    }

    /// Starts the next run, writing its first element's index to `index`.
    #[inline(always)]
    pub(crate) fn start_run<L: AnyLayout>(&mut self, layout: &L, index: &mut [usize]) {
        let Run {
            offset,
            stride,
            len,
        } = self.cursor.next_run(layout, index);
        debug_assert_eq!(stride, self.stride());
        (self.offset, self.left) = (offset, len);
        self.after -= len;
    }

    /// The offset of the next element, starting a run when the current
    /// one is used up.
    #[inline(always)]
    pub(crate) fn next_offset<L: AnyLayout>(&mut self, layout: &L) -> Option<usize> {
        if const { L::FIXED_LAYOUT.is_none() } && self.flat {
            // Tested first on a run-time layout, as in
            // `next_offset_below`. (On a static layout the run tests
            // below fold to constants for a one-run walk; tested first
            // there too, it measured slower for the tiled walk and for
            // `Packed::iter`.)
            return self.next_flat();
        }
        if self.left == 0 {
            if self.after == 0 {
                return None;
            }
            let mut index = [0usize; MAX_RANK];
            self.start_run(layout, &mut index);
        }
        let offset = self.offset;
        self.offset = offset.wrapping_add(self.stride());
        self.left -= 1;
        Some(offset)
    }

    /// As [`next_offset`](Self::next_offset), each offset below `len`
    /// when the current run's are ([`run_below`](Self::run_below), which
    /// the caller checks first): checked where each later run starts, so
    /// that handing out an element inside a run is one comparison and a
    /// loop over this has no other way out.
    ///
    /// # Panics
    ///
    /// If a run reaches `len` or past it: the caller's buffer does not
    /// hold the layout's.
    #[inline(always)]
    pub(crate) fn next_offset_below<L: AnyLayout>(
        &mut self,
        layout: &L,
        len: usize,
    ) -> Option<usize> {
        if self.flat {
            // Tested first, so that on a run-time layout (where `flat` is
            // not a constant) the compiler takes the test out of a loop
            // over this and keeps a copy of the loop with one way out.
            return self.next_flat();
        }
        if self.left == 0 {
            if self.after == 0 {
                return None;
            }
            let mut index = [0usize; MAX_RANK];
            self.start_run(layout, &mut index);
            assert!(
                self.run_below(len),
                "an element's offset lies in the buffer"
            );
        }
        let offset = self.offset;
        self.offset = offset.wrapping_add(self.stride());
        self.left -= 1;
        Some(offset)
    }

    /// The next offset of a `flat` walk: one run of every element, stride
    /// 1, none after it.
    #[inline(always)]
    fn next_flat(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        let offset = self.offset;
        self.offset = offset.wrapping_add(1);
        self.left -= 1;
        Some(offset)
    }

    /// The rest of the current run, or the next whole run, as a [`Run`],
    /// all of it counted as handed out; `None` when every element has
    /// been. Internal iteration (`fold`) loops over these as over slices.
    #[inline(always)]
    pub(crate) fn take_run<L: AnyLayout>(&mut self, layout: &L) -> Option<Run> {
        if self.left == 0 {
            if self.after == 0 {
                return None;
            }
            let mut index = [0usize; MAX_RANK];
            self.start_run(layout, &mut index);
        }
        let run = Run {
            offset: self.offset,
            stride: self.stride(),
            len: self.left,
        };
        self.left = 0;
        Some(run)
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use layout_core::ArrayLayout;

    /// The stretches `for_each_element_span` reports for `spec`.
    fn spans(spec: &str) -> Vec<(usize, usize)> {
        let layout: ArrayLayout = spec.parse().unwrap();
        let mut out = Vec::new();
        assert!(super::for_each_element_span(&layout, |start, len| out.push((start, len))));
        out
    }

    #[test]
    fn element_spans_join_runs_that_follow_one_another() {
        // Two bands of tiles; in each, the first tile is whole (1024
        // slots in a row) and the second holds 122 valid columns per row.
        let mut expected = Vec::new();
        for band in 0..2 {
            let base = band * 2048;
            let rows = (0..8).map(|r| (base + 1024 + r * 128, 122));
            // The whole tile joins the first row of the partial one.
            expected.push((base, 1024 + 122));
            expected.extend(rows.skip(1));
        }
        assert_eq!(spans("f32[16,250]{1,0:T(8,128)}"), expected);
        // No padding: one stretch.
        assert_eq!(spans("f32[16,256]{1,0:T(8,128)}"), [(0, 4096)]);
    }
}
