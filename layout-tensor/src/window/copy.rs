//! Relayout out of and into windows: a window as the source or the
//! destination of a copy to or from a tensor (or another window) of the
//! same logical shape as the window's extent, in any layout.
//!
//! The names follow the tensors' [`TensorBase::relayout_into`] and
//! `relayout` (with `alloc`): the receiver is the source, the argument the
//! destination. [`Window::relayout_into`] and `Window::relayout` copy a
//! window out; [`TensorBase::relayout_into_window`] and
//! [`Window::relayout_into_window`] copy into a writable window.
//!
//! A window's extent is a run-time value, so shapes are checked per call
//! ([`ErrorKind::RankMismatch`], [`ErrorKind::DimensionMismatch`] naming
//! the dimension). The copy walks the tensor side with the engine's loop
//! nest in memory order ([`TensorBase::for_each`]), so a destination
//! tensor is written in memory order; the window side costs the parent's
//! offset of each shifted index, as indexing the window does. Padding
//! slots of the destination are never written.
//!
//! What it costs: about what a hand-written element-by-element loop with
//! the parent's offset formula costs (0.6–1.1× of it in `BENCHMARKS.md`,
//! `access_windows`), not what [`TensorBase::relayout_into`] between two
//! tensors costs, which copies whole runs at close to memcpy's speed.

use layout_core::{AnyLayout, Error, ErrorKind, Locus};

use super::{Window, shifted_offset, walk};
use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;

/// Checks that a copy from `src` to `dst` moves arrays of the same
/// element type and sizes (one list of sizes a window's extent).
///
/// # Errors
/// [`ErrorKind::ElementTypeMismatch`], [`ErrorKind::RankMismatch`], or
/// [`ErrorKind::DimensionMismatch`] naming the first dimension that
/// differs.
fn check_same_shape(
    src: (&impl AnyLayout, &[usize]),
    dst: (&impl AnyLayout, &[usize]),
) -> Result<(), Error> {
    let (src_type, dst_type) = (src.0.element_type(), dst.0.element_type());
    if src_type != dst_type {
        return Err(Error::at(
            ErrorKind::ElementTypeMismatch {
                expected: src_type,
                found: dst_type,
            },
            Locus::ElementType,
        ));
    }
    if src.1.len() != dst.1.len() {
        return Err(Error::at(
            ErrorKind::RankMismatch {
                expected: src.1.len(),
                found: dst.1.len(),
            },
            Locus::Dims,
        ));
    }
    match src.1.iter().zip(dst.1).position(|(a, b)| a != b) {
        Some(dim) => Err(Error::at(
            ErrorKind::DimensionMismatch {
                dim,
                expected: src.1[dim],
                found: dst.1[dim],
            },
            Locus::Dim(dim),
        )),
        None => Ok(()),
    }
}

