//! [`MixedLayout`]: a layout whose element type, tiles and static dims are
//! fixed at compile time while some dims (`?`, or `<=N`) are known only at
//! run time. `tessera::layout!(bf16[?,1024]{1,0:T(8,128)(2,1)})` names one.
//!
//! The value holds only the run-time extents (`[usize; K]`, one per `?` or
//! `<=N` dim). Everything else is an associated const computed by the
//! engine:
//!
//! - a `<=N` dim is laid out with room for `N` (XLA's rule for bounded
//!   dims), so its extent only bounds the indices: offsets, strides and the
//!   buffer length are the bound's, all constants;
//! - a `?` dim changes the physical (tiled) shape. The engine lays the
//!   layout out twice at compile time, with two probe extents, and keeps
//!   the offset formula `sum(stride * ((index[d] / div) % modulus))` with
//!   every `div` and `modulus` a constant, and each stride a constant
//!   times `ceil(extent / div)` of the `?` dims' tile counts that are more
//!   minor. For the usual "rows at run time" layout (`?` the most major
//!   dim) every stride is a constant and the offset costs what the fully
//!   static layout's does.
//!
//! ```
//! use tessera::typelevel::{DefaultAttrs, Dyn, F32, N};
//! use tessera::{MixedLayout, layout};
//! // What `layout!(f32[?,8]{1,0:T(2,4)})` expands to.
//! type Rows = MixedLayout<2, 1, F32, (Dyn, N<8>), (N<1>, N<0>), ((N<2>, N<4>),), DefaultAttrs>;
//! static_assertions::assert_type_eq_all!(Rows, layout!(f32[?,8]{1,0:T(2,4)}));
//! let l = Rows::new([5, 8]).unwrap();
//! assert_eq!(l.dims(), [5, 8]);
//! assert_eq!(l.buffer_len(), 48); // 3 tile rows of 2x4, 2 tiles each
//! assert_eq!(l.offset([4, 7]), l.to_runtime().offset(&[4, 7]));
//! assert!(Rows::new([5, 9]).is_err()); // dim 1 is static
//! assert_eq!(l.to_string(), "f32[?,8]{1,0:T(2,4)}");
//! ```

use core::fmt;
use core::marker::PhantomData;

use crate::array::terms::{Arithmetic, Term, evaluate};
use crate::array::{ArrayLayout, DigitSource};
use crate::error::{Error, ErrorKind, Locus};
use crate::layouts::static_layout::{NON_CANONICAL_ATTRS, Params, build_array_layout};
use crate::layouts::typelevel::{AttrSpec, DimList, ElementSpec, NumList, TileList, layout_parts};
use crate::limits::{MAX_PHYSICAL_RANK, MAX_RANK};
use crate::model::layout::{LayoutParts, Padding};
use crate::model::shape::{Dim, Shape};
use crate::model::tile::Tile;

/// A layout with `K` dims known only at run time (`?` or `<=N`) among its
/// `RANK`: the value holds their extents, everything else is constant.
/// Write it with `tessera::layout!`, not by hand (see the [module
/// docs](self)).
///
/// ```
/// use tessera::layout;
/// type Rows = layout!(bf16[?,256]{1,0:T(8,128)(2,1)});
/// let l = Rows::new([20, 256])?;
/// assert_eq!(l.extents(), [20]); // only the `?` dim is stored
/// assert_eq!(l.buffer_len(), 3 * 2 * 1024); // 3 tile rows of 2 tiles
/// assert_eq!(l.offset([9, 130]), l.to_runtime().offset(&[9, 130]));
/// # Ok::<(), tessera::Error>(())
/// ```
pub struct MixedLayout<const RANK: usize, const K: usize, Element, Dims, MinorToMajor, Tiles, A> {
    extents: [usize; K],
    params: Params<Element, Dims, MinorToMajor, Tiles, A>,
}

/// One term of a mixed layout's offset: the engine's [`Term`], whose
/// `stride` is the product of the static physical sizes more minor than
/// it, times the tile counts of the `?` dims that `dynamic_factors` names.
///
/// ```
/// use tessera::layout;
/// type Cols = layout!(f32[4,?]{1,0:T(2,4)});
/// // y / 2 (a tile row) moves over every tile of x: 8 slots per tile
/// // times `ceil(x / 4)`, dynamic size 0.
/// let t = Cols::PLAN.terms()[0];
/// assert_eq!((t.term.dim, t.term.div, t.term.stride), (0, 2, 8));
/// assert_eq!(t.dynamic_factors, 0b1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MixedTerm {
    /// The term, with the static part of the stride.
    pub term: Term,
    /// Bit `j` set: the stride also has the factor
    /// `ceil(extent[dynamic_sizes[j].0] / dynamic_sizes[j].1)` (see
    /// [`MixedPlan::dynamic_sizes`]).
    pub dynamic_factors: u64,
}

