//! `ndarray` views of strided tensors and back (feature `ndarray`),
//! without copying: a layout without tiles or padding puts element
//! `index` at `index · strides`, which is what an `ndarray` view is, with
//! the strides from the layout ([`ArrayLayout::strides`]).
//!
//! Tiled and padded layouts have no such strides; converting one is an
//! error that says why and points to
//! [`relayout`](TensorBase::relayout).

use layout_core::{AnyLayout, ArrayLayout, DimVec, Error, ErrorKind};
use ndarray::{ArrayView, ArrayViewD, ArrayViewMut, ArrayViewMutD, Dimension, IxDyn, ShapeBuilder};

use crate::element::Element;
use crate::layout::Stores;
use crate::storage::{Storage, StorageMut};
use crate::tensor::{TensorBase, TensorView, TensorViewMut};

/// The strides of `layout` for a strided view, or why it has none.
fn strides_for_view(layout: &ArrayLayout) -> Result<DimVec, Error> {
    let not_strided = |reason| Error::new(ErrorKind::NotStrided { reason });
    if !layout.layout().tiles().is_empty() {
        return Err(not_strided("its tiles reorder the elements"));
    }
    if layout.layout().padding().is_some() {
        return Err(not_strided("`pad(..)` puts padding slots between elements"));
    }
    layout
        .strides()
        .ok_or_else(|| not_strided("its offsets are not `index · strides`"))
}

/// The `ndarray` shape with strides of `layout`.
fn strided_shape(layout: &ArrayLayout) -> Result<ndarray::StrideShape<IxDyn>, Error> {
    let strides = strides_for_view(layout)?;
    let dims = IxDyn(&layout.sizes());
    // No elements: ndarray's own strides (it refuses some others here).
    if layout.element_count() == 0 {
        return Ok(dims.into());
    }
    Ok(dims.strides(IxDyn(&strides)))
}

/// An `ndarray` constructor's error: cannot happen for a tensor, whose
/// buffer holds every offset of its layout.
fn shape_error(_: ndarray::ShapeError) -> Error {
    Error::new(ErrorKind::Overflow {
        what: "the ndarray view's extent",
    })
}

/// Checks that `view_dims`/`view_strides` describe the elements of
/// `layout`: the same rank, dims and strides (any strides when there are
/// no elements).
fn check_view(
    layout: &ArrayLayout,
    view_dims: &[usize],
    view_strides: &[isize],
) -> Result<(), Error> {
    let strides = strides_for_view(layout)?;
    if view_dims.len() != layout.rank() {
        return Err(Error::new(ErrorKind::RankMismatch {
            expected: view_dims.len(),
            found: layout.rank(),
        }));
    }
    for (dim, (&found, &expected)) in view_dims.iter().zip(layout.sizes().iter()).enumerate() {
        if found != expected {
            return Err(Error::new(ErrorKind::DimensionMismatch {
                dim,
                expected: found,
                found: expected,
            }));
        }
    }
    if layout.element_count() == 0 {
        return Ok(());
    }
    for (dim, (&found, &expected)) in view_strides.iter().zip(strides.iter()).enumerate() {
        if isize::try_from(expected).ok() != Some(found) {
            return Err(Error::new(ErrorKind::StrideMismatch {
                dim,
                expected,
                found,
            }));
        }
    }
    Ok(())
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The tensor as an `ndarray` view of the same slots (no copy), with
    /// the layout's dims and strides. Needs feature `ndarray`.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type ColMajor = layout!(f32[2,3]{0,1});
    /// let t = TensorBuf::from_fn(ColMajor::NEW, |i| (i[0] * 10 + i[1]) as f32)?;
    /// let a = t.as_ndarray()?;
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_eq!(a.strides(), &[1, 2]);
    /// assert_eq!(a[[1, 2]], 12.0);
    ///
    /// // A tiled layout has no strides: relayout it first.
    /// type Tiled = layout!(f32[16,256]{1,0:T(8,128)});
    /// let tiled = TensorBuf::<Tiled, f32>::zeroed(Tiled::NEW)?;
    /// let err = tiled.as_ndarray().unwrap_err();
    /// assert!(err.to_string().contains("`relayout`"), "{err}");
    /// let rows = tiled.relayout(<layout!(f32[16,256]{1,0})>::NEW)?;
    /// assert_eq!(rows.as_ndarray()?.shape(), &[16, 256]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::NotStrided`] for a layout with tiles or `pad(..)`,
    /// saying which.
    pub fn as_ndarray(&self) -> Result<ArrayViewD<'_, S::Elem>, Error> {
        let shape = strided_shape(&self.to_array_layout())?;
        ArrayView::from_shape(shape, self.as_slice()).map_err(shape_error)
    }
}

