//! [`PackedBase`], the packed tensor, and its aliases: construction,
//! element access and iteration.

use core::fmt;
use core::marker::PhantomData;

use layout_core::layouts::typelevel::F4e2m1fn;
use layout_core::{
    AnyLayout, ArrayLayout, Error, ErrorKind, HasRank, KnownLayout, Locus, PrimitiveType,
};

#[cfg(feature = "alloc")]
use crate::element::Element;
use crate::runs::{self, Position};
use crate::storage::{Storage, StorageMut};
#[cfg(feature = "alloc")]
use crate::tensor::TensorBase;

use super::bits::{read_field, unpack_contiguous, write_field};
use super::iter::PackedIter;
use super::stores::{StoresPacked, SubByteLayout};
use super::sub_byte::SubByte;

/// Sub-byte elements of type `E` packed into bytes, placed by layout `L`
/// (see the [module docs](crate::packed) for where the bits go).
///
/// Every packed tensor type is this struct with some byte storage `S`;
/// all methods are written once here. The storage is always exactly the
/// layout's `physical_byte_size` bytes. Padding slots are part of it and
/// are reached only through [`PackedBase::as_bytes`] and
/// [`PackedBase::slot_bits`].
///
/// An int4 weight matrix in a `static`, as a quantizer wrote its bytes
/// (two elements per byte, the first in the high nibble), read back by
/// logical index:
///
/// ```
/// use tessera::Packed;
///
/// type W = tessera::layout!(s4[4,8]{1,0:E(4)});
///
/// static WEIGHTS: Packed<W, { W::PHYSICAL_BYTE_SIZE }> = Packed::from_bytes([
///     0x01, 0x23, 0x45, 0x67, // row 0:  0  1  2  3  4  5  6  7
///     0xFE, 0xDC, 0xBA, 0x98, // row 1: -1 -2 -3 -4 -5 -6 -7 -8
///     0x70, 0x70, 0x70, 0x70, // row 2:  7  0  7  0  7  0  7  0
///     0x00, 0x00, 0x00, 0x0F, // row 3:  0  0  0  0  0  0  0 -1
/// ]);
///
/// assert_eq!(W::PHYSICAL_BYTE_SIZE, 16);
/// assert_eq!(WEIGHTS.get([0, 5]), Some(5));
/// assert_eq!(WEIGHTS.get([1, 2]), Some(-3)); // an i8, sign-extended
/// assert_eq!(WEIGHTS.get([2, 0]), Some(7));
/// assert_eq!(WEIGHTS.get([3, 7]), Some(-1));
/// assert_eq!(WEIGHTS.get([4, 0]), None); // out of bounds
/// let row_sum: i32 = WEIGHTS.iter().skip(8).take(8).map(i32::from).sum();
/// assert_eq!(row_sum, -36);
/// ```
pub struct PackedBase<S, L, E> {
    pub(super) layout: L,
    pub(super) storage: S,
    elem: PhantomData<fn() -> E>,
}

/// A packed tensor with inline storage of exactly `N` bytes, for a static
/// layout (`N` is the layout's `PHYSICAL_BYTE_SIZE`, checked at compile
/// time). Its constructors are `const fn`, so it can sit in a `static`
/// (see [`PackedBase`]).
///
/// ```
/// use tessera::Packed;
/// type M = tessera::layout!(pred[2,8]{1,0:E(1)}); // a bit each
/// static MASK: Packed<M, { M::PHYSICAL_BYTE_SIZE }> = Packed::from_bytes([0b1000_0001, 0xFF]);
/// assert_eq!(M::PHYSICAL_BYTE_SIZE, 2);
/// assert_eq!((MASK.get([0, 0]), MASK.get([0, 1])), (Some(true), Some(false)));
/// assert_eq!(MASK.iter().filter(|&b| b).count(), 10);
/// ```
///
/// A wrong byte count does not compile:
///
/// ```compile_fail
/// use tessera::Packed;
/// type W = tessera::layout!(s4[4,8]{1,0:E(4)});
/// static BAD: Packed<W, 32> = Packed::zeroed(); // 16 bytes, not 32
/// ```
///
/// nor does a layout of another element type:
///
/// ```compile_fail
/// use tessera::Packed;
/// type F = tessera::layout!(f32[4]);
/// static BAD: Packed<F, 16> = Packed::zeroed();
/// ```
pub type Packed<L, const N: usize, E = <L as SubByteLayout>::Elem> = PackedBase<[u8; N], L, E>;

