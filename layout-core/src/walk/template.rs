//! [`NestTemplate`]: a relayout [`LoopNest`] built once for every size of
//! the dims that two layouts know only at run time.
//!
//! A relayout nest depends on the sizes of the logical dims in two ways:
//! the strides (products of physical sizes) and the trip counts. When a
//! run-time dim (`?` or `<=N`) is the most major of both layouts, as in
//! the usual "rows at run time" layout, no stride depends on it, and the
//! trip counts are already computed from the sizes as the walk enters
//! each level ([`LoopNest::for_each_volume`]). So one nest, built while
//! compiling, serves every size; a call only fills in the sizes.
//!
//! ```text
//! f32[?,1024]{1,0} → f32[?,1024]{1,0:T(8,128)}
//!
//!   level    extent       strides [src, dst]
//!   y / 8    (any)        [8192, 8192]    trips ceil((rows - base) / 8)
//!   x / 128  8            [128, 1024]
//!   y % 8    8            [1024, 128]     trips min(8, rows - base)
//!   x % 128  128          [1, 1]
//! ```

use crate::array::ArrayLayout;
use crate::layouts::mixed_layout::{probe_extents, tile_span};
use crate::limits::MAX_RANK;
use crate::model::shape::{Dim, Shape};
use crate::walk::{Level, LoopNest};

/// A relayout [`LoopNest`] for two layouts whose dims may be known only at
/// run time, built from their templates (XLA's text with `?` and `<=N`,
/// as `tessera::layout!` types carry it), valid for every size those dims
/// take. [`NestTemplate::nest`] fills in the sizes.
///
/// ```
/// use tessera::walk::{LoopNest, NestTemplate};
/// use tessera::{ArrayLayout, Shape};
/// let src: Shape = "f32[?,1024]{1,0}".parse().unwrap();
/// let dst: Shape = "f32[?,1024]{1,0:T(8,128)}".parse().unwrap();
/// let template = NestTemplate::relayout(&src, &dst).unwrap();
/// // For 20 rows: the nest the engine builds for the concrete layouts
/// // visits the same elements in the same order.
/// let nest = template.nest(&[20, 1024], &[20, 1024]).unwrap();
/// let a: ArrayLayout = "f32[20,1024]{1,0}".parse().unwrap();
/// let b: ArrayLayout = "f32[20,1024]{1,0:T(8,128)}".parse().unwrap();
/// let built = LoopNest::relayout(&a, &b).unwrap().unwrap();
/// let runs = |n: &LoopNest| {
///     let mut v = Vec::new();
///     n.for_each_run(|start, len| v.push((start, len)));
///     v
/// };
/// assert_eq!(runs(&nest), runs(&built));
/// assert!(template.nest(&[20, 1024], &[21, 1024]).is_none()); // sizes differ
/// assert!(template.nest(&[20, 512], &[20, 512]).is_none()); // not the static dim
///
/// // A `?` minor dim sets the row stride: no template, a nest per call.
/// let src: Shape = "f32[8,?]{1,0}".parse().unwrap();
/// let dst: Shape = "f32[8,?]{1,0:T(8,128)}".parse().unwrap();
/// assert!(NestTemplate::relayout(&src, &dst).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NestTemplate {
    nest: LoopNest,
    /// Per logical dim, what both layouts allow: a static size, a bound,
    /// or any size.
    dims: [Dim; MAX_RANK],
}

/// The dims both templates allow, or `None` for a pair this module does
/// not cover (static sizes that differ, `?` against `<=N`, two different
/// bounds, a static size against a bound): their nests are built per
/// call.
const fn common_dims(src: &Shape, dst: &Shape) -> Option<[Dim; MAX_RANK]> {
    if src.rank() != dst.rank() || src.element_type() as u32 != dst.element_type() as u32 {
        return None;
    }
    let mut out = [Dim::Static(0); MAX_RANK];
    let mut d = 0;
    while d < src.rank() {
        out[d] = match (src.dims()[d], dst.dims()[d]) {
            (Dim::Static(a), Dim::Static(b)) if a == b => Dim::Static(a),
            (Dim::Static(a), Dim::Unbounded) | (Dim::Unbounded, Dim::Static(a)) => Dim::Static(a),
            (Dim::Bounded(a), Dim::Bounded(b)) if a == b => Dim::Bounded(a),
            (Dim::Unbounded, Dim::Unbounded) => Dim::Unbounded,
            _ => return None,
        };
        d += 1;
    }
    Some(out)
}

/// Two extents for the `?` dims that suit the tiles of both layouts
/// ([`probe_extents`], as [`MixedLayout`](crate::MixedLayout) probes).
const fn probes(src: &Shape, dst: &Shape) -> [usize; 2] {
    const fn span(shape: &Shape) -> usize {
        match shape.layout() {
            Some(l) => tile_span(l.tiles()),
            None => 1,
        }
    }
    probe_extents(span(src).saturating_mul(span(dst)))
}

/// `template` as the engine's layout with the `common` dims, each `?` of
/// them at `probe` (a `<=N` dim keeps its bound's size and room).
const fn instantiate(
    template: &Shape,
    common: &[Dim; MAX_RANK],
    probe: usize,
) -> Option<ArrayLayout> {
    let rank = template.rank();
    let mut dims = [Dim::Static(0); MAX_RANK];
    let mut d = 0;
    while d < rank {
        dims[d] = match common[d] {
            Dim::Unbounded => Dim::Static(probe),
            other => other,
        };
        d += 1;
    }
    let layout = match template.layout() {
        Some(l) => *l,
        None => return None,
    };
    let shape =
        match Shape::without_layout_from_dims(template.element_type(), dims.split_at(rank).0) {
            Ok(s) => s,
            Err(_) => return None,
        };
    let shape = match shape.with_layout(layout) {
        Ok(s) => s,
        Err(_) => return None,
    };
    match ArrayLayout::new(shape) {
        Ok(l) => Some(l),
        Err(_) => None,
    }
}

