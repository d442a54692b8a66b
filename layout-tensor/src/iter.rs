//! Iterators over a tensor's elements: [`Iter`] and [`IterMut`] (logical
//! order) and [`Indexed`] (the same, with each index). Every slot in
//! memory order is [`Slots`](crate::Slots).
//!
//! The element iterators walk [runs](crate::runs): stretches of the last
//! dimension whose offsets move by a fixed stride. An offset is computed
//! only where a run starts (once per 128 elements for `T(8,128)`), so an
//! iterator is a few words (88 bytes on 64-bit targets, whatever the rank
//! or the tiling), and `fold`-based consumers (`sum`, `for_each`,
//! `count`...) loop over each run as over a slice. A row-major dense
//! layout is one run, so that a `for` loop over it is the slice loop.

use layout_core::{AnyLayout, LayoutIndex, MAX_RANK};

use crate::runs::{Position, Run, fold_by_next, for_each_indexed_run, single};

/// The elements of a tensor in logical (row-major index) order
/// ([`TensorBase::iter`](crate::TensorBase::iter)).
///
/// ```
/// use tessera::{Tensor, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
/// t.for_each_mut(|i, v| *v = (i[0] * 5 + i[1]) as f32);
/// let v: Vec<f32> = t.iter().copied().collect();
/// assert_eq!(v, (0..15).map(|i| i as f32).collect::<Vec<_>>());
/// assert_eq!(t.iter().sum::<f32>(), 105.0);
/// ```
pub struct Iter<'a, T, L> {
    data: &'a [T],
    layout: &'a L,
    at: Position,
}

impl<'a, T, L: AnyLayout> Iter<'a, T, L> {
    pub(crate) fn new(data: &'a [T], layout: &'a L) -> Self {
        Iter {
            data,
            layout,
            at: Position::new(layout),
        }
    }

    /// Pairs each element with its logical index.
    pub fn indexed(self) -> Indexed<'a, T, L> {
        let at = self.at.into_rows(self.layout);
        Indexed {
            index: L::Index::from_slice(&[0; MAX_RANK][..self.layout.rank()]),
            inner: Iter { at, ..self },
            in_run: 0,
        }
    }
}

impl<T, L> Clone for Iter<'_, T, L> {
    fn clone(&self) -> Self {
        Iter {
            data: self.data,
            layout: self.layout,
            at: self.at,
        }
    }
}

impl<'a, T, L: AnyLayout> Iterator for Iter<'a, T, L> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        let offset = self.at.next_offset(self.layout)?;
        Some(&self.data[offset])
    }

    #[inline]
    fn fold<B, F: FnMut(B, &'a T) -> B>(mut self, init: B, mut f: F) -> B {
        let data = self.data;
        if self.at.remaining() == self.layout.element_count() {
            // Untouched: the loop nest's odometer, an offset by additions.
            let mut acc = Some(init);
            for_each_indexed_run(self.layout, |_, run| {
                let Some(mut a) = acc.take() else {
                    unreachable!()
                };
                a = fold_run(a, data, run.offset, run.stride, run.len, &mut f);
                acc = Some(a);
            });
            let Some(a) = acc else { unreachable!() };
            return a;
        }
        let mut acc = init;
        while let Some(Run {
            offset,
            stride,
            len,
        }) = self.at.take_run(self.layout)
        {
            acc = fold_run(acc, data, offset, stride, len, &mut f);
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.at.remaining(), Some(self.at.remaining()))
    }
}

/// Folds the `len` elements at `offset + i * stride`: a slice loop when
/// they are contiguous.
#[inline(always)]
fn fold_run<'a, T, B>(
    mut acc: B,
    data: &'a [T],
    offset: usize,
    stride: usize,
    len: usize,
    f: &mut impl FnMut(B, &'a T) -> B,
) -> B {
    if stride == 1 {
        for v in &data[offset..offset + len] {
            acc = f(acc, v);
        }
    } else {
        let mut o = offset;
        for _ in 0..len {
            acc = f(acc, &data[o]);
            o = o.wrapping_add(stride);
        }
    }
    acc
}