/// A packed tensor borrowing its bytes.
///
/// ```
/// use tessera::{PackedView, layout};
/// type W = layout!(s4[2,3]{1,0:E(4)}); // two elements a byte, high nibble first
/// let bytes = [0x12, 0x3F, 0xE0];
/// let w: PackedView<'_, W> = PackedView::new(W::NEW, &bytes[..])?;
/// assert_eq!(w.get([1, 0]), Some(-1)); // the low nibble of byte 1
/// assert_eq!(w.iter().collect::<Vec<i8>>(), [1, 2, 3, -1, -2, 0]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type PackedView<'a, L, E = <L as SubByteLayout>::Elem> = PackedBase<&'a [u8], L, E>;

/// A packed tensor borrowing its bytes mutably.
///
/// ```
/// use tessera::{PackedViewMut, layout};
/// type W = layout!(u4[2,2]{1,0:E(4)});
/// let mut bytes = [0; 2];
/// let mut w: PackedViewMut<'_, W> = PackedViewMut::new(W::NEW, &mut bytes[..])?;
/// w.set([0, 1], 0xA)?;
/// w.set([1, 0], 3)?;
/// assert!(w.set([1, 1], 16).is_err()); // `u4` is 0..=15
/// assert_eq!(bytes, [0x0A, 0x30]);
/// # Ok::<(), tessera::Error>(())
/// ```
pub type PackedViewMut<'a, L, E = <L as SubByteLayout>::Elem> = PackedBase<&'a mut [u8], L, E>;

/// A packed tensor owning its bytes in a `Vec`.
///
/// ```
/// use tessera::{PackedBuf, PreparedLayout};
/// use tessera::packed::S4;
/// let l = PreparedLayout::parse("s4[2,3]{1,0:E(4)}")?;
/// let t = PackedBuf::<_, S4>::from_fn(l, |i| i[1] as i8 - i[0] as i8)?;
/// assert_eq!(t.get([1, 0]), Some(-1));
/// assert_eq!(t.as_bytes(), &[0x01, 0x2F, 0x01]); // 0 1 | 2 -1 | 0 1
/// # Ok::<(), tessera::Error>(())
/// ```
#[cfg(feature = "alloc")]
pub type PackedBuf<L, E = <L as SubByteLayout>::Elem> = PackedBase<alloc::vec::Vec<u8>, L, E>;

/// Checks that `layout` holds `element_type` elements in a width packed
/// storage can hold (1, 2, 4 or 8 bits per slot).
const fn check_packed(element_type: PrimitiveType, layout: &ArrayLayout) -> Result<(), Error> {
    if layout.element_type() as u32 != element_type as u32 {
        return Err(Error::at(
            ErrorKind::ElementTypeMismatch {
                expected: layout.element_type(),
                found: element_type,
            },
            Locus::ElementType,
        ));
    }
    let bits = layout.element_size_in_bits();
    if !matches!(bits, 1 | 2 | 4 | 8) {
        return Err(Error::at(
            ErrorKind::ElementWidthMismatch {
                layout_bits: bits,
                storage_bits: 8,
            },
            Locus::Attribute("E"),
        ));
    }
    Ok(())
}

/// `layout`'s byte size, after checking the element type and that `len`
/// bytes are enough.
fn checked_len(
    element_type: PrimitiveType,
    layout: &ArrayLayout,
    len: usize,
) -> Result<usize, Error> {
    check_packed(element_type, layout)?;
    let needed = layout.physical_byte_size();
    if len < needed {
        return Err(Error::new(ErrorKind::ByteBufferTooShort {
            needed,
            found: len,
        }));
    }
    Ok(needed)
}