impl<S: Storage, L: AnyLayout> Window<S, L>
where
    S::Elem: Element,
{
    /// Copies the window's elements into `dst`, a tensor whose dims are
    /// the window's extent, in any layout (static, mixed or run-time).
    /// `dst` is written in its memory order; its padding slots are left
    /// as they are.
    ///
    /// ```
    /// use tessera::{PreparedLayout, TensorBuf, layout};
    /// type A = layout!(f32[20,300]{1,0:T(8,128)});
    /// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 1000 + i[1]) as f32)?;
    /// // A 4x4 block across four tiles, into a column-major tensor.
    /// let mut dst = TensorBuf::<_, f32>::zeroed(PreparedLayout::parse("f32[4,4]{0,1}")?)?;
    /// t.window([6..10, 126..130]).relayout_into(&mut dst)?;
    /// assert_eq!(dst[[3, 2]], 9128.0);
    /// assert_eq!(dst.as_slice()[1], 7126.0); // column-major: [1, 0] is next to [0, 0]
    /// // A destination of another shape says which dimension differs.
    /// let mut wrong = TensorBuf::<_, f32>::zeroed(<layout!(f32[4,5]{1,0})>::NEW)?;
    /// let e = t.window([6..10, 126..130]).relayout_into(&mut wrong).unwrap_err();
    /// assert_eq!(e.to_string(), "dimension `1` has size 4 in the source but 5 in the destination");
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// `dst` differs from the window in element type, rank, or a
    /// dimension's size ([`ErrorKind::DimensionMismatch`] names it).
    pub fn relayout_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: AnyLayout,
    {
        let extent = &self.extent[..self.rank];
        check_same_shape(
            (&self.layout, extent),
            (dst.layout(), &dst.layout().sizes()),
        )?;
        let (src, layout, origin) = (
            self.storage.as_slice(),
            &self.layout,
            &self.origin[..self.rank],
        );
        dst.for_each_mut(|index, v| *v = src[shifted_offset(layout, origin, index)]);
        Ok(())
    }

    /// A new tensor holding the window's elements in `layout`, whose dims
    /// must be the window's extent; padding slots are set to the layout's
    /// padding value (zero when it names none).
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type A = layout!(f32[6,10]{0,1});
    /// let t = TensorBuf::from_fn(A::NEW, |i| (i[0] * 10 + i[1]) as f32)?;
    /// // Row 2 of a column-major matrix, as a row-major tensor, tiled.
    /// let row = t.row(2).relayout(<layout!(f32[1,10]{1,0:T(1,4)})>::NEW)?;
    /// assert_eq!(row[[0, 9]], 29.0);
    /// assert_eq!(row.as_slice()[..4], [20.0, 21.0, 22.0, 23.0]);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Window::relayout_into`], a padding value the element type does
    /// not have, or a buffer that cannot be allocated.
    #[cfg(feature = "alloc")]
    pub fn relayout<L2: crate::layout::Stores<S::Elem>>(
        &self,
        layout: L2,
    ) -> Result<crate::TensorBuf<L2, S::Elem>, Error> {
        let mut out = crate::TensorBuf::zeroed(layout)?;
        out.fill_padding()?;
        self.relayout_into(&mut out)?;
        Ok(out)
    }

    /// Copies the window's elements into the writable window `dst` of the
    /// same extent (of any tensor, in any layout), in this window's
    /// logical order.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// let a = TensorBuf::from_fn(<layout!(f32[8,8]{1,0:T(4,4)})>::NEW, |i| (i[0] * 8 + i[1]) as f32)?;
    /// let mut b = TensorBuf::<_, f32>::zeroed(<layout!(f32[3,20]{0,1})>::NEW)?;
    /// a.window([5..7, 2..8]).relayout_into_window(&mut b.window_mut([1..3, 10..16]))?;
    /// assert_eq!(b[[1, 10]], 42.0);
    /// assert_eq!(b[[2, 15]], 55.0);
    /// assert_eq!(b[[0, 10]], 0.0);
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Window::relayout_into`], against `dst`'s extent.
    pub fn relayout_into_window<S2, L2>(&self, dst: &mut Window<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: AnyLayout,
    {
        let extent = &self.extent[..self.rank];
        check_same_shape(
            (&self.layout, extent),
            (&dst.layout, &dst.extent[..dst.rank]),
        )?;
        let src = self.storage.as_slice();
        let (layout, origin) = (&dst.layout, &dst.origin[..dst.rank]);
        let out = dst.storage.as_mut_slice();
        walk(
            &self.layout,
            &self.origin[..self.rank],
            extent,
            |index, offset| out[shifted_offset(layout, origin, index)] = src[offset],
        );
        Ok(())
    }
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// Copies every element into the writable window `dst`, whose extent
    /// must be this tensor's dims; the window's parent may be in any
    /// layout. The tensor is read in its memory order; slots outside the
    /// window are left as they are.
    ///
    /// ```
    /// use tessera::{TensorBuf, layout};
    /// type Big = layout!(f32[20,300]{1,0:T(8,128)});
    /// let mut big = TensorBuf::<Big, f32>::zeroed(Big::NEW)?;
    /// let block = TensorBuf::from_fn(<layout!(f32[3,4]{0,1})>::NEW, |i| (i[0] * 4 + i[1] + 1) as f32)?;
    /// block.relayout_into_window(&mut big.window_mut([7..10, 126..130]))?;
    /// assert_eq!(big[[7, 126]], 1.0);
    /// assert_eq!(big[[9, 129]], 12.0);
    /// assert_eq!(big.iter().sum::<f32>(), 78.0); // nothing else written
    /// # Ok::<(), tessera::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Window::relayout_into`], with this tensor as the source.
    pub fn relayout_into_window<S2, L2>(&self, dst: &mut Window<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: AnyLayout,
    {
        let sizes = self.layout().sizes();
        check_same_shape(
            (self.layout(), &sizes),
            (&dst.layout, &dst.extent[..dst.rank]),
        )?;
        let (layout, origin) = (&dst.layout, &dst.origin[..dst.rank]);
        let out = dst.storage.as_mut_slice();
        self.for_each(|index, v| out[shifted_offset(layout, origin, index)] = *v);
        Ok(())
    }
}
