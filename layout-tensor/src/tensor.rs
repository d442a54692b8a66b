//! [`TensorBase`]: elements stored where a layout says, over any
//! [`Storage`], with the aliases users name: [`Tensor`] (inline, static
//! layouts, `const`-constructible), [`TensorView`] / [`TensorViewMut`]
//! (borrowed) and `TensorBuf` (owned `Vec`, with `alloc`).

use core::fmt;

use layout_core::{ArrayLayout, Error, ErrorKind, Locus, PaddingValue, Slot};

use crate::element::Element;
use crate::iter::{Iter, IterMut};
use crate::runs;
use crate::slots::{Slots, SlotsMut};
use layout_core::{AnyLayout, HasRank, KnownLayout};

use crate::layout::Stores;
use crate::storage::{Storage, StorageMut};

/// Elements of type `T` in the slots of a buffer, placed by layout `L`.
///
/// Every tensor type is this struct with some storage `S`; all methods
/// are written once here. The buffer always has exactly the layout's
/// `buffer_len` slots; slots that hold no element (tile padding,
/// `pad(..)`, the `L(n)` tail) are part of it and are reached only
/// through [`TensorBase::as_slice`] and [`TensorBase::slots`].
///
/// One layout over three storages, with the same methods:
///
/// ```
/// use tessera::{Tensor, TensorBuf, TensorView, layout};
/// type A = layout!(f32[2,3]{0,1}); // column-major: [y, x] is slot y + 2x
/// let slots = [0.0, 3.0, 1.0, 4.0, 2.0, 5.0];
/// let inline = Tensor::<A, f32, { A::BUFFER_LEN }>::from_slots(slots);
/// let view = TensorView::new(A::NEW, &slots[..])?;
/// let owned = TensorBuf::from_vec(A::NEW, slots.to_vec())?;
/// assert_eq!((inline[[1, 2]], view[[1, 2]], owned[[1, 2]]), (5.0, 5.0, 5.0));
/// assert_eq!(owned.iter().copied().collect::<Vec<_>>(), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct TensorBase<S, L> {
    layout: L,
    storage: S,
}

/// A tensor with inline storage of exactly `N` slots, for a static layout
/// (`N` is the layout's `BUFFER_LEN`, checked at compile time). Its
/// constructors are `const fn`, so it can sit in a `static`:
///
/// ```
/// use tessera::Tensor;
/// type A = tessera::layout!(f32[3,5]{1,0:T(2,2)});
/// static WEIGHTS: Tensor<A, f32, { A::BUFFER_LEN }> = Tensor::zeroed();
/// assert_eq!(WEIGHTS[[2, 3]], 0.0);
/// assert_eq!(WEIGHTS.as_slice().len(), 24);
/// ```
pub type Tensor<L, T, const N: usize> = TensorBase<[T; N], L>;

/// A tensor borrowing its slots.
///
/// ```
/// use tessera::{PreparedLayout, TensorView};
/// let slots = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
/// let l = PreparedLayout::parse("f32[2,3]{0,1}")?;
/// let t: TensorView<'_, PreparedLayout, f32> = TensorView::new(l, &slots[..])?;
/// assert_eq!(t[[1, 0]], 1.0); // column-major: [y, x] is slot y + 2x
/// assert_eq!(t[[0, 2]], 4.0);
/// assert!(TensorView::<_, f32>::new(l, &slots[..5]).is_err()); // one slot short
/// # Ok::<(), tessera::Error>(())
/// ```
pub type TensorView<'a, L, T> = TensorBase<&'a [T], L>;

/// A tensor borrowing its slots mutably.
///
/// ```
/// use tessera::{TensorViewMut, layout};
/// type A = layout!(f32[2,3]{1,0});
/// let mut slots = [0.0; 6];
/// let mut t = TensorViewMut::new(A::NEW, &mut slots[..])?;
/// t.row_mut(0).fill(1.0);
/// t[[1, 2]] = 7.0;
/// assert_eq!(slots, [1.0, 1.0, 1.0, 0.0, 0.0, 7.0]); // written in place
/// # Ok::<(), tessera::Error>(())
/// ```
pub type TensorViewMut<'a, L, T> = TensorBase<&'a mut [T], L>;