impl<L: KnownLayout + StoresPacked<E>, E: SubByte, const N: usize> PackedBase<[u8; N], L, E> {
    /// Compile-time checks of a static packed type.
    const CHECK: () = {
        if let Err(e) = check_packed(E::TYPE, &L::LAYOUT) {
            e.panic();
        }
        assert!(
            N == L::LAYOUT.physical_byte_size(),
            "the array length N must be the layout's PHYSICAL_BYTE_SIZE"
        );
    };

    /// Every bit zero (every element is zero, `false` or `+0.0`).
    /// `const`, so the tensor can be a `static`.
    ///
    /// ```
    /// use tessera::Packed;
    /// type M = tessera::layout!(pred[3,5]{1,0:T(2,4)E(1)});
    /// static MASK: Packed<M, { M::PHYSICAL_BYTE_SIZE }> = Packed::zeroed();
    /// assert_eq!(MASK.get([2, 4]), Some(false));
    /// assert_eq!(MASK.as_bytes().len(), 4); // 2×2 tiles of 8 one-bit slots
    /// ```
    pub const fn zeroed() -> Self {
        Self::from_bytes([0; N])
    }

    /// A tensor over `bytes`, laid out as the [module docs](crate::packed) say (as
    /// produced by XLA, or by [`PackedBase::as_bytes`]).
    pub const fn from_bytes(bytes: [u8; N]) -> Self {
        let () = Self::CHECK;
        PackedBase {
            layout: L::VALUE,
            storage: bytes,
            elem: PhantomData,
        }
    }

    /// The bytes, by value.
    pub const fn into_bytes(self) -> [u8; N] {
        let PackedBase {
            layout: _,
            storage,
            elem: _,
        } = self;
        storage
    }
}

impl<S, L, E> PackedBase<S, L, E> {
    /// A packed tensor over `storage`, which the caller has checked is
    /// exactly `layout`'s bytes, of a layout of `E` (tile views: one
    /// tile's bytes of the parent, in the tile's inside layout).
    pub(super) fn from_parts(layout: L, storage: S) -> Self {
        PackedBase {
            layout,
            storage,
            elem: PhantomData,
        }
    }
}

impl<'a, L: StoresPacked<E>, E: SubByte> PackedBase<&'a [u8], L, E> {
    /// A view of `bytes` in `layout`.
    ///
    /// # Errors
    /// The layout's element type is not `E`'s, its `E(n)` is wider than a
    /// byte, or `bytes` is shorter than the layout's byte size. Extra
    /// bytes are ignored.
    pub fn new(layout: L, bytes: &'a [u8]) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        Ok(PackedBase {
            layout,
            storage: &bytes[..n],
            elem: PhantomData,
        })
    }
}

impl<'a, L: StoresPacked<E>, E: SubByte> PackedBase<&'a mut [u8], L, E> {
    /// A mutable view of `bytes` in `layout`.
    ///
    /// # Errors
    /// As [`PackedView::new`].
    pub fn new(layout: L, bytes: &'a mut [u8]) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        Ok(PackedBase {
            layout,
            storage: &mut bytes[..n],
            elem: PhantomData,
        })
    }
}

#[cfg(feature = "alloc")]
impl<L: StoresPacked<E>, E: SubByte> PackedBase<alloc::vec::Vec<u8>, L, E> {
    /// A tensor with every bit zero.
    ///
    /// # Errors
    /// The layout's element type is not `E`'s, its `E(n)` is wider than a
    /// byte, or the buffer cannot be allocated
    /// ([`ErrorKind::AllocationFailed`], naming its bytes).
    pub fn zeroed(layout: L) -> Result<Self, Error> {
        check_packed(E::TYPE, &layout.to_array_layout())?;
        let n = layout.to_array_layout().physical_byte_size();
        Ok(PackedBase {
            layout,
            storage: crate::storage::try_filled_vec(n, 0)?,
            elem: PhantomData,
        })
    }

