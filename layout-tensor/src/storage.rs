//! [`Storage`]: what holds a tensor's slots: a borrowed slice, an inline
//! array, or (with `alloc`) a `Vec`.

/// Contiguous storage of a tensor's slots.
pub trait Storage {
    /// The slot type.
    type Elem;
    /// The slots.
    fn as_slice(&self) -> &[Self::Elem];
}

/// Storage whose slots can be written.
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
