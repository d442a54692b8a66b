//! [`Storage`]: what holds a tensor's slots: a borrowed slice, an inline
//! array, or (with `alloc`) a `Vec`.

/// Contiguous storage of a tensor's slots.
///
/// ```
/// use tessera::{AnyLayout, Storage, Tensor, TensorBase, TensorBuf, layout};
/// /// The largest element of an `f32` tensor, whatever holds its slots.
/// fn max<S: Storage<Elem = f32>, L: AnyLayout>(t: &TensorBase<S, L>) -> f32 {
///     t.iter().copied().fold(f32::NEG_INFINITY, f32::max)
/// }
/// type A = layout!(f32[2,3]{1,0});
/// let inline = Tensor::<A, f32, { A::BUFFER_LEN }>::from_slots([1.0, 5.0, 2.0, 0.0, 3.0, 4.0]);
/// let owned = TensorBuf::from_vec(A::NEW, vec![1.0, 2.0, 9.0, 0.0, 3.0, 4.0])?;
/// assert_eq!((max(&inline), max(&inline.view()), max(&owned)), (5.0, 5.0, 9.0));
/// # Ok::<(), tessera::Error>(())
/// ```
pub trait Storage {
    /// The slot type.
    type Elem;
    /// The slots.
    fn as_slice(&self) -> &[Self::Elem];
}

/// Storage whose slots can be written.
///
/// ```
/// use tessera::{AnyLayout, StorageMut, Tensor, TensorBase, TensorViewMut, layout};
/// /// Scales every element (not the padding) of a writable `f32` tensor.
/// fn scale<S: StorageMut<Elem = f32>, L: AnyLayout>(t: &mut TensorBase<S, L>, k: f32) {
///     t.for_each_mut(|_, v| *v *= k);
/// }
/// type A = layout!(f32[2,3]{1,0});
/// let mut t = Tensor::<A, f32, { A::BUFFER_LEN }>::filled(2.0);
/// scale(&mut t, 3.0);
/// let mut slots = [1.0; 6];
/// scale(&mut TensorViewMut::new(A::NEW, &mut slots[..])?, 0.5);
/// assert_eq!((t[[1, 2]], slots[5]), (6.0, 0.5));
/// # Ok::<(), tessera::Error>(())
/// ```
pub trait StorageMut: Storage {
    /// The slots, writable.
    fn as_mut_slice(&mut self) -> &mut [Self::Elem];
}

impl<T> Storage for &[T] {
    type Elem = T;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T> Storage for &mut [T] {
    type Elem = T;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T> StorageMut for &mut [T] {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> Storage for [T; N] {
    type Elem = T;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T, const N: usize> StorageMut for [T; N] {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> Storage for alloc::vec::Vec<T> {
    type Elem = T;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> StorageMut for alloc::vec::Vec<T> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

/// A `Vec` of `len` copies of `value`, or an error naming the bytes when
/// the allocation cannot be made (instead of aborting the process, as
/// `vec![value; len]` does).
///
/// # Errors
/// [`ErrorKind::AllocationFailed`](layout_core::ErrorKind::AllocationFailed).
#[cfg(feature = "alloc")]
pub(crate) fn try_filled_vec<T: Clone>(
    len: usize,
    value: T,
) -> Result<alloc::vec::Vec<T>, layout_core::Error> {
    let mut v = alloc::vec::Vec::new();
    if v.try_reserve_exact(len).is_err() {
        let bytes = len.saturating_mul(core::mem::size_of::<T>());
        return Err(layout_core::Error::new(
            layout_core::ErrorKind::AllocationFailed { bytes },
        ));
    }
    v.resize(len, value);
    Ok(v)
}