    /// A tensor over `bytes` (see [`PackedBase::from_bytes`]).
    ///
    /// # Errors
    /// As [`PackedView::new`]; extra bytes are dropped.
    pub fn from_vec(layout: L, mut bytes: alloc::vec::Vec<u8>) -> Result<Self, Error> {
        let n = checked_len(E::TYPE, &layout.to_array_layout(), bytes.len())?;
        bytes.truncate(n);
        Ok(PackedBase {
            layout,
            storage: bytes,
            elem: PhantomData,
        })
    }

    /// A tensor holding `values` in logical (row-major index) order;
    /// padding bits zero.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout};
    /// use tessera::packed::U2;
    /// let l = PreparedLayout::parse("u2[2,3]{0,1:E(2)}").unwrap();
    /// let t = PackedBuf::<_, U2>::from_values(l, [0, 1, 2, 3, 0, 1]).unwrap();
    /// assert_eq!(t.get([1, 0]), Some(3));
    /// // Column-major: [0,0] [1,0] [0,1] [1,1] in byte 0, high bits first.
    /// assert_eq!(t.as_bytes(), &[0b00_11_01_00, 0b10_01_0000]);
    /// ```
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`], and as [`PackedBase::write_values`] (a
    /// value out of range, too few or too many values).
    pub fn from_values(
        layout: L,
        values: impl IntoIterator<Item = E::Value>,
    ) -> Result<Self, Error> {
        let mut t = Self::zeroed(layout)?;
        t.write_values(values)?;
        Ok(t)
    }

    /// A tensor whose element at each logical index is `f(index)`;
    /// padding bits zero.
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`], or a value out of range.
    pub fn from_fn(layout: L, mut f: impl FnMut(&[usize]) -> E::Value) -> Result<Self, Error> {
        let mut t = Self::zeroed(layout)?;
        let n = t.bits_per_slot();
        let bytes = &mut t.storage;
        let mut result = Ok(());
        runs::for_each_offset(&t.layout, |index, offset| {
            if result.is_ok() {
                match E::to_bits(f(index)) {
                    Ok(bits) => write_field(bytes, offset, n, bits),
                    Err(e) => result = Err(e),
                }
            }
        });
        result.map(|()| t)
    }

    /// The same elements packed in `layout` (which has the same dims and
    /// `E`'s element type), from an unpacked tensor of `i8`, `u8` or
    /// `bool` (the value type of `E`; layout `s8[..]`, `u8[..]` or
    /// `pred[..]`). Padding bits zero.
    ///
    /// ```
    /// use tessera::{PackedBuf, PreparedLayout, TensorBuf};
    /// use tessera::packed::S4;
    /// let bytes = PreparedLayout::parse("s8[2,4]{1,0}").unwrap();
    /// let unpacked = TensorBuf::from_fn(bytes, |i| i[1] as i8 - 2).unwrap();
    /// let packed_layout = PreparedLayout::parse("s4[2,4]{1,0:E(4)}").unwrap();
    /// let packed = PackedBuf::<_, S4>::from_tensor(packed_layout, &unpacked).unwrap();
    /// assert_eq!(packed.as_bytes(), &[0xEF, 0x01, 0xEF, 0x01]);
    /// ```
    ///
    /// # Errors
    /// As [`PackedBuf::zeroed`] and [`PackedBase::pack_from`].
    pub fn from_tensor<S2, L2>(layout: L, src: &TensorBase<S2, L2>) -> Result<Self, Error>
    where
        S2: Storage<Elem = E::Value>,
        L2: AnyLayout,
        E::Value: Element,
    {
        let mut t = Self::zeroed(layout)?;
        t.pack_from(src)?;
        Ok(t)
    }

    /// The bytes, by value.
    pub fn into_vec(self) -> alloc::vec::Vec<u8> {
        self.storage
    }
}

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// The layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The layout as the engine's value.
    pub fn to_array_layout(&self) -> ArrayLayout {
        self.layout.to_array_layout()
    }

    /// Bits per slot: the layout's `E(n)`, or 8 without one.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bits_per_slot(&self) -> u32 {
        self.layout.element_size_in_bits() as u32
    }

    /// All bytes, padding included.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.as_slice()
    }

    /// A view of the same bytes.
    pub fn view(&self) -> PackedView<'_, L, E> {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.as_slice(),
            elem: PhantomData,
        }
    }

    /// The element at `index`, or `None` when it is out of bounds. For a
    /// static layout an index of the wrong length is a compile error.
    ///
    /// Costs what a hand-written per-element nibble read costs (a shift
    /// and a mask after the offset; no copy of the layout, no panic path).
    /// A loop over a whole row is faster through [`PackedBase::read_row`],
    /// which unpacks a byte at a time.
    #[inline]
    pub fn get<const R: usize>(&self, index: [usize; R]) -> Option<E::Value>
    where
        L: HasRank<R>,
    {
        self.get_dyn(&index)
    }

    /// The element at `index` given as a slice (for ranks known only at
    /// run time), or `None` when it is out of bounds or has the wrong
    /// number of entries.
    #[inline]
    pub fn get_dyn(&self, index: &[usize]) -> Option<E::Value> {
        if !self.layout.is_in_bounds(index) {
            return None;
        }
        let offset = self.layout.offset_in_bounds(index);
        let field = read_field(self.storage.as_slice(), offset, self.bits_per_slot());
        Some(E::from_bits(field))
    }

    /// The raw `n`-bit field of the slot at `offset` (element or padding;
    /// `n` = [`PackedBase::bits_per_slot`]), in the low bits, or `None`
    /// past the buffer.
    pub fn slot_bits(&self, offset: usize) -> Option<u8> {
        if offset >= self.layout.buffer_len() {
            return None;
        }
        Some(read_field(
            self.storage.as_slice(),
            offset,
            self.bits_per_slot(),
        ))
    }

    /// The offset (slot number) of `index`, or why there is none.
    ///
    /// # Errors
    /// Wrong number of entries, or an entry out of bounds (the engine's
    /// message, naming the dimension, the index and the bound).
    #[inline]
    pub fn try_offset(&self, index: &[usize]) -> Result<usize, Error> {
        self.layout.try_offset(index)
    }

    /// Unpacks one row, the elements whose index starts with `row` (every
    /// entry but the last), into `out`, in order of the last index. A
    /// stretch of the row that is contiguous in the buffer is unpacked a
    /// byte at a time (two `s4` values per byte, with no offset arithmetic
    /// per element), so a kernel that unpacks a row and then works on
    /// plain values runs at the speed of hand-written nibble code.
    ///
    /// ```
    /// use tessera::{Packed, layout};
    /// type W = layout!(s4[2,8]{1,0:E(4)});
    /// static Q: Packed<W, { W::PHYSICAL_BYTE_SIZE }> =
    ///     Packed::from_bytes([0x01, 0x23, 0x45, 0x67, 0xFE, 0xDC, 0xBA, 0x98]);
    /// let mut row = [0i8; 8];
    /// Q.read_row(&[1], &mut row)?;
    /// assert_eq!(row, [-1, -2, -3, -4, -5, -6, -7, -8]);
    /// // `out` must be exactly a row long.
    /// let e = Q.read_row(&[1], &mut [0i8; 9]).unwrap_err();
    /// assert_eq!(e.to_string(), "the row buffer has 9 slots but a row has 8 elements");
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// `row` does not have one entry fewer than the rank, an entry is out
    /// of bounds, or `out` is not as long as the last dimension.
    #[inline]
    pub fn read_row(&self, row: &[usize], out: &mut [E::Value]) -> Result<(), Error> {
        let layout = &self.layout;
        let rank = layout.rank();
        let width = match rank {
            0 => 1,
            _ => layout.size(rank - 1),
        };
        if row.len() != rank.saturating_sub(1) {
            return Err(Error::new(ErrorKind::RowIndexRankMismatch {
                rank,
                found: row.len(),
            }));
        }
        // The row's number, checking each entry as the index would be
        // (the error names the index with the row's first element).
        let mut number = 0usize;
        for (d, &entry) in row.iter().enumerate() {
            if entry >= layout.size(d) {
                let mut index = [0usize; layout_core::MAX_RANK];
                index[..row.len()].copy_from_slice(row);
                return Err(layout_core::layouts::traits::bounds_error(
                    &layout.sizes(),
                    &index[..rank],
                ));
            }
            number = number * layout.size(d) + entry;
        }
        if out.len() != width {
            return Err(Error::new(ErrorKind::RowLengthMismatch {
                row_len: width,
                found: out.len(),
            }));
        }
        let (bytes, bits) = (self.storage.as_slice(), self.bits_per_slot());
        let mut cursor = runs::RunCursor::at_row(layout, number);
        let mut index = [0usize; layout_core::MAX_RANK];
        let mut done = 0;
        while done < width {
            let run = cursor.next_run(layout, &mut index);
            let out = &mut out[done..done + run.len];
            if run.stride == 1 {
                unpack_contiguous::<E>(bytes, run.offset, bits, out);
            } else {
                let mut o = run.offset;
                for v in out.iter_mut() {
                    *v = E::from_bits(read_field(bytes, o, bits));
                    o = o.wrapping_add(run.stride);
                }
            }
            done += run.len;
        }
        Ok(())
    }

    /// The elements in logical (row-major index) order, an offset computed
    /// once per run of the last dimension (see [`PackedIter`]). Each
    /// element is read on its own (about 4× the time of a hand-written
    /// loop that unpacks whole bytes, `BENCHMARKS.md`); kernels that work
    /// row by row unpack with [`PackedBase::read_row`] instead.
    #[inline]
    pub fn iter(&self) -> PackedIter<'_, E, L> {
        PackedIter {
            bytes: self.storage.as_slice(),
            layout: &self.layout,
            at: Position::new(&self.layout),
            elem: PhantomData,
        }
    }

    /// Calls `f(index, value)` for every element in logical (row-major
    /// index) order, the index counted incrementally.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(&[usize], E::Value)) {
        let (bytes, bits) = (self.storage.as_slice(), self.bits_per_slot());
        runs::for_each_offset(&self.layout, |index, offset| {
            f(index, E::from_bits(read_field(bytes, offset, bits)));
        });
    }
}