/// A tensor owning its slots in a `Vec` (for run-time layouts, or static
/// ones too large for the stack).
///
/// ```
/// use tessera::{PreparedLayout, TensorBuf};
/// let l = PreparedLayout::parse("f32[3,5]{1,0:T(2,2)}")?;
/// let t = TensorBuf::from_fn(l, |i| (i[0] * 5 + i[1]) as f32)?;
/// assert_eq!(t[[2, 3]], 13.0);
/// assert_eq!(t.as_slice().len(), 24); // 15 elements in 6 tiles of 2x2 slots
/// # Ok::<(), tessera::Error>(())
/// ```
#[cfg(feature = "alloc")]
pub type TensorBuf<L, T> = TensorBase<alloc::vec::Vec<T>, L>;

/// Checks that `T` is the element type of `layout`, one slot per element.
pub(crate) const fn check_element<T: Element>(layout: &ArrayLayout) -> Result<(), Error> {
    if layout.element_type() as u32 != T::TYPE as u32 {
        return Err(Error::at(
            ErrorKind::ElementTypeMismatch {
                expected: layout.element_type(),
                found: T::TYPE,
            },
            Locus::ElementType,
        ));
    }
    let storage_bits = core::mem::size_of::<T>() * 8;
    if layout.element_size_in_bits() != storage_bits {
        return Err(Error::at(
            ErrorKind::ElementWidthMismatch {
                layout_bits: layout.element_size_in_bits(),
                storage_bits,
            },
            Locus::Attribute("E"),
        ));
    }
    Ok(())
}

/// The value `pad(..:word)` asks padding slots to hold, if any.
pub(crate) const fn padding_value<T: Element>(layout: &ArrayLayout) -> Option<T> {
    let value = match layout.layout().padding() {
        Some(p) => p.value(),
        None => PaddingValue::Unspecified,
    };
    match value {
        PaddingValue::Unspecified | PaddingValue::Zero => Some(T::ZERO),
        PaddingValue::One => Some(T::ONE),
        PaddingValue::Lowest => T::LOWEST,
        PaddingValue::Highest => T::HIGHEST,
    }
}

/// Why [`padding_value`] is `None`.
pub(crate) fn padding_value_error(layout: &ArrayLayout) -> Error {
    let word = layout.layout().padding().map_or("", |p| p.value().name());
    Error::at(
        ErrorKind::PaddingValueUndefined {
            value: word,
            element_type: layout.element_type(),
        },
        Locus::Attribute("pad"),
    )
}

/// Panics with `e`'s message in `const` context.
const fn fail(e: Error) -> ! {
    e.panic()
}

impl<L: KnownLayout + Stores<T>, T: Element, const N: usize> TensorBase<[T; N], L> {
    /// Compile-time checks of a static tensor type.
    const CHECK: () = {
        if let Err(e) = check_element::<T>(&L::LAYOUT) {
            fail(e);
        }
        assert!(
            N == L::LAYOUT.buffer_len(),
            "the array length N must be the layout's BUFFER_LEN"
        );
    };

    /// Every slot zero. `const`, so the tensor can be a `static`.
    pub const fn zeroed() -> Self {
        Self::filled(T::ZERO)
    }

    /// Every slot, padding included, `value`.
    pub const fn filled(value: T) -> Self {
        let () = Self::CHECK;
        TensorBase {
            layout: L::VALUE,
            storage: [value; N],
        }
    }

    /// Elements `value`, padding slots the layout's padding value (`pad(..:
    /// lowest)` and the like; zero when the layout names none). Walks every
    /// slot with the engine, so in a `static` it costs compile time only.
    ///
    /// # Panics
    /// If the layout's padding value does not exist for `T` (`lowest` of a
    /// complex type); in a `static` this is a compile error.
    pub const fn with_padding_value(value: T) -> Self {
        let () = Self::CHECK;
        let pad = match padding_value::<T>(&L::LAYOUT) {
            Some(p) => p,
            None => panic!("the layout's padding value does not exist for this element type"),
        };
        let mut storage = [value; N];
        let mut o = 0;
        while o < N {
            if let Ok(Slot::Padding) = L::LAYOUT.try_slot(o) {
                storage[o] = pad;
            }
            o += 1;
        }
        TensorBase {
            layout: L::VALUE,
            storage,
        }
    }

