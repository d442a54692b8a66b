//! Relayout: copying a tensor into another layout of the same logical
//! array, tile by tile, with the inner loop over runs that are contiguous
//! in both buffers ([`LoopNest::relayout`]).
//!
//! The copy walks the destination in memory order, so writes stream; the
//! engine's loop nest hands over volumes of its innermost four levels
//! ([`LoopNest::for_each_volume`]), and [`copy_nest`](copy::copy_nest) moves them with the
//! kernel that the planner chose once from the nest's strides
//! ([`RelayoutKernel::for_nest`]): inline copies of runs contiguous in
//! both buffers (streaming stores, and the source prefetched a band
//! ahead, for destinations of [`STREAM_FROM_BYTES`] or more; `memcpy`
//! calls for runs that start at destination addresses that are not
//! 16-byte aligned, up to the first aligned element of runs longer than
//! 2 KiB: [`sink`]), an interleave for `T(2,1)`/`T(4,1)` sub-tiles and a
//! deinterleave for their unpack, a transpose in square blocks
//! of vectors when the source's contiguous level is not the
//! destination's ([`transpose`]), the same over units of 2, 4 or 8
//! elements when a run that short is contiguous in both (a transpose into
//! sub-tiles), squares of `k × k` elements contiguous in both, each
//! transposed as it is moved (a transpose between two sub-tiled layouts,
//! [`squares`]), or a strided loop. Padding slots of the destination are
//! never written.
//!
//! The kernels walk a volume's blocks and runs with the engine's stepper
//! ([`for_each_step`](layout_core::walk::for_each_step)), the odometer
//! the loop nest itself is walked with.

mod copy;
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod isa;
mod kernel;
pub(crate) mod mix;
pub(crate) mod simd;
mod sink;
mod squares;
pub(crate) mod stream;
mod transpose;

pub use kernel::RelayoutKernel;

use layout_core::walk::{LoopNest, NestTemplate};
use layout_core::{AnyLayout, ArrayLayout, Error, SameShape, Shape};

use crate::element::Element;
use crate::storage::{Storage, StorageMut};
use crate::tensor::TensorBase;
use copy::copy_planned;
use kernel::arrange;
pub(crate) use kernel::{packed_bytes, packed_fields, packed_joined_runs, packed_squares};
#[cfg(doc)]
use stream::STREAM_FROM_BYTES;

/// How a relayout between two layout types gets its loop nest, decided
/// while compiling.
enum NestPlan {
    /// Both layouts are static: the nest (`None`: no common digits,
    /// element by element), already arranged for its kernel. A shape or
    /// element-type mismatch is a compile error.
    Fixed(Option<LoopNest>, RelayoutKernel),
    /// Both types fix everything but some dims (static and mixed layouts):
    /// the nest for every size of those dims, to which a call adds the
    /// sizes.
    Template(NestTemplate),
    /// A run-time layout, or a pair no template serves: built per call.
    PerCall,
}

const fn nest_plan(fixed: [Option<ArrayLayout>; 2], templates: [Option<Shape>; 2]) -> NestPlan {
    match fixed {
        [Some(a), Some(b)] => match LoopNest::relayout(&a, &b) {
            Ok(nest) => {
                let kernel = RelayoutKernel::for_nest(nest.as_ref());
                match &nest {
                    Some(n) => match arrange(n, kernel) {
                        Some(arranged) => NestPlan::Fixed(Some(arranged), kernel),
                        None => NestPlan::Fixed(nest, kernel),
                    },
                    None => NestPlan::Fixed(None, kernel),
                }
            }
            Err(e) => e.panic(),
        },
        _ => match templates {
            [Some(a), Some(b)] => match NestTemplate::relayout(&a, &b) {
                Some(t) => NestPlan::Template(t),
                None => NestPlan::PerCall,
            },
            _ => NestPlan::PerCall,
        },
    }
}