impl<T, L: AnyLayout> ExactSizeIterator for Iter<'_, T, L> {}
impl<T, L: AnyLayout> core::iter::FusedIterator for Iter<'_, T, L> {}

/// The elements of a tensor in logical order, writable
/// ([`TensorBase::iter_mut`](crate::TensorBase::iter_mut)).
///
/// ```
/// use tessera::{Tensor, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
/// for (i, v) in t.iter_mut().enumerate() {
///     *v = i as f32;
/// }
/// assert_eq!(t[[2, 4]], 14.0);
/// ```
pub struct IterMut<'a, T, L> {
    /// The buffer: logical order goes back in memory between runs (the
    /// next row of a tile), so elements are handed out through a pointer
    /// rather than by splitting a slice.
    data: core::ptr::NonNull<T>,
    len: usize,
    layout: &'a L,
    at: Position,
    borrow: core::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: an `IterMut` is a `&mut [T]` handed out element by element.
#[allow(unsafe_code)]
unsafe impl<T: Send, L: Sync> Send for IterMut<'_, T, L> {}
// SAFETY: as for `Send`: shared access to an `IterMut` gives no access to
// the elements.
#[allow(unsafe_code)]
unsafe impl<T: Sync, L: Sync> Sync for IterMut<'_, T, L> {}

impl<'a, T, L: AnyLayout> IterMut<'a, T, L> {
    /// `data` holds at least the layout's buffer (the tensor checked it).
    pub(crate) fn new(data: &'a mut [T], layout: &'a L) -> Self {
        let at = Position::new(layout);
        assert!(
            data.len() >= layout.buffer_len() && at.run_below(data.len()),
            "the tensor holds its whole buffer"
        );
        IterMut {
            len: data.len(),
            data: core::ptr::NonNull::from(data).cast(),
            layout,
            at,
            borrow: core::marker::PhantomData,
        }
    }
}

impl<'a, T, L: AnyLayout> Iterator for IterMut<'a, T, L> {
    type Item = &'a mut T;

    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        // Below `len`: the first run's offsets were checked by `new`, each
        // later run's where it starts.
        let offset = self.at.next_offset_below(self.layout, self.len)?;
        // SAFETY: `offset < len`, so the pointer is in the buffer borrowed
        // for `'a`. The iterator hands out each logical index once, and
        // the engine's offsets of distinct indices in bounds are distinct
        // (tested by the conformance suite and the property tests; every
        // layout is the engine's, as `AnyLayout` is sealed), so no two
        // returned references alias.
        #[allow(unsafe_code)]
        Some(unsafe { &mut *self.data.as_ptr().add(offset) })
    }

    #[inline]
    fn fold<B, F: FnMut(B, &'a mut T) -> B>(mut self, init: B, mut f: F) -> B {
        let (data, len) = (self.data, self.len);
        if self.at.remaining() == self.layout.element_count() {
            // Untouched: the loop nest's odometer, as `Iter::fold`.
            let mut acc = Some(init);
            for_each_indexed_run(self.layout, |_, run| {
                let Some(mut a) = acc.take() else {
                    unreachable!()
                };
                a = fold_run_mut(a, data, len, run.offset, run.stride, run.len, &mut f);
                acc = Some(a);
            });
            let Some(a) = acc else { unreachable!() };
            return a;
        }
        let mut acc = init;
        while let Some(Run {
            offset,
            stride,
            len: n,
        }) = self.at.take_run(self.layout)
        {
            acc = fold_run_mut(acc, data, len, offset, stride, n, &mut f);
        }
        acc
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.at.remaining(), Some(self.at.remaining()))
    }
}