    /// A tensor over `slots`, given in memory order (as produced by a tool
    /// that writes this layout, or by [`TensorBase::as_slice`]).
    pub const fn from_slots(slots: [T; N]) -> Self {
        let () = Self::CHECK;
        TensorBase {
            layout: L::VALUE,
            storage: slots,
        }
    }

    /// The slots, by value.
    pub const fn into_slots(self) -> [T; N] {
        // A const fn cannot move out of a struct with a generic layout
        // field that might need dropping; layouts are `Copy`.
        let TensorBase { layout: _, storage } = self;
        storage
    }
}

impl<L: Stores<T>, T: Element, const N: usize> TensorBase<[T; N], L> {
    /// A tensor with inline storage in a layout given as a value (a
    /// bounded `<=N` layout, whose buffer length is a constant while its
    /// extents are not), every slot zero.
    ///
    /// # Errors
    /// `N` is not the layout's buffer length.
    pub fn zeroed_in(layout: L) -> Result<Self, Error> {
        Self::from_slots_in(layout, [T::ZERO; N])
    }

    /// A tensor over `slots` (memory order) in a layout given as a value.
    ///
    /// # Errors
    /// `N` is not the layout's buffer length.
    pub fn from_slots_in(layout: L, slots: [T; N]) -> Result<Self, Error> {
        let a = layout.to_array_layout();
        check_element::<T>(&a)?;
        if N != a.buffer_len() {
            return Err(Error::new(ErrorKind::InlineBufferLengthMismatch {
                needed: a.buffer_len(),
                found: N,
            }));
        }
        Ok(TensorBase {
            layout,
            storage: slots,
        })
    }
}

impl<'a, L: Stores<T>, T: Element> TensorBase<&'a [T], L> {
    /// A view of `slots` in `layout`.
    ///
    /// # Errors
    /// `T` is not the layout's element type, or `slots` is shorter than the
    /// layout's buffer. Extra slots are ignored.
    pub fn new(layout: L, slots: &'a [T]) -> Result<Self, Error> {
        let n = checked_len::<T>(&layout.to_array_layout(), slots.len())?;
        Ok(TensorBase {
            layout,
            storage: &slots[..n],
        })
    }
}

impl<'a, L: Stores<T>, T: Element> TensorBase<&'a mut [T], L> {
    /// A mutable view of `slots` in `layout`.
    ///
    /// # Errors
    /// As [`TensorView::new`].
    pub fn new(layout: L, slots: &'a mut [T]) -> Result<Self, Error> {
        let n = checked_len::<T>(&layout.to_array_layout(), slots.len())?;
        Ok(TensorBase {
            layout,
            storage: &mut slots[..n],
        })
    }
}

#[cfg(feature = "alloc")]
impl<L: Stores<T>, T: Element> TensorBase<alloc::vec::Vec<T>, L> {
    /// A tensor with every slot zero.
    ///
    /// # Errors
    /// `T` is not the layout's element type, or the buffer cannot be
    /// allocated ([`ErrorKind::AllocationFailed`], naming its bytes).
    pub fn zeroed(layout: L) -> Result<Self, Error> {
        Self::filled(layout, T::ZERO)
    }

    /// A tensor with every slot, padding included, `value`.
    ///
    /// # Errors
    /// `T` is not the layout's element type, or the buffer cannot be
    /// allocated ([`ErrorKind::AllocationFailed`], naming its bytes).
    pub fn filled(layout: L, value: T) -> Result<Self, Error> {
        check_element::<T>(&layout.to_array_layout())?;
        let n = layout.to_array_layout().buffer_len();
        Ok(TensorBase {
            layout,
            storage: crate::storage::try_filled_vec(n, value)?,
        })
    }

    /// A tensor over `slots` in memory order.
    ///
    /// # Errors
    /// As [`TensorView::new`]; extra slots are dropped.
    pub fn from_vec(layout: L, mut slots: alloc::vec::Vec<T>) -> Result<Self, Error> {
        let n = checked_len::<T>(&layout.to_array_layout(), slots.len())?;
        slots.truncate(n);
        Ok(TensorBase {
            layout,
            storage: slots,
        })
    }