impl<S: Storage, L: AnyLayout> TensorBase<S, L>
where
    S::Elem: Element,
{
    /// Copies every element into `dst`, which holds the same logical array
    /// (element type and dims) in its own layout. `dst`'s padding slots
    /// are left as they are.
    ///
    /// For two static layouts a shape or element-type mismatch is a
    /// compile error, and the loop nest is built while compiling. Between
    /// static and mixed layouts whose run-time dims are the most major
    /// (`f32[?,1024]`), the nest is also built while compiling, for every
    /// row count ([`NestTemplate`]); a call only checks the dims and fills
    /// them in. Run-time layouts, and mixed layouts whose run-time dims
    /// change strides, build the nest per call: about 1 µs for an 8 KiB
    /// pack between two [`PreparedLayout`](layout_core::PreparedLayout)s,
    /// which plan from the offset terms they keep
    /// ([`LoopNest::relayout_between`]); other run-time layouts
    /// ([`ArrayLayout`]) work out their digits
    /// on each call, about half a microsecond more.
    ///
    /// On x86-64, destinations of 8 MiB or more are written with streaming
    /// stores, which bypass the cache: the fastest way to fill a buffer
    /// that big, but the data is not in the cache afterwards.
    ///
    /// ```
    /// use tessera::{PreparedLayout, TensorBuf};
    /// let rm = PreparedLayout::parse("f32[16,256]{1,0}").unwrap();
    /// let tiled = PreparedLayout::parse("f32[16,256]{1,0:T(8,128)}").unwrap();
    /// let src = TensorBuf::from_fn(rm, |i| (i[0] * 256 + i[1]) as f32).unwrap();
    /// let mut dst = TensorBuf::<_, f32>::zeroed(tiled).unwrap();
    /// src.relayout_into(&mut dst).unwrap();
    /// assert_eq!(dst[[9, 130]], (9 * 256 + 130) as f32);
    /// assert_eq!(dst.as_slice()[128], 256.0); // row 1 of the first tile
    /// ```
    ///
    /// # Errors
    /// The layouts differ in element type, rank or a dimension's size.
    pub fn relayout_into<S2, L2>(&self, dst: &mut TensorBase<S2, L2>) -> Result<(), Error>
    where
        S2: StorageMut<Elem = S::Elem>,
        L2: SameShape<L>,
    {
        // The plan is a constant, promoted to a `'static`.
        let plan: &'static NestPlan = &const {
            nest_plan(
                [L::FIXED_LAYOUT, L2::FIXED_LAYOUT],
                [L::TEMPLATE, L2::TEMPLATE],
            )
        };
        let src = self.as_slice();
        let mut built;
        let per_call;
        let nest = match plan {
            // A constant nest: `copy_nest` is inlined here, with its levels
            // and sizes folded into the code instead of read at run time.
            NestPlan::Fixed(Some(nest), kernel) => {
                copy_planned(nest, *kernel, src, dst.as_mut_slice());
                return Ok(());
            }
            NestPlan::Fixed(None, _) => None,
            NestPlan::Template(t) => {
                // Built in place: the nest is 5.9 KB, so not moved once more.
                built = t.nest(&self.layout().sizes(), &dst.layout().sizes());
                if built.is_none() {
                    // Sizes that differ: the engine says which.
                    built = LoopNest::relayout(&self.to_array_layout(), &dst.to_array_layout())?;
                }
                built.as_ref()
            }
            NestPlan::PerCall => {
                // Read where it was built: moving the nest out of the
                // `Result` copied its 5.9 KB once more.
                per_call = LoopNest::relayout_between(self.layout(), dst.layout());
                match &per_call {
                    Ok(nest) => nest.as_ref(),
                    Err(e) => return Err(*e),
                }
            }
        };
        match nest {
            Some(nest) => copy_along(nest, src, dst.as_mut_slice()),
            None => {
                // No common digits (a `*` merge, or cuts that do not
                // divide each other): element by element.
                let (a, b) = (self.to_array_layout(), dst.to_array_layout());
                let out = dst.as_mut_slice();
                let mut from = a.elements();
                let mut to = b.elements();
                while let (Some(s), Some(d)) = (from.next_offset(), to.next_offset()) {
                    out[d] = src[s];
                }
            }
        }
        Ok(())
    }

    /// A new tensor holding the same array in `layout`, padding slots set
    /// to the layout's padding value (zero when it names none).
    ///
    /// # Errors
    /// As [`TensorBase::relayout_into`], a padding value the element type
    /// does not have, or a new buffer that cannot be allocated
    /// ([`ErrorKind::AllocationFailed`](layout_core::ErrorKind::AllocationFailed)).
    #[cfg(feature = "alloc")]
    pub fn relayout<L2: SameShape<L> + crate::layout::Stores<S::Elem>>(
        &self,
        layout: L2,
    ) -> Result<crate::TensorBuf<L2, S::Elem>, Error> {
        let mut out = crate::TensorBuf::zeroed(layout)?;
        out.fill_padding()?;
        self.relayout_into(&mut out)?;
        Ok(out)
    }
}

/// Copies every element of `src` to `dst` along `nest` with the kernel
/// the planner chooses from the nest's strides; a transpose copies along
/// the nest rearranged for it. Packed sub-byte relayouts whose bytes hold
/// the same elements come here too, as bytes along the nest in bytes
/// ([`LoopNest::in_units`]).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn copy_along<T: bytemuck::NoUninit>(nest: &LoopNest, src: &[T], dst: &mut [T]) {
    let kernel = RelayoutKernel::for_nest(Some(nest));
    match arrange(nest, kernel) {
        Some(arranged) => copy_planned(&arranged, kernel, src, dst),
        None => copy_planned(nest, kernel, src, dst),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use layout_core::{ArrayLayout, walk::LoopNest};

    /// The relayout nest of two layouts' text (both valid, with a nest).
    pub(crate) fn nest(src: &str, dst: &str) -> LoopNest {
        let src: ArrayLayout = src.parse().unwrap();
        let dst: ArrayLayout = dst.parse().unwrap();
        LoopNest::relayout(&src, &dst).unwrap().unwrap()
    }
}