/// The offset formula of a [`MixedLayout`], computed at compile time.
///
/// ```
/// use tessera::layout;
/// type Rows = layout!(f32[?,8]{1,0:T(2,4)});
/// assert!(Rows::PLAN.separable);
/// // One physical dim depends on the `?` dim y: its tile rows, `ceil(y / 2)`.
/// assert_eq!(Rows::PLAN.dynamic_sizes(), [(0, 2)]);
/// // No stride does: rows at run time cost what static rows cost.
/// assert!(Rows::PLAN.terms().iter().all(|t| t.dynamic_factors == 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MixedPlan {
    /// Whether every physical dim has a digit formula; when not, offsets
    /// come from the engine on the concrete layout.
    pub separable: bool,
    len: usize,
    terms: [MixedTerm; MAX_PHYSICAL_RANK],
    /// `terms` without their factors, for the evaluator.
    static_terms: [Term; MAX_PHYSICAL_RANK],
    arithmetic: Arithmetic,
    dynamic_len: usize,
    dynamic_sizes: [(usize, usize); MAX_PHYSICAL_RANK],
}

impl MixedPlan {
    /// The terms.
    pub const fn terms(&self) -> &[MixedTerm] {
        self.terms.split_at(self.len).0
    }

    /// The physical dims whose size depends on a `?` dim, as `(logical
    /// dim, div)`: size `ceil(extent / div)`.
    pub const fn dynamic_sizes(&self) -> &[(usize, usize)] {
        self.dynamic_sizes.split_at(self.dynamic_len).0
    }
}

const NO_TERM: MixedTerm = MixedTerm {
    term: Term::new(0, 1, 0, 0),
    dynamic_factors: 0,
};

/// The product of the tile entries above 1: every tile of the layout
/// divides it.
pub(crate) const fn tile_span(tiles: &[Tile]) -> usize {
    let mut span = 1usize;
    let mut t = 0;
    while t < tiles.len() {
        let raw = tiles[t].raw();
        let mut j = 0;
        while j < raw.len() {
            if raw[j] > 1 {
                span = span.saturating_mul(raw[j]);
            }
            j += 1;
        }
        t += 1;
    }
    span
}

/// Two extents to lay `?` dims out at, for tiles whose entries divide
/// `span` ([`tile_span`]): larger than every tile, so no digit of the
/// tiled shape degenerates, and far enough apart that every tile count
/// of a `?` dim differs between them.
pub(crate) const fn probe_extents(span: usize) -> [usize; 2] {
    [
        span.saturating_add(1),
        span.saturating_mul(2).saturating_add(3),
    ]
}

/// `dims` with every `?` replaced by `probe`.
const fn probe_dims(dims: &[Dim], probe: usize) -> [Dim; MAX_RANK] {
    let mut out = [Dim::Static(0); MAX_RANK];
    let mut d = 0;
    while d < dims.len() {
        out[d] = match dims[d] {
            Dim::Unbounded => Dim::Static(probe),
            other => other,
        };
        d += 1;
    }
    out
}