impl<S: StorageMut, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// The tensor as a writable `ndarray` view of the same slots (no
    /// copy). Needs feature `ndarray`.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(s32[3,4]);
    /// let mut t = TensorBuf::<A, i32>::zeroed(A::NEW)?;
    /// t.as_ndarray_mut()?.index_axis_mut(ndarray::Axis(0), 1).fill(7);
    /// assert_eq!(t[[1, 3]], 7);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TensorBase::as_ndarray`].
    pub fn as_ndarray_mut(&mut self) -> Result<ArrayViewMutD<'_, S::Elem>, Error> {
        let shape = strided_shape(&self.to_array_layout())?;
        ArrayViewMut::from_shape(shape, self.as_mut_slice()).map_err(shape_error)
    }
}

impl<'a, L: Stores<T>, T: Element> TensorBase<&'a [T], L> {
    /// A tensor over the elements of an `ndarray` view (no copy), whose
    /// dims and strides must be `layout`'s. Needs feature `ndarray`.
    ///
    /// ```
    /// use tessera::{TensorView, layout};
    /// let a = ndarray::Array2::<f32>::from_shape_fn((4, 3), |(y, x)| (y * 3 + x) as f32);
    /// let t = TensorView::from_ndarray(<layout!(f32[4,3])>::NEW, a.view())?;
    /// assert_eq!(t[[2, 1]], 7.0);
    /// // A transposed view has the strides of the column-major layout.
    /// let tt = TensorView::from_ndarray(<layout!(f32[3,4]{0,1})>::NEW, a.t())?;
    /// assert_eq!(tt[[1, 2]], 7.0);
    /// assert!(TensorView::from_ndarray(<layout!(f32[3,4])>::NEW, a.t()).is_err());
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`ErrorKind::NotStrided`] for a tiled or padded `layout`;
    /// [`ErrorKind::RankMismatch`], [`ErrorKind::DimensionMismatch`] or
    /// [`ErrorKind::StrideMismatch`] (naming the dimension) when the view
    /// is not `layout`'s array; as [`TensorView::new`] when the element
    /// type differs or the layout's buffer is longer than the view's
    /// elements (an `L(n)` tail).
    pub fn from_ndarray<D: Dimension>(layout: L, view: ArrayView<'a, T, D>) -> Result<Self, Error> {
        check_view(&layout.to_array_layout(), view.shape(), view.strides())?;
        // No elements: no slots (ndarray gives no slice for some of these).
        let slots = match view.len() {
            0 => &[],
            _ => view.to_slice_memory_order().ok_or_else(not_contiguous)?,
        };
        TensorView::new(layout, slots)
    }
}

impl<'a, L: Stores<T>, T: Element> TensorBase<&'a mut [T], L> {
    /// A writable tensor over the elements of an `ndarray` view (no
    /// copy), whose dims and strides must be `layout`'s. Needs feature
    /// `ndarray`.
    ///
    /// ```
    /// use tessera::{TensorViewMut, layout};
    /// let mut a = ndarray::Array2::<f32>::zeros((2, 5));
    /// let mut t = TensorViewMut::from_ndarray(<layout!(f32[2,5])>::NEW, a.view_mut())?;
    /// t[[1, 4]] = 3.0;
    /// assert_eq!(a[[1, 4]], 3.0);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`TensorView::from_ndarray`].
    pub fn from_ndarray<D: Dimension>(
        layout: L,
        view: ArrayViewMut<'a, T, D>,
    ) -> Result<Self, Error> {
        check_view(&layout.to_array_layout(), view.shape(), view.strides())?;
        let slots = match view.len() {
            0 => &mut [],
            _ => view.into_slice_memory_order().ok_or_else(not_contiguous)?,
        };
        TensorViewMut::new(layout, slots)
    }
}

/// A view whose strides are a dense layout's is contiguous; `ndarray`
/// said otherwise.
fn not_contiguous() -> Error {
    Error::new(ErrorKind::NotStrided {
        reason: "the view's elements are not one contiguous block",
    })
}