    /// A tensor whose element at each logical index is `f(index)`,
    /// padding slots the layout's padding value (zero when it names none).
    ///
    /// # Errors
    /// `T` is not the layout's element type, the layout's padding value
    /// does not exist for `T`, or the buffer cannot be allocated
    /// ([`ErrorKind::AllocationFailed`]).
    pub fn from_fn(layout: L, mut f: impl FnMut(&[usize]) -> T) -> Result<Self, Error> {
        let mut t = Self::zeroed(layout)?;
        t.fill_padding()?;
        t.for_each_mut(|index, slot| *slot = f(index));
        Ok(t)
    }

    /// The slots, by value.
    pub fn into_vec(self) -> alloc::vec::Vec<T> {
        self.storage
    }
}

/// `layout`'s buffer length, after checking `T` and that `len` slots are
/// enough.
fn checked_len<T: Element>(layout: &ArrayLayout, len: usize) -> Result<usize, Error> {
    check_element::<T>(layout)?;
    let needed = layout.buffer_len();
    if len < needed {
        return Err(Error::new(ErrorKind::BufferTooShort { needed, found: len }));
    }
    Ok(needed)
}

impl<S, L> TensorBase<S, L> {
    /// A tensor over `storage`, which the caller has checked holds the
    /// layout's buffer (tile views: one block of the parent's buffer).
    pub(crate) fn from_parts(layout: L, storage: S) -> Self {
        TensorBase { layout, storage }
    }
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The layout as the engine's value.
    pub fn to_array_layout(&self) -> ArrayLayout {
        self.layout.to_array_layout()
    }

    /// All slots in memory order, padding included.
    #[inline]
    pub fn as_slice(&self) -> &[S::Elem] {
        self.storage.as_slice()
    }

    /// All slots as bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.storage.as_slice())
    }

    /// A view of the same slots.
    pub fn view(&self) -> TensorView<'_, L, S::Elem> {
        TensorBase {
            layout: self.layout.clone(),
            storage: self.storage.as_slice(),
        }
    }

    /// The element at `index`, or `None` when it is out of bounds.
    #[inline]
    pub fn get<const R: usize>(&self, index: [usize; R]) -> Option<&S::Elem>
    where
        L: HasRank<R>,
    {
        self.get_dyn(&index)
    }

    /// The element at `index` given as a slice (for ranks known only at
    /// run time), or `None` when it is out of bounds or has the wrong
    /// number of entries.
    #[inline]
    pub fn get_dyn(&self, index: &[usize]) -> Option<&S::Elem> {
        if !self.layout.is_in_bounds(index) {
            return None;
        }
        self.storage
            .as_slice()
            .get(self.layout.offset_in_bounds(index))
    }

    /// The layout's offset of `index`, or why there is none (the layout's
    /// [`AnyLayout::try_offset`]).
    ///
    /// # Errors
    /// Wrong number of entries, or an entry out of bounds (the engine's
    /// message, naming the dimension, the index and the bound).
    #[inline]
    pub fn try_offset(&self, index: &[usize]) -> Result<usize, Error> {
        self.layout.try_offset(index)
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn out_of_bounds(&self, index: &[usize]) -> ! {
        panic!(
            "{}",
            layout_core::layouts::traits::bounds_error(&self.layout.sizes(), index)
        )
    }

    /// The elements in logical (row-major index) order. An offset is
    /// computed once per run of the last dimension (see [`Iter`]), so
    /// this costs what the hand-written loop that visits the buffer in
    /// the same order costs; for layouts that combine dims with `*` each
    /// element is placed by the engine (slower).
    ///
    /// For a tiled layout logical order is not memory order (a row of
    /// `T(8,128)` tiles is 128 elements from each tile in turn), and a
    /// sum in logical order is a different float sum from the slice's:
    /// `iter().sum()` of `f32[1024,1024]{1,0:T(8,128)}` is 1.00× the
    /// hand-written logical-order loop and about 1.12× a slice sum. A
    /// reduction whose order does not matter is a slice loop's speed
    /// with [`TensorBase::for_each`], which visits memory order
    /// (`BENCHMARKS.md`).
    ///
    /// A `for` loop goes through `next`. On a row-major layout the walk
    /// is one run, and a loop the compiler would vectorise over the
    /// slice it vectorises over this too (an `i32` sum over
    /// `s32[1024,1024]`: 0.9–1.0× the slice loop on a static layout; on
    /// a run-time one the same vectorised loop, 1.0× with loops aligned
    /// and 1.3–2.0× where the link put it across a cache line,
    /// `BENCHMARKS.md`); on other layouts `next` is a scalar step per
    /// element, and the folds are the fast path.
    ///
    /// ```
    /// use tessera::{Tensor, layout};
    /// type A = layout!(f32[3,5]{1,0:T(2,2)});
    /// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    /// t.for_each_mut(|i, v| *v = (i[0] * 5 + i[1]) as f32);
    /// assert_eq!(t.iter().sum::<f32>(), 105.0);
    /// ```
    #[inline]
    pub fn iter(&self) -> Iter<'_, S::Elem, L> {
        Iter::new(self.storage.as_slice(), &self.layout)
    }

    /// Every slot of the buffer in memory order, padding included: the
    /// logical index it holds (`None` for padding) and its value. The
    /// index is counted by additions; a `fold` (`for_each`, `count`...)
    /// walks the layout's loop nest, at the speed of hand-written tile
    /// loops on a static layout ([`Slots`] says what a run-time layout
    /// and `next` cost).
    ///
    /// ```
    /// use tessera::{Tensor, layout};
    /// type A = layout!(f32[3,5]{1,0:T(2,2)});
    /// let t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    /// let padding = t.slots().filter(|(i, _)| i.is_none()).count();
    /// assert_eq!(padding, A::BUFFER_LEN - 15);
    /// ```
    #[inline]
    pub fn slots(&self) -> Slots<'_, S::Elem, L> {
        Slots::new(self.storage.as_slice(), &self.layout)
    }

    /// Calls `f(index, &element)` for every element once, with its
    /// logical index, in the order that is fastest: the buffer's memory
    /// order (padding skipped) for every layout whose tiles nest, which
    /// includes XLA's TPU tilings; for others (a tile level that cuts
    /// across the one above it, `T(3)(2,1)`) the order of the engine's
    /// loop nest over the buffer. The index is counted by additions.
    /// [`TensorBase::iter`] visits the elements in logical order instead.
    ///
    /// ```
    /// use tessera::{Tensor, layout};
    /// type A = layout!(f32[3,5]{1,0:T(2,2)});
    /// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    /// t.for_each_mut(|i, v| *v = (i[0] * 5 + i[1]) as f32);
    /// let mut seen = Vec::new();
    /// t.for_each(|i, v| seen.push((i.to_vec(), *v)));
    /// // Memory order: the first 2x2 tile, then the next one.
    /// assert_eq!(seen[..3], [(vec![0, 0], 0.0), (vec![0, 1], 1.0), (vec![1, 0], 5.0)]);
    /// assert_eq!(seen.len(), 15);
    /// ```
    #[inline]
    pub fn for_each(&self, f: impl FnMut(&[usize], &S::Elem)) {
        let data = self.storage.as_slice();
        runs::for_each_element(&self.layout, runs::Order::Memory, data, f);
    }
}