impl<S: StorageMut<Elem = u8>, L: AnyLayout, E: SubByte> PackedBase<S, L, E> {
    /// All bytes, padding included, writable.
    #[inline]
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.storage.as_mut_slice()
    }

    /// A mutable view of the same bytes.
    pub fn view_mut(&mut self) -> PackedViewMut<'_, L, E> {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.as_mut_slice(),
            elem: PhantomData,
        }
    }

    /// Writes `value` at `index`; the other bits of its byte are left as
    /// they are.
    ///
    /// ```
    /// use tessera::Packed;
    /// type W = tessera::layout!(s4[2,2]{1,0:E(4)});
    /// let mut w = Packed::<W, { W::PHYSICAL_BYTE_SIZE }>::zeroed();
    /// w.set([0, 1], -2).unwrap();
    /// assert_eq!(w.as_bytes(), &[0x0E, 0x00]);
    /// let err = w.set([0, 0], 9).unwrap_err();
    /// assert_eq!(err.to_string(), "value 9 does not fit element type `s4`");
    /// ```
    ///
    /// # Errors
    /// `index` is out of bounds or has the wrong number of entries, or
    /// `value` does not fit the element type (nothing is written then).
    #[inline]
    pub fn set<const R: usize>(&mut self, index: [usize; R], value: E::Value) -> Result<(), Error>
    where
        L: HasRank<R>,
    {
        self.set_dyn(&index, value)
    }

    /// [`PackedBase::set`] with the index given as a slice.
    ///
    /// # Errors
    /// As [`PackedBase::set`].
    #[inline]
    pub fn set_dyn(&mut self, index: &[usize], value: E::Value) -> Result<(), Error> {
        let offset = self.try_offset(index)?;
        let bits = E::to_bits(value)?;
        let n = self.bits_per_slot();
        write_field(self.storage.as_mut_slice(), offset, n, bits);
        Ok(())
    }

    /// Writes `values` to the elements in logical (row-major index) order.
    /// Padding bits are left as they are.
    ///
    /// # Errors
    /// A value does not fit the element type
    /// ([`ErrorKind::ValueOutOfRange`]), `values` has fewer items than the
    /// layout has elements ([`ErrorKind::TooFewValues`]), or more
    /// ([`ErrorKind::TooManyValues`]). The elements before the failing
    /// one are written.
    pub fn write_values(
        &mut self,
        values: impl IntoIterator<Item = E::Value>,
    ) -> Result<(), Error> {
        let n = self.bits_per_slot();
        let needed = self.layout.element_count();
        let out = self.storage.as_mut_slice();
        let mut values = values.into_iter();
        let mut written = 0;
        let mut result = Ok(());
        runs::for_each_offset(&self.layout, |_, offset| {
            if result.is_err() {
                return;
            }
            let Some(value) = values.next() else {
                result = Err(Error::new(ErrorKind::TooFewValues {
                    needed,
                    found: written,
                }));
                return;
            };
            match E::to_bits(value) {
                Ok(bits) => {
                    write_field(out, offset, n, bits);
                    written += 1;
                }
                Err(e) => result = Err(e),
            }
        });
        result?;
        if values.next().is_some() {
            return Err(Error::new(ErrorKind::TooManyValues { needed }));
        }
        Ok(())
    }
}