/// Folds the `n` elements at `offset + i * stride` of the `len`-slot
/// buffer at `data`, each handed out once: a slice loop when they are
/// contiguous.
#[inline(always)]
fn fold_run_mut<'a, T: 'a, B>(
    mut acc: B,
    data: core::ptr::NonNull<T>,
    len: usize,
    offset: usize,
    stride: usize,
    n: usize,
    f: &mut impl FnMut(B, &'a mut T) -> B,
) -> B {
    // Offsets grow along a run, so its last one bounds them all.
    let last = offset.wrapping_add(stride.wrapping_mul(n.saturating_sub(1)));
    assert!(
        n == 0 || last < len,
        "an element's offset lies in the buffer"
    );
    if stride == 1 {
        // SAFETY: `offset + n <= len`, so the `n` slots are in the buffer
        // borrowed for `'a`; they are this run's elements, which no
        // reference handed out before covers (each element is handed out
        // once, and distinct indices have distinct offsets).
        #[allow(unsafe_code)]
        let run = unsafe { core::slice::from_raw_parts_mut(data.as_ptr().add(offset), n) };
        for v in run {
            acc = f(acc, v);
        }
        return acc;
    }
    let mut o = offset;
    for _ in 0..n {
        // SAFETY: `offset <= o <= last < len` (the run's offsets grow by
        // `stride`), so the pointer is in the buffer borrowed for `'a`;
        // each element is handed out once, as in `IterMut::next`.
        #[allow(unsafe_code)]
        let v = unsafe { &mut *data.as_ptr().add(o) };
        acc = f(acc, v);
        o = o.wrapping_add(stride);
    }
    acc
}

impl<T, L: AnyLayout> ExactSizeIterator for IterMut<'_, T, L> {}
impl<T, L: AnyLayout> core::iter::FusedIterator for IterMut<'_, T, L> {}

/// The elements of a tensor in logical order, each with its logical index
/// ([`Iter::indexed`]): `[usize; R]` for static and mixed layouts
/// ([`AnyLayout::Index`]). A fold from the start (`for_each`, `sum`,
/// `fold`) walks the loop nest's runs with the index counted along each,
/// within about 1.1× of the hand-written loop on a static layout
/// (`BENCHMARKS.md`); `next` starts each run from the layout's offset.
///
/// ```
/// use tessera::{Tensor, layout};
/// type A = layout!(f32[3,5]{1,0:T(2,2)});
/// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
/// t[[1, 4]] = 9.0;
/// let (at, _) = t.iter().indexed().find(|(_, v)| **v == 9.0).unwrap();
/// assert_eq!(at, [1, 4]);
/// ```
pub struct Indexed<'a, T, L: AnyLayout> {
    inner: Iter<'a, T, L>,
    /// The index of the current run's first element.
    index: L::Index,
    /// How far into the current run the last element was.
    in_run: usize,
}