impl<S: StorageMut, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// All slots in memory order, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [S::Elem] {
        self.storage.as_mut_slice()
    }

    /// The layout and all slots, writable, borrowed together.
    #[inline]
    pub(crate) fn layout_and_slice_mut(&mut self) -> (&L, &mut [S::Elem]) {
        (&self.layout, self.storage.as_mut_slice())
    }

    /// All slots as writable bytes (for element types where every byte
    /// pattern is a value, so not `bool`).
    #[inline]
    pub fn as_bytes_mut(&mut self) -> &mut [u8]
    where
        S::Elem: bytemuck::Pod,
    {
        bytemuck::cast_slice_mut(self.storage.as_mut_slice())
    }

    /// A mutable view of the same slots.
    pub fn view_mut(&mut self) -> TensorViewMut<'_, L, S::Elem> {
        TensorBase {
            layout: self.layout.clone(),
            storage: self.storage.as_mut_slice(),
        }
    }

    /// The element at `index`, writable, or `None` when it is out of
    /// bounds.
    #[inline]
    pub fn get_mut<const R: usize>(&mut self, index: [usize; R]) -> Option<&mut S::Elem>
    where
        L: HasRank<R>,
    {
        self.get_dyn_mut(&index)
    }

    /// The element at `index` given as a slice, writable.
    #[inline]
    pub fn get_dyn_mut(&mut self, index: &[usize]) -> Option<&mut S::Elem> {
        if !self.layout.is_in_bounds(index) {
            return None;
        }
        let offset = self.layout.offset_in_bounds(index);
        self.storage.as_mut_slice().get_mut(offset)
    }

    /// The elements in logical (row-major index) order, writable (see
    /// [`TensorBase::iter`]).
    ///
    /// Consumed by a fold (`for_each`, `fold`), each run of the last
    /// dimension is a slice loop, which the compiler vectorises as it does
    /// the hand-written one. A `for` loop goes through `next`: on a
    /// row-major layout (logical order is the buffer's) the walk is one
    /// run, and `for v in t.iter_mut() { *v += 1.0 }` compiles to the
    /// slice loop (1.0× on `f32[1024,1024]`, static or run-time); on
    /// other layouts `next` is a scalar step per element:
    /// `f32[1024,1024]{1,0:T(8,128)}` takes 4.5–6× the hand-written
    /// (vectorised) loop, `t.iter_mut().for_each(|v| *v += 1.0)` 1.0×
    /// (`BENCHMARKS.md`). Where order does not matter,
    /// [`TensorBase::for_each_mut`] visits memory order.
    ///
    /// ```
    /// use tessera::{Tensor, layout};
    /// type A = layout!(f32[3,5]{1,0:T(2,2)});
    /// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    /// t.iter_mut().enumerate().for_each(|(n, v)| *v = n as f32);
    /// assert_eq!(t[[2, 4]], 14.0);
    /// ```
    #[inline]
    pub fn iter_mut(&mut self) -> IterMut<'_, S::Elem, L> {
        IterMut::new(self.storage.as_mut_slice(), &self.layout)
    }

    /// Every slot of the buffer in memory order, writable: the logical
    /// index it holds (`None` for padding) and the slot. One pass that
    /// writes elements and padding alike (an element from its index,
    /// padding a fill value), at the speed of [`TensorBase::slots`].
    ///
    /// ```
    /// use tessera::{Tensor, layout};
    /// type A = layout!(f32[3,5]{1,0:T(2,2)});
    /// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::zeroed();
    /// t.slots_mut().for_each(|(i, v)| *v = i.map_or(-1.0, |[y, x]| (y * 5 + x) as f32));
    /// assert_eq!(t[[2, 4]], 14.0);
    /// assert_eq!(t.as_slice()[9], -1.0); // the padding column of tile [0, 2]
    /// ```
    #[inline]
    pub fn slots_mut(&mut self) -> SlotsMut<'_, S::Elem, L> {
        SlotsMut::new(self.storage.as_mut_slice(), &self.layout)
    }

    /// Calls `f(index, &mut element)` for every element once, with its
    /// logical index, in the order of [`TensorBase::for_each`] (the
    /// buffer's memory order for XLA's tilings).
    #[inline]
    pub fn for_each_mut(&mut self, f: impl FnMut(&[usize], &mut S::Elem)) {
        let data = self.storage.as_mut_slice();
        runs::for_each_element_mut(&self.layout, runs::Order::Memory, data, f);
    }

    /// Sets every element (not the padding) to `value`: a slice fill for
    /// layouts without padding; otherwise one fill per run of each box of
    /// element slots
    /// ([`SlotBoxes::elements`](layout_core::walk::SlotBoxes::elements)),
    /// with constant trip counts and run lengths for a static layout, or,
    /// for layouts whose elements are not a few such boxes, one fill per
    /// stretch of elements between padding, in memory order.
    #[inline]
    pub fn fill(&mut self, value: S::Elem) {
        let all_slots_hold_elements = self.layout.element_count() == self.layout.buffer_len();
        let data = self.storage.as_mut_slice();
        if all_slots_hold_elements {
            data.fill(value);
            return;
        }
        let mut fill_run = |start: usize, len: usize| data[start..start + len].fill(value);
        if runs::for_each_slot_box_span(&self.layout, false, &mut fill_run) {
            return;
        }
        let spans = runs::for_each_element_span(&self.layout, fill_run);
        if !spans {
            runs::for_each_element_mut(&self.layout, runs::Order::Memory, data, |_, v| *v = value);
        }
    }

    /// Sets every padding slot to the layout's padding value (zero when
    /// the layout names none), in memory order: the gaps between the
    /// stretches of elements that [`TensorBase::fill`] writes.
    ///
    /// It fills the padding as boxes of the layout's physical dims
    /// ([`SlotBoxes`](layout_core::walk::SlotBoxes)): one fill per stretch of
    /// padding, no visit of the elements, with trip counts and stretch
    /// lengths that are constants for a static layout. Layouts whose
    /// padding is not such boxes (a `*` merging two dimensions, tiles
    /// that do not nest) take a walk over the element runs instead.
    ///
    /// # Errors
    /// The padding value does not exist for the element type (`lowest`
    /// of a complex type).
    pub fn fill_padding(&mut self) -> Result<(), Error> {
        let layout = &self.layout;
        let Some(pad) = padding_value::<S::Elem>(&layout.to_array_layout()) else {
            return Err(padding_value_error(&layout.to_array_layout()));
        };
        if layout.element_count() == layout.buffer_len() {
            return Ok(());
        }
        let data = self.storage.as_mut_slice();
        if runs::for_each_slot_box_span(layout, true, |start, len| {
            data[start..start + len].fill(pad)
        }) {
            return Ok(());
        }
        // Padding that is not boxes: the gaps between the element
        // stretches, which come in memory order.
        let mut next = 0;
        let mut in_order = true;
        let spans = runs::for_each_element_span(layout, |start, len| {
            if start >= next {
                data[next..start].fill(pad);
            } else {
                in_order = false;
            }
            next = start + len;
        });
        if spans && in_order {
            data[next..].fill(pad);
            return Ok(());
        }
        let a = layout.to_array_layout();
        for (slot, value) in a.slots().zip(data.iter_mut()) {
            if slot == Slot::Padding {
                *value = pad;
            }
        }
        Ok(())
    }
}