impl<S: Storage<Elem = u8>, L: AnyLayout> PackedBase<S, L, F4e2m1fn> {
    /// The `f4e2m1fn` element at `index` as `f32`, or `None` when it is
    /// out of bounds.
    ///
    /// ```
    /// use tessera::Packed;
    /// type A = tessera::layout!(f4e2m1fn[4]{0:E(4)});
    /// let a = Packed::<A, { A::PHYSICAL_BYTE_SIZE }>::from_bytes([0x7F, 0x1A]);
    /// assert_eq!(a.get_f32([0]), Some(6.0));
    /// assert_eq!(a.get_f32([1]), Some(-6.0));
    /// assert_eq!(a.get_f32([3]), Some(-1.0));
    /// ```
    #[inline]
    pub fn get_f32<const R: usize>(&self, index: [usize; R]) -> Option<f32>
    where
        L: HasRank<R>,
    {
        self.get(index).map(F4e2m1fn::to_f32)
    }
}

impl<S: Storage<Elem = u8> + Clone, L: AnyLayout, E> Clone for PackedBase<S, L, E> {
    fn clone(&self) -> Self {
        PackedBase {
            layout: self.layout.clone(),
            storage: self.storage.clone(),
            elem: PhantomData,
        }
    }
}

impl<S: Storage<Elem = u8> + Copy, L: AnyLayout + Copy, E> Copy for PackedBase<S, L, E> {}

impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> fmt::Debug for PackedBase<S, L, E> {
    /// The layout and the elements in logical order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct DebugElements<'a, S, L, E>(&'a PackedBase<S, L, E>);
        impl<S: Storage<Elem = u8>, L: AnyLayout, E: SubByte> fmt::Debug for DebugElements<'_, S, L, E> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.iter()).finish()
            }
        }
        f.debug_struct("Packed")
            .field("layout", &format_args!("{}", self.to_array_layout()))
            .field("elements", &DebugElements(self))
            .finish()
    }
}

impl<S, S2, L, L2, E> PartialEq<PackedBase<S2, L2, E>> for PackedBase<S, L, E>
where
    S: Storage<Elem = u8>,
    S2: Storage<Elem = u8>,
    L: AnyLayout,
    L2: AnyLayout,
    E: SubByte,
{
    /// Same dims and the same elements at every index (layouts, `E(n)`
    /// and padding may differ).
    fn eq(&self, other: &PackedBase<S2, L2, E>) -> bool {
        let (a, b) = (self.to_array_layout(), other.to_array_layout());
        a.sizes().as_slice() == b.sizes().as_slice() && self.iter().eq(other.iter())
    }
}