impl<'a, T, L: AnyLayout> Iterator for Indexed<'a, T, L> {
    type Item = (L::Index, &'a T);

    #[inline]
    fn next(&mut self) -> Option<(L::Index, &'a T)> {
        if self.inner.at.at_run_start() {
            self.inner
                .at
                .start_run(self.inner.layout, self.index.as_mut());
            self.in_run = 0;
        } else {
            self.in_run += 1;
        }
        let offset = self.inner.at.next_offset(self.inner.layout)?;
        let mut index = self.index;
        if let Some(last) = index.as_mut().last_mut() {
            *last += self.in_run;
        }
        Some((index, &self.inner.data[offset]))
    }

    #[inline]
    fn fold<B, F: FnMut(B, (L::Index, &'a T)) -> B>(mut self, init: B, mut f: F) -> B {
        let (data, layout) = (self.inner.data, self.inner.layout);
        if self.inner.at.remaining() != layout.element_count() {
            // Begun: the rest by `next`.
            return fold_by_next(&mut self, init, f);
        }
        // Untouched: the loop nest's runs, each index counted along its
        // run as `for_each` counts it.
        let rank = layout.rank();
        let mut acc = Some(init);
        for_each_indexed_run(
            layout,
            #[inline(always)]
            |first, run| {
                let Some(mut a) = acc.take() else {
                    unreachable!()
                };
                let index = L::Index::from_slice(&first[..rank]);
                let block = single(run);
                a = if run.stride == 1 {
                    let values = &data[run.offset..run.offset + run.len];
                    block.fold_run(&index, values, a, |a, i, v| f(a, (*i, v)))
                } else {
                    let values = (0..run.len).map(|k| &data[run.offset + k * run.stride]);
                    block.fold_run(&index, values, a, |a, i, v| f(a, (*i, v)))
                };
                acc = Some(a);
            },
        );
        let Some(a) = acc else { unreachable!() };
        a
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T, L: AnyLayout> ExactSizeIterator for Indexed<'_, T, L> {}
impl<T, L: AnyLayout> core::iter::FusedIterator for Indexed<'_, T, L> {}

#[cfg(test)]
mod tests {
    //! The `unsafe` element hand-out of `IterMut`, run under Miri by
    //! `.ci/run`: every element once, in logical order, whether the walk is
    //! `next`, a fresh `fold` (the loop nest) or a `fold` after some `next`
    //! calls (the run cursor), over tiles, padding and strided runs.

    use layout_core::{ArrayLayout, PreparedLayout};

    use crate::TensorViewMut;

    fn check(text: &str) {
        let layout: ArrayLayout = text.parse().unwrap();
        let count = layout.element_count();
        for skip in [0, 1, count / 2, count] {
            let mut buf = [-1i32; 64];
            let mut t = TensorViewMut::new(PreparedLayout::new(layout), &mut buf[..]).unwrap();
            let mut it = t.iter_mut();
            let mut k = 0;
            for v in it.by_ref().take(skip) {
                *v = k;
                k += 1;
            }
            let k = it.fold(k, |k, v| {
                *v = k;
                k + 1
            });
            assert_eq!(k as usize, count, "{text}");
            let mut n = 0;
            for (k, (_, o)) in layout.elements().enumerate() {
                assert_eq!(buf[o], k as i32, "{text} skip {skip}");
                n += 1;
            }
            assert_eq!(n, count);
            let untouched = buf[..layout.buffer_len()]
                .iter()
                .filter(|&&v| v == -1)
                .count();
            assert_eq!(untouched, layout.buffer_len() - count, "{text}");
        }
    }

    #[test]
    fn iter_mut_hands_out_each_element_once() {
        check("s32[5,7]{1,0:T(2,4)}");
        check("s32[5,7]{0,1:T(2,4)}");
        check("s32[3,4,5]{0,2,1}");
        check("s32[6,4]{1,0:T(4,2)(2,1)}");
        check("s32[4,6]{1,0:T(2,*,2)}");
        check("s32[]");
        check("s32[0,3]");
        // Row-major dense: one run of every element from the start.
        check("s32[5,7]");
        check("s32[2,3,5]{2,1,0}");
        check("s32[9]");
        // Row-major dense with a last dimension of 1, whose runs by rows
        // have no stride.
        check("s32[5,1]");
        check("s32[1,4,1]");
    }

    /// `indexed` after some `next` calls picks the walk up where they
    /// left it, also a walk that is one run of every element (a
    /// row-major dense layout), whose indices it counts by rows.
    #[test]
    fn indexed_continues_where_next_left_off() {
        for text in [
            "s32[3,5]",
            "s32[2,3,4]",
            "s32[6]",
            "s32[]",
            "s32[5,1]",
            "s32[3,5]{1,0:T(2,4)}",
        ] {
            let layout: ArrayLayout = text.parse().unwrap();
            let mut buf = [0i32; 64];
            let elements: alloc::vec::Vec<_> = layout.elements().collect();
            for (k, (_, o)) in elements.iter().enumerate() {
                buf[*o] = k as i32;
            }
            let t = crate::TensorView::new(PreparedLayout::new(layout), &buf[..]).unwrap();
            for skip in 0..=elements.len() {
                let mut it = t.iter();
                for k in 0..skip {
                    assert_eq!(it.next(), Some(&(k as i32)), "{text}");
                }
                let rest: alloc::vec::Vec<_> = it
                    .indexed()
                    .map(|(i, v)| (i.as_ref().to_vec(), *v))
                    .collect();
                let expected: alloc::vec::Vec<_> = elements[skip..]
                    .iter()
                    .map(|(i, o)| (i.as_ref().to_vec(), buf[*o]))
                    .collect();
                assert_eq!(rest, expected, "{text} skip {skip}");
            }
        }
    }
}