impl<S: Storage, L: HasRank<R>, const R: usize> core::ops::Index<[usize; R]> for TensorBase<S, L>
where
    S::Elem: Element,
{
    type Output = S::Elem;

    /// # Panics
    /// If `index` is out of bounds, with a message naming the dimension,
    /// the index and the bound (like slice indexing).
    #[inline]
    #[track_caller]
    fn index(&self, index: [usize; R]) -> &S::Elem {
        if !self.layout.is_in_bounds(&index) {
            self.out_of_bounds(&index);
        }
        &self.storage.as_slice()[self.layout.offset_in_bounds(&index)]
    }
}

impl<S: StorageMut, L: HasRank<R>, const R: usize> core::ops::IndexMut<[usize; R]>
    for TensorBase<S, L>
where
    S::Elem: Element,
{
    /// # Panics
    /// If `index` is out of bounds, as [`Index`](core::ops::Index).
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: [usize; R]) -> &mut S::Elem {
        if !self.layout.is_in_bounds(&index) {
            self.out_of_bounds(&index);
        }
        let offset = self.layout.offset_in_bounds(&index);
        &mut self.storage.as_mut_slice()[offset]
    }
}

impl<S: Storage + Clone, L: AnyLayout> Clone for TensorBase<S, L> {
    fn clone(&self) -> Self {
        TensorBase {
            layout: self.layout.clone(),
            storage: self.storage.clone(),
        }
    }
}

impl<S: Storage + Copy, L: AnyLayout + Copy> Copy for TensorBase<S, L> {}

impl<S: Storage, L: AnyLayout> fmt::Debug for TensorBase<S, L>
where
    S::Elem: Element + fmt::Debug,
{
    /// The layout and the elements in logical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("layout", &format_args!("{}", self.to_array_layout()))
            .field("elements", &DebugElements(self))
            .finish()
    }
}

struct DebugElements<'a, S, L>(&'a TensorBase<S, L>);

impl<S: Storage, L: AnyLayout> fmt::Debug for DebugElements<'_, S, L>
where
    S::Elem: Element + fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl<S: Storage, S2: Storage<Elem = S::Elem>, L: AnyLayout, L2: AnyLayout>
    PartialEq<TensorBase<S2, L2>> for TensorBase<S, L>
where
    S::Elem: Element + PartialEq,
{
    /// Same logical shape and the same elements at every index (layouts
    /// and padding may differ).
    fn eq(&self, other: &TensorBase<S2, L2>) -> bool {
        let (a, b) = (self.to_array_layout(), other.to_array_layout());
        a.element_type() == b.element_type()
            && a.sizes().as_slice() == b.sizes().as_slice()
            && self.iter().eq(other.iter())
    }
}