/// The relayout nest of `src` and `dst` with the `common` dims, each `?`
/// of them at `probe`.
const fn nest_at(
    src: &Shape,
    dst: &Shape,
    common: &[Dim; MAX_RANK],
    probe: usize,
) -> Option<LoopNest> {
    let (a, b) = match (
        instantiate(src, common, probe),
        instantiate(dst, common, probe),
    ) {
        (Some(a), Some(b)) => (a, b),
        _ => return None,
    };
    match LoopNest::relayout(&a, &b) {
        Ok(Some(nest)) => Some(nest),
        _ => None,
    }
}

/// Whether level `i` of `levels` counts the most significant digit of its
/// dim (no other level of that dim has a larger `div`).
const fn is_top_digit(levels: &[Level], i: usize) -> bool {
    let mut j = 0;
    while j < levels.len() {
        if levels[j].dim == levels[i].dim && levels[j].div > levels[i].div {
            return false;
        }
        j += 1;
    }
    true
}

impl NestTemplate {
    /// The template of the relayout from `src` to `dst`, two layouts of the
    /// same element type and rank whose dims may be `?` or `<=N`. `None`
    /// when no nest serves every size:
    ///
    /// - the dims do not pair up: each dim must be static in both with the
    ///   same size, static in one and `?` in the other, `?` in both, or
    ///   `<=N` in both with the same bound;
    /// - a stride depends on a `?` dim (a `?` dim that is not the most
    ///   major of both layouts, such as `f32[8,?]{1,0:T(8,128)}`);
    /// - no nest exists at all ([`LoopNest::relayout`] gives `None`).
    ///
    /// Callers then build the nest per call with [`LoopNest::relayout`].
    ///
    /// The nest is built at two extents of the `?` dims, larger than every
    /// tile, and kept when both give the same levels and strides; a
    /// stride that depended on a `?` dim would differ between them. The
    /// most significant level of each `?` or `<=N` dim gets an unbounded
    /// extent, since the walk's trip counts come from the sizes.
    pub const fn relayout(src: &Shape, dst: &Shape) -> Option<NestTemplate> {
        let dims = match common_dims(src, dst) {
            Some(d) => d,
            None => return None,
        };
        let [p1, p2] = probes(src, dst);
        let (mut nest, other) = match (nest_at(src, dst, &dims, p1), nest_at(src, dst, &dims, p2)) {
            (Some(a), Some(b)) => (a, b),
            _ => return None,
        };
        if nest.len != other.len {
            return None;
        }
        let mut i = 0;
        while i < nest.len {
            let (l, o) = (nest.levels[i], other.levels[i]);
            if l.dim != o.dim
                || l.div != o.div
                || l.strides[0] != o.strides[0]
                || l.strides[1] != o.strides[1]
            {
                return None; // a stride that follows a `?` dim
            }
            let dynamic = !matches!(dims[l.dim], Dim::Static(_));
            if dynamic && is_top_digit(nest.levels(), i) {
                nest.levels[i].extent = usize::MAX;
            } else if l.extent != o.extent {
                return None;
            }
            i += 1;
        }
        Some(NestTemplate { nest, dims })
    }

    /// The nest for a source of logical dims `src_sizes` and a destination
    /// of `dst_sizes`, or `None` when the two differ or do not fit the
    /// templates (a static dim of another size, a bound exceeded, another
    /// rank, or an element count above `usize::MAX`). Callers then build
    /// the nest with [`LoopNest::relayout`], which says what is wrong.
    #[inline(always)]
    pub const fn nest(&self, src_sizes: &[usize], dst_sizes: &[usize]) -> Option<LoopNest> {
        let rank = self.nest.rank;
        if src_sizes.len() != rank || dst_sizes.len() != rank {
            return None;
        }
        // Filled in where it is returned, from a copy of the levels in use.
        let mut out = Some(LoopNest::CLEARED);
        if let Some(nest) = &mut out {
            self.nest.copy_into(nest);
            if !self.fill_sizes(nest, src_sizes, dst_sizes) {
                out = None;
            }
        }
        out
    }

    /// Sets `nest`'s sizes to `src_sizes` and whether each level meets a
    /// partial tile; `false` when the sizes differ or do not fit.
    const fn fill_sizes(
        &self,
        nest: &mut LoopNest,
        src_sizes: &[usize],
        dst_sizes: &[usize],
    ) -> bool {
        let rank = self.nest.rank;
        let mut count = 1usize;
        let mut d = 0;
        while d < rank {
            let size = src_sizes[d];
            let fits = match self.dims[d] {
                Dim::Static(n) => size == n,
                Dim::Bounded(n) => size <= n,
                Dim::Unbounded => true,
            };
            if !fits || dst_sizes[d] != size {
                return false;
            }
            nest.sizes[d] = size;
            count = match count.checked_mul(size) {
                Some(c) => c,
                None => return false,
            };
            d += 1;
        }
        nest.element_count = count;
        // Whether a level meets a partial tile depends on the sizes.
        let mut k = 0;
        while k < nest.len {
            let l = nest.levels[k];
            nest.levels[k].whole = nest.whole(l.dim, l.div, l.extent);
            k += 1;
        }
        true
    }
}