/// Compares the layouts of two probes and derives the plan, or says why
/// the `?` dims cannot be folded.
const fn derive_plan(a: &ArrayLayout, b: &ArrayLayout, probes: [usize; 2]) -> MixedPlan {
    let mut plan = MixedPlan {
        separable: true,
        len: 0,
        terms: [NO_TERM; MAX_PHYSICAL_RANK],
        static_terms: [NO_TERM.term; MAX_PHYSICAL_RANK],
        arithmetic: Arithmetic::DivMod,
        dynamic_len: 0,
        dynamic_sizes: [(0, 1); MAX_PHYSICAL_RANK],
    };
    let (pa, pb) = (a.physical_dims(), b.physical_dims());
    let (pa, pb) = (pa.as_slice(), pb.as_slice());
    if !a.physical_dims().is_separable() {
        plan.separable = false;
        return plan;
    }
    assert!(
        pa.len() == pb.len(),
        "the physical rank of this layout depends on its `?` dims; use a run-time layout"
    );
    // Which physical dims have a size that follows a `?` dim.
    let mut dynamic = [usize::MAX; MAX_PHYSICAL_RANK];
    let mut p = 0;
    while p < pa.len() {
        if pa[p].size != pb[p].size {
            let ok = match pa[p].source {
                DigitSource::Logical {
                    dim,
                    div,
                    modulus: None,
                } => {
                    pa[p].size == probes[0].div_ceil(div)
                        && pb[p].size == probes[1].div_ceil(div)
                        && a.size(dim) == probes[0]
                        && b.size(dim) == probes[1]
                }
                _ => false,
            };
            assert!(
                ok,
                "this layout's tiling of a `?` dim cannot be folded to constants; use a run-time layout"
            );
            if let DigitSource::Logical { dim, div, .. } = pa[p].source {
                dynamic[p] = plan.dynamic_len;
                plan.dynamic_sizes[plan.dynamic_len] = (dim, div);
                plan.dynamic_len += 1;
            }
        }
        p += 1;
    }
    // Strides: static sizes multiply into the static part, dynamic ones
    // set their bit.
    let mut static_stride = 1usize;
    let mut factors = 0u64;
    let mut p = pa.len();
    let mut terms_rev = [NO_TERM; MAX_PHYSICAL_RANK];
    let mut n = 0;
    while p > 0 {
        p -= 1;
        if let Some(term) = Term::of_physical_dim(&pa[p]) {
            terms_rev[n] = MixedTerm {
                term: Term::new(term.dim, term.div, term.modulus, static_stride),
                dynamic_factors: factors,
            };
            n += 1;
        }
        if dynamic[p] == usize::MAX {
            static_stride = static_stride.saturating_mul(pa[p].size);
        } else {
            factors |= 1u64 << dynamic[p];
        }
    }
    // Major to minor, as the physical dims.
    let mut i = 0;
    while i < n {
        plan.terms[i] = terms_rev[n - 1 - i];
        plan.static_terms[i] = plan.terms[i].term;
        i += 1;
    }
    plan.len = n;
    plan.arithmetic = Arithmetic::of(plan.static_terms.split_at(n).0);
    plan
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    /// Number of dimensions.
    pub const RANK: usize = R;

    /// The element type.
    pub const ELEMENT_TYPE: crate::element::PrimitiveType = Self::TEMPLATE.element_type();

    /// Bits one element takes in the buffer.
    pub const ELEMENT_SIZE_IN_BITS: usize = Self::probe(Self::PROBES[0]).element_size_in_bits();

    /// The logical dims that are known only at run time, in order.
    pub const DYNAMIC_DIMS: [usize; K] = {
        let mut out = [0usize; K];
        let mut n = 0;
        let mut d = 0;
        while d < D::DIMS.len() {
            if !matches!(D::DIMS[d], Dim::Static(_)) {
                assert!(n < K, "K is less than the number of `?` and `<=N` dims");
                out[n] = d;
                n += 1;
            }
            d += 1;
        }
        assert!(n == K, "K differs from the number of `?` and `<=N` dims");
        assert!(D::DIMS.len() == R, "RANK differs from the number of dims");
        out
    };

    /// For each logical dim, its position in [`Self::DYNAMIC_DIMS`]
    /// (`usize::MAX` for a static dim).
    const DYNAMIC_POSITION: [usize; R] = {
        let mut out = [usize::MAX; R];
        let mut k = 0;
        while k < K {
            out[Self::DYNAMIC_DIMS[k]] = k;
            k += 1;
        }
        out
    };

    /// A static dim's size, or a `<=N` dim's bound (0 for `?`).
    pub const DIMS: [usize; R] = {
        let mut out = [0usize; R];
        let mut d = 0;
        while d < R {
            out[d] = match D::DIMS[d] {
                Dim::Static(n) | Dim::Bounded(n) => n,
                Dim::Unbounded => 0,
            };
            d += 1;
        }
        out
    };

    /// The two probe extents used for `?` dims ([`probe_extents`]).
    const PROBES: [usize; 2] = probe_extents(tile_span(Ti::TILES));

    /// Builds the engine's layout with `dims`.
    const fn build(dims: &[Dim], padding: Option<Padding>) -> Result<ArrayLayout, Error> {
        assert!(A::CANONICAL, "{}", NON_CANONICAL_ATTRS);
        let parts = LayoutParts {
            padding,
            ..layout_parts::<A>(M::VALUES, Ti::TILES)
        };
        build_array_layout(R, T::TYPE, dims, &parts)
    }

    const fn probe(probe: usize) -> ArrayLayout {
        let dims = probe_dims(D::DIMS, probe);
        match Self::build(dims.split_at(R).0, A::PADDING) {
            Ok(l) => l,
            Err(e) => e.panic(),
        }
    }

    /// The layout's template as XLA's text, `?` and `<=N` included.
    pub const TEMPLATE: Shape = {
        let layout = Self::probe(Self::PROBES[0]);
        let shape = match Shape::without_layout_from_dims(layout.element_type(), D::DIMS) {
            Ok(s) => s,
            Err(e) => e.panic(),
        };
        match shape.with_layout(*layout.layout()) {
            Ok(s) => s,
            Err(e) => e.panic(),
        }
    };

    /// The offset formula (see the [module docs](self)). Evaluating it
    /// for a layout whose `?` tiling cannot be folded is a compile error.
    pub const PLAN: MixedPlan = derive_plan(
        &Self::probe(Self::PROBES[0]),
        &Self::probe(Self::PROBES[1]),
        Self::PROBES,
    );

    /// The buffer length when no dim is `?` (`<=N` dims take their
    /// bound's room), so that bounded layouts get inline storage
    /// (`[T; Bounded::BUFFER_LEN]`). Evaluating it for a layout with a `?`
    /// dim is a compile error.
    pub const BUFFER_LEN: usize = {
        let mut d = 0;
        while d < R {
            assert!(
                !matches!(D::DIMS[d], Dim::Unbounded),
                "this layout has a `?` dim: its buffer length is known only at run time"
            );
            d += 1;
        }
        Self::probe(1).buffer_len()
    };

    /// Checks `dims` against the layout (static dims must match, `<=N`
    /// dims must not exceed `N`) and that its buffer fits `usize`.
    ///
    /// # Errors
    /// The first dim that breaks a rule, or an overflow.
    pub const fn new(dims: [usize; R]) -> Result<Self, Error> {
        let mut extents = [0usize; K];
        let mut d = 0;
        while d < R {
            match D::DIMS[d] {
                Dim::Static(n) if dims[d] != n => {
                    return Err(Error::at(
                        ErrorKind::StaticDimensionMismatch {
                            dim: d,
                            expected: n,
                            found: dims[d],
                        },
                        Locus::Dim(d),
                    ));
                }
                Dim::Bounded(bound) if dims[d] > bound => {
                    return Err(Error::at(
                        ErrorKind::BoundExceeded {
                            dim: d,
                            bound,
                            found: dims[d],
                        },
                        Locus::Dim(d),
                    ));
                }
                _ => {}
            }
            let k = Self::DYNAMIC_POSITION[d];
            if k != usize::MAX {
                extents[k] = dims[d];
            }
            d += 1;
        }
        let l = MixedLayout {
            extents,
            params: PhantomData,
        };
        match l.try_to_runtime() {
            Ok(_) => Ok(l),
            Err(e) => Err(e),
        }
    }

    /// The run-time extents, one per [`Self::DYNAMIC_DIMS`] entry.
    pub const fn extents(&self) -> [usize; K] {
        self.extents
    }

    /// The size of every dim: static sizes and run-time extents.
    #[inline(always)]
    pub const fn dims(&self) -> [usize; R] {
        let mut out = Self::DIMS;
        let mut k = 0;
        while k < K {
            out[Self::DYNAMIC_DIMS[k]] = self.extents[k];
            k += 1;
        }
        out
    }

    /// The concrete layout, for the engine's other figures.
    const fn try_to_runtime(&self) -> Result<ArrayLayout, Error> {
        let sizes = self.dims();
        let mut dims = [Dim::Static(0); MAX_RANK];
        let mut padded = [0usize; MAX_RANK];
        let mut any_bounded = false;
        let mut d = 0;
        while d < R {
            dims[d] = Dim::Static(sizes[d]);
            padded[d] = match D::DIMS[d] {
                Dim::Bounded(bound) => {
                    any_bounded = true;
                    bound
                }
                _ => sizes[d],
            };
            d += 1;
        }
        // A bounded dim keeps its bound's room: the same placement as the
        // extent padded to the bound.
        let padding = match A::PADDING {
            Some(p) => Some(p),
            None if any_bounded => match Padding::new(
                padded.split_at(R).0,
                crate::model::layout::PaddingValue::Unspecified,
            ) {
                Ok(p) => Some(p),
                Err(e) => return Err(e),
            },
            None => None,
        };
        Self::build(dims.split_at(R).0, padding)
    }

    /// The concrete run-time layout of this value: the same offsets, with
    /// the extents in place of `?` and `<=N`.
    pub const fn to_runtime(&self) -> ArrayLayout {
        match self.try_to_runtime() {
            Ok(l) => l,
            Err(_) => panic!("checked by MixedLayout::new"),
        }
    }

    /// Number of slots in the buffer (the engine lays the layout out: call
    /// it to set up work, not per element).
    pub const fn buffer_len(&self) -> usize {
        self.to_runtime().buffer_len()
    }

    /// Number of logical elements: the product of [`MixedLayout::dims`]
    /// (which [`MixedLayout::new`] checked against overflow).
    #[inline]
    pub const fn element_count(&self) -> usize {
        let dims = self.dims();
        let mut n = 1usize;
        let mut d = 0;
        while d < R {
            n = n.wrapping_mul(dims[d]);
            d += 1;
        }
        n
    }

    /// Whether each entry of `index` is below its dim's size.
    #[inline(always)]
    pub const fn is_in_bounds(&self, index: [usize; R]) -> bool {
        crate::index::in_bounds(&self.dims(), &index)
    }

    /// The offset of an `index` the caller knows to be in bounds, without
    /// the bounds check: exact in bounds, meaningless (never a panic)
    /// outside.
    #[inline(always)]
    pub const fn offset_in_bounds(&self, index: [usize; R]) -> usize {
        let plan = &Self::PLAN;
        if !plan.separable {
            return self.to_runtime().offset_in_bounds(&index);
        }
        let static_terms = plan.static_terms.split_at(plan.len).0;
        if plan.dynamic_len == 0 {
            // Every stride a constant (the usual case): the evaluator
            // folds the terms as a static layout's.
            return evaluate(static_terms, &index, plan.arithmetic);
        }
        // Each stride scaled by the tile counts of the `?` dims it spans.
        let mut terms = plan.static_terms;
        let mut j = 0;
        while j < plan.dynamic_len {
            let (dim, div) = plan.dynamic_sizes[j];
            let count = self.extents[Self::DYNAMIC_POSITION[dim]].div_ceil(div);
            let mut p = 0;
            while p < plan.len {
                if plan.terms[p].dynamic_factors & (1 << j) != 0 {
                    terms[p].stride = terms[p].stride.wrapping_mul(count);
                }
                p += 1;
            }
            j += 1;
        }
        evaluate(terms.split_at(plan.len).0, &index, plan.arithmetic)
    }

    /// The offset of the element at `index`.
    ///
    /// # Panics
    /// If an entry is out of bounds, naming the dim, the index and the
    /// extent.
    #[inline]
    #[track_caller]
    pub const fn offset(&self, index: [usize; R]) -> usize {
        match self.try_offset(index) {
            Ok(o) => o,
            Err(e) => e.panic(),
        }
    }

    /// The offset of the element at `index`, or why there is none.
    ///
    /// # Errors
    /// An entry out of bounds.
    #[inline]
    pub const fn try_offset(&self, index: [usize; R]) -> Result<usize, Error> {
        if self.is_in_bounds(index) {
            return Ok(self.offset_in_bounds(index));
        }
        let dims = self.dims();
        match crate::index::check_index(&dims, &index) {
            Ok(()) => Ok(self.offset_in_bounds(index)),
            Err(e) => Err(e),
        }
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> Clone for MixedLayout<R, K, T, D, M, Ti, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> Copy for MixedLayout<R, K, T, D, M, Ti, A> {}

impl<const R: usize, const K: usize, T, D, M, Ti, A> PartialEq
    for MixedLayout<R, K, T, D, M, Ti, A>
{
    fn eq(&self, other: &Self) -> bool {
        self.extents == other.extents
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> Eq for MixedLayout<R, K, T, D, M, Ti, A> {}

impl<const R: usize, const K: usize, T, D, M, Ti, A> fmt::Display
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    /// XLA's text of the template, e.g. `bf16[?,1024]{1,0:T(8,128)(2,1)}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Self::TEMPLATE, f)
    }
}

impl<const R: usize, const K: usize, T, D, M, Ti, A> fmt::Debug
    for MixedLayout<R, K, T, D, M, Ti, A>
where
    T: ElementSpec,
    D: DimList,
    M: NumList,
    Ti: TileList,
    A: AttrSpec,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MixedLayout({} with dims {:?})",
            Self::TEMPLATE,
            self.dims()
        )
    }
}
