//! Proptest generators of XLA layouts, shared by tessera's property tests
//! (`tests/reference_model.rs`, `tests/tensor.rs`,
//! `tests/relayout_kernels.rs` and `layout-tensor/tests/packed.rs`).
//! Dev-only: never published.
//!
//! A [`Spec`] is a layout as plain data, printed in XLA's text by its own
//! `Display` (not the engine's printer) and built with the engine's
//! builder API. A [`SpecGen`] says which layouts to draw (element types,
//! ranks, dim sizes, tiles, `*`, `pad(..)`, `L(n)`, `E(n)`) and gives the
//! strategies: [`SpecGen::spec`] for one layout, [`SpecGen::pair`] for two
//! layouts of the same array. [`long_row_pair`] draws pairs of long packed
//! rows; [`sub_tile_pair`] pairs with `(2,1)` and `(4,1)` sub-tiles;
//! [`row_major`] lists an array's indices in logical order.
//!
//! ```
//! use layout_core::PrimitiveType;
//! use proptest::strategy::{Strategy, ValueTree};
//! use proptest::test_runner::TestRunner;
//! use test_support::SpecGen;
//!
//! let generator = SpecGen::new(vec![PrimitiveType::F32]);
//! let mut runner = TestRunner::deterministic();
//! let spec = generator.spec().new_tree(&mut runner).unwrap().current();
//! assert_eq!(spec.layout().to_string(), spec.to_string());
//! ```

use std::fmt;
use std::ops::RangeInclusive;

use layout_core::{
    ArrayLayout, Error, Layout, Padding, PaddingValue, PrimitiveType, Shape, Tile, TileDim,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};

// ---------------------------------------------------------------------------
// Spec: a layout as plain data
// ---------------------------------------------------------------------------

/// A layout as plain data: everything that determines where elements go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// The element type.
    pub ty: PrimitiveType,
    /// Logical dims.
    pub dims: Vec<usize>,
    /// `minor_to_major`: entry 0 is the most minor logical dim.
    pub m2m: Vec<usize>,
    /// Tile levels, first applied first; an entry `None` is `*`.
    pub tiles: Vec<Vec<Option<usize>>>,
    /// `pad(..)` widths by logical dim (padding value zero).
    pub padded: Option<Vec<usize>>,
    /// `L(n)`; 1 for none.
    pub align: usize,
    /// `E(n)`; 0 for the element type's natural width.
    pub e_bits: u32,
}

impl Spec {
    /// A layout without tiles, padding, `L` or `E`.
    pub fn plain(ty: PrimitiveType, dims: &[usize], m2m: &[usize]) -> Spec {
        Spec {
            ty,
            dims: dims.to_vec(),
            m2m: m2m.to_vec(),
            tiles: Vec::new(),
            padded: None,
            align: 1,
            e_bits: 0,
        }
    }

    /// The same layout with these tile levels (`None` is `*`).
    pub fn tiled(mut self, tiles: &[&[Option<usize>]]) -> Spec {
        self.tiles = tiles.iter().map(|t| t.to_vec()).collect();
        self
    }

    /// The engine's view of this layout, built with the builder API (not
    /// the parser).
    pub fn build(&self) -> Result<ArrayLayout, Error> {
        let tiles: Vec<Tile> = self
            .tiles
            .iter()
            .map(|t| {
                let entries: Vec<TileDim> = t
                    .iter()
                    .map(|e| e.map_or(TileDim::Combined, TileDim::Size))
                    .collect();
                Tile::new(&entries)
            })
            .collect::<Result<_, _>>()?;
        let padding = match &self.padded {
            Some(p) => Some(Padding::new(p, PaddingValue::Zero)?),
            None => None,
        };
        let layout = Layout::new(&self.m2m)?
            .with_tiles(&tiles)?
            .with_padding(padding)
            .with_tail_padding_alignment(self.align)?
            .with_element_size_in_bits(self.e_bits);
        let shape = Shape::new(self.ty, &self.dims)?.with_layout(layout)?;
        ArrayLayout::new(shape)
    }

    /// [`Spec::build`] for a layout known to be valid.
    ///
    /// # Panics
    ///
    /// When the engine rejects the layout, naming it and the error.
    pub fn layout(&self) -> ArrayLayout {
        self.build()
            .unwrap_or_else(|e| panic!("{self}: engine rejected: {e}"))
    }

    /// Whether the layout has any attribute (the text has a `:` part).
    fn has_attributes(&self) -> bool {
        !self.tiles.is_empty()
            || self.align != 1
            || self.e_bits != 0
            || self.written_padding().is_some()
    }

    /// The padded dims as written: none for a scalar, whose padding of no
    /// dims pads nothing and which the engine drops.
    fn written_padding(&self) -> Option<&Vec<usize>> {
        self.padded.as_ref().filter(|p| !p.is_empty())
    }
}

/// Writes `items` separated by commas.
fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for Spec {
    /// XLA's text, e.g. `f32[3,5]{1,0:T(2,*,2)L(4)E(32)pad(4,6:zero)}`,
    /// written from the fields (not by the engine's printer, so failure
    /// messages do not depend on the code under test). Default attributes
    /// are left out and a scalar without attributes is `f32[]`, as XLA
    /// prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.ty.name())?;
        write_list(f, &self.dims)?;
        f.write_str("]")?;
        if self.m2m.is_empty() && !self.has_attributes() {
            return Ok(());
        }
        f.write_str("{")?;
        write_list(f, &self.m2m)?;
        if self.has_attributes() {
            f.write_str(":")?;
            if !self.tiles.is_empty() {
                f.write_str("T")?;
                for tile in &self.tiles {
                    f.write_str("(")?;
                    for (i, entry) in tile.iter().enumerate() {
                        if i > 0 {
                            f.write_str(",")?;
                        }
                        match entry {
                            Some(n) => write!(f, "{n}")?,
                            None => f.write_str("*")?,
                        }
                    }
                    f.write_str(")")?;
                }
            }
            if self.align != 1 {
                write!(f, "L({})", self.align)?;
            }
            if self.e_bits != 0 {
                write!(f, "E({})", self.e_bits)?;
            }
            if let Some(p) = self.written_padding() {
                f.write_str("pad(")?;
                write_list(f, p)?;
                f.write_str(":zero)")?;
            }
        }
        f.write_str("}")
    }
}

// ---------------------------------------------------------------------------
// SpecGen: which layouts to draw
// ---------------------------------------------------------------------------

/// Which layouts to draw. Every generated layout is valid.
///
/// [`SpecGen::new`] gives small layouts of the given element types; a
/// test widens or narrows fields with struct update syntax:
///
/// ```
/// # use layout_core::PrimitiveType;
/// # use test_support::SpecGen;
/// let wide = SpecGen {
///     rank: 0..=4,
///     max_dim: 7,
///     ..SpecGen::new(vec![PrimitiveType::F32, PrimitiveType::S4])
/// };
/// ```
///
/// The `*_one_in` fields are odds: `n` means one draw in `n`, 0 never and
/// 1 always.
#[derive(Clone, Debug)]
pub struct SpecGen {
    /// Element types, drawn uniformly.
    pub types: Vec<PrimitiveType>,
    /// Ranks, drawn uniformly.
    pub rank: RangeInclusive<usize>,
    /// Nonzero dim sizes are drawn from `1..=max_dim`.
    pub max_dim: usize,
    /// Odds of a dim of size 0 (which empties the whole array).
    pub zero_dim_one_in: u32,
    /// Tile levels are drawn from `0..=max_tile_levels`; each tile has 1 to
    /// rank + 1 entries.
    pub max_tile_levels: usize,
    /// Tile entries are drawn from `1..=max_tile_size`.
    pub max_tile_size: usize,
    /// Odds of a `*` entry (never the last of a tile).
    pub combined_one_in: u32,
    /// When set, a tile's last entry is this size half the time (e.g. 8,
    /// a whole byte of 1-bit elements).
    pub wide_last_tile: Option<usize>,
    /// When set, half the layouts have `pad(..)`, each logical dim widened
    /// by `0..=max_pad`; `None` for no `pad(..)`.
    pub max_pad: Option<usize>,
    /// `L(n)` is drawn from `1..=max_align` (see `align_one_in`).
    pub max_align: usize,
    /// Odds of drawing `L(n)` from `1..=max_align`; otherwise `L(1)`.
    pub align_one_in: u32,
    /// `E(n)` widths to choose from; those narrower than the element type
    /// are left out, and 0 (no `E(n)`) is always a choice.
    pub e_widths: Vec<u32>,
    /// Odds of choosing `E(n)` (uniformly from 0 and `e_widths`);
    /// otherwise 0.
    pub e_one_in: u32,
}

/// What the second layout of a [`SpecGen::pair`] takes from the first
/// besides the element type and dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairBits {
    /// The same `E(n)`.
    Same,
    /// Its own `E(n)`, drawn for the element type.
    Own,
}

/// The independent draws of one layout, before its `E(n)` is chosen for
/// its element type.
#[derive(Clone, Debug)]
struct Draw {
    ty: PrimitiveType,
    dims: Vec<usize>,
    m2m: Vec<usize>,
    tiles: Vec<Vec<Option<usize>>>,
    extra: Option<Vec<usize>>,
    align: usize,
    /// `(k, i)`: `E(n)` is the `i`-th choice when `k == 0`, else none.
    e_pick: (u32, Index),
}

/// `first` with weight `w_first`, `second` with weight `w_second`; an arm
/// of weight 0 is never drawn, not even while shrinking.
fn weighted<T: fmt::Debug + 'static>(
    w_first: u32,
    first: impl Strategy<Value = T> + 'static,
    w_second: u32,
    second: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<T> {
    match (w_first, w_second) {
        (0, _) => second.boxed(),
        (_, 0) => first.boxed(),
        (a, b) => prop_oneof![a => first, b => second].boxed(),
    }
}

impl SpecGen {
    /// Small layouts of `types`: rank 0..=3, dims 0..=6 (0 one time in 9),
    /// any `minor_to_major`, up to 3 tile levels with entries 1..=4 (`*`
    /// one time in 7), `pad(..)` widening each dim by 0..=2 half the time,
    /// `L(1..=4)` one time in 4, no `E(n)`.
    pub fn new(types: Vec<PrimitiveType>) -> SpecGen {
        SpecGen {
            types,
            rank: 0..=3,
            max_dim: 6,
            zero_dim_one_in: 9,
            max_tile_levels: 3,
            max_tile_size: 4,
            combined_one_in: 7,
            wide_last_tile: None,
            max_pad: Some(2),
            max_align: 4,
            align_one_in: 4,
            e_widths: Vec::new(),
            e_one_in: 0,
        }
    }

    /// One tile of `k` entries.
    fn tile(&self, k: usize) -> BoxedStrategy<Vec<Option<usize>>> {
        let sizes = 1..=self.max_tile_size;
        let c = self.combined_one_in;
        let entry = weighted(
            c.saturating_sub(1),
            sizes.clone().prop_map(Some),
            u32::from(c > 0),
            Just(None),
        );
        let last = match self.wide_last_tile {
            Some(w) => prop_oneof![sizes, Just(w)].boxed(),
            None => sizes.boxed(),
        };
        (vec(entry, k - 1), last)
            .prop_map(|(mut v, last)| {
                v.push(Some(last));
                v
            })
            .boxed()
    }

    /// Everything but `E(n)`.
    fn draw(&self) -> impl Strategy<Value = Draw> + use<> {
        assert!(!self.types.is_empty(), "SpecGen::types is empty");
        let g = self.clone();
        self.rank.clone().prop_flat_map(move |rank| {
            let z = g.zero_dim_one_in;
            let dim = weighted(
                u32::from(z > 0),
                Just(0usize),
                z.saturating_sub(1),
                1..=g.max_dim,
            );
            let m2m = Just((0..rank).collect::<Vec<usize>>()).prop_shuffle();
            let tg = g.clone();
            let tiles = vec(
                (1..=rank + 1).prop_flat_map(move |k| tg.tile(k)),
                0..=g.max_tile_levels,
            );
            let extra = match g.max_pad {
                Some(m) => proptest::option::of(vec(0..=m, rank)).boxed(),
                None => Just(None).boxed(),
            };
            let a = g.align_one_in;
            let align = weighted(
                a.saturating_sub(1),
                Just(1usize),
                u32::from(a > 0),
                1..=g.max_align,
            );
            let ty = select(g.types.clone());
            let e_pick = (0..g.e_one_in.max(1), any::<Index>());
            (vec(dim, rank), m2m, tiles, extra, align, ty, e_pick).prop_map(
                |(dims, m2m, tiles, extra, align, ty, e_pick)| Draw {
                    ty,
                    dims,
                    m2m,
                    tiles,
                    extra,
                    align,
                    e_pick,
                },
            )
        })
    }

    /// The layout of `draw` with element type `ty` and an `E(n)` chosen
    /// for it.
    fn finish(&self, draw: Draw, ty: PrimitiveType) -> Spec {
        let padded = draw
            .extra
            .map(|x| draw.dims.iter().zip(&x).map(|(d, x)| d + x).collect());
        let (k, i) = draw.e_pick;
        let e_bits = if self.e_one_in > 0 && k == 0 {
            let mut choices = vec![0];
            choices.extend(
                self.e_widths
                    .iter()
                    .copied()
                    .filter(|&b| b >= ty.bit_width()),
            );
            *i.get(&choices)
        } else {
            0
        };
        Spec {
            ty,
            dims: draw.dims,
            m2m: draw.m2m,
            tiles: draw.tiles,
            padded,
            align: draw.align,
            e_bits,
        }
    }

    /// One layout.
    pub fn spec(&self) -> impl Strategy<Value = Spec> + use<> {
        let g = self.clone();
        self.draw().prop_map(move |d| {
            let ty = d.ty;
            g.finish(d, ty)
        })
    }

    /// Two layouts of the same logical array (element type and dims), the
    /// second drawn independently: its rank, tiles and `pad(..)` are
    /// drawn for a rank of its own, then it takes the first's dims, its
    /// `minor_to_major` when the ranks differ (reversed), and keeps its
    /// `pad(..)` only when the ranks agree (widened to the dims).
    pub fn pair(&self, bits: PairBits) -> impl Strategy<Value = (Spec, Spec)> + use<> {
        let g = self.clone();
        (self.draw(), self.draw()).prop_map(move |(a, b)| {
            let ty = a.ty;
            let a = g.finish(a, ty);
            let mut b = g.finish(b, ty);
            let rank = a.dims.len();
            if bits == PairBits::Same {
                b.e_bits = a.e_bits;
            }
            b.dims = a.dims.clone();
            if b.m2m.len() != rank {
                b.m2m = a.m2m.iter().rev().copied().collect();
            }
            b.padded = b
                .padded
                .filter(|p| p.len() == rank)
                .map(|p| p.iter().zip(&a.dims).map(|(p, d)| (*p).max(*d)).collect());
            (a, b)
        })
    }
}

/// Two row-major layouts `[rows, cols]` (rows 1..=3, cols 0..=40) of one
/// of `types`, each packed at the type's own width (`E(bit width)`) and
/// padded to some row length by a `T(1,k)` tile (k 1..=48) or not tiled:
/// a relayout's runs are long and start at every bit phase.
pub fn long_row_pair(types: Vec<PrimitiveType>) -> impl Strategy<Value = (Spec, Spec)> {
    (select(types), 1usize..=3, 0usize..=40).prop_flat_map(|(ty, rows, cols)| {
        let one = move |tile: Option<usize>| Spec {
            tiles: tile
                .map(|k| vec![vec![Some(1), Some(k)]])
                .unwrap_or_default(),
            e_bits: ty.bit_width(),
            ..Spec::plain(ty, &[rows, cols], &[1, 0])
        };
        let tile = proptest::option::of(1usize..=48);
        (tile.clone(), tile).prop_map(move |(a, b)| (one(a), one(b)))
    })
}

/// Two layouts of one array of `[y, x]` or `[z, y, x]` (dims
/// 1..=`max_dim`) of one of `types`, one of them in sub-tiles of `f` rows
/// (`f` 2 or 4) under tiles of `f k` rows (`k` 1..=4) and `c` columns
/// (1..=40, or 16, 32, 64 or 128, the widths a vector kernel takes
/// whole): `{.., T(f k, c)(f, 1)}`, like XLA's `T(8,128)(2,1)` and
/// `T(32,128)(4,1)`; the other with the same `minor_to_major` three
/// times in four (else reversed), untiled or in a plain tile. In either
/// order: the packs and unpacks of sub-word interleaves, at shapes with
/// partial tiles and sub-tiles, and some transposes.
pub fn sub_tile_pair(
    types: Vec<PrimitiveType>,
    max_dim: usize,
) -> impl Strategy<Value = (Spec, Spec)> {
    let cols = prop_oneof![1usize..=40, select(vec![16usize, 32, 64, 128])];
    let plain_tile = proptest::option::of((1usize..=8, 1usize..=40));
    (
        select(types),
        vec(1..=max_dim, 2..=3),
        select(vec![2usize, 4]),
        1usize..=4,
        cols,
        plain_tile,
        0u8..4,
        any::<bool>(),
    )
        .prop_map(|(ty, dims, f, k, c, plain_tile, m2m_pick, flip)| {
            let m2m: Vec<usize> = (0..dims.len()).rev().collect();
            let tiled = Spec {
                tiles: vec![vec![Some(f * k), Some(c)], vec![Some(f), Some(1)]],
                ..Spec::plain(ty, &dims, &m2m)
            };
            let other_m2m: Vec<usize> = match m2m_pick {
                0 => m2m.iter().rev().copied().collect(),
                _ => m2m,
            };
            let mut other = Spec::plain(ty, &dims, &other_m2m);
            if let Some((r, c)) = plain_tile {
                other.tiles = vec![vec![Some(r), Some(c)]];
            }
            match flip {
                true => (tiled, other),
                false => (other, tiled),
            }
        })
}

/// Every index of an array of `dims`, in row-major (logical) order.
pub fn row_major(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; dims.len()];
            for d in (0..dims.len()).rev() {
                idx[d] = k % dims[d];
                k /= dims[d];
            }
            idx
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::Config;

    /// The widest generator the tests use (`tests/reference_model.rs`).
    fn wide() -> SpecGen {
        SpecGen {
            rank: 0..=4,
            max_dim: 7,
            zero_dim_one_in: 8,
            max_tile_size: 5,
            combined_one_in: 5,
            wide_last_tile: Some(8),
            max_pad: Some(3),
            max_align: 5,
            align_one_in: 3,
            e_widths: vec![1, 2, 4, 8, 16, 32, 64, 128],
            e_one_in: 2,
            ..SpecGen::new(
                PrimitiveType::ALL
                    .into_iter()
                    .filter(|t| t.is_array())
                    .collect(),
            )
        }
    }

    proptest! {
        #![proptest_config(Config { cases: 1000, failure_persistence: None, ..Config::default() })]

        /// `Display` is the engine's printed form of the built layout, and
        /// the engine parses it back to the same layout (a scalar's padding
        /// of no dims included: the engine drops it).
        #[test]
        fn display_is_xla_text(spec in wide().spec()) {
            let built = spec.layout();
            prop_assert_eq!(spec.to_string(), built.to_string());
            let parsed: ArrayLayout = spec.to_string().parse().unwrap();
            prop_assert_eq!(parsed, built, "{}", spec);
        }

        /// Both layouts of a pair are valid and hold the same array.
        #[test]
        fn pairs_share_the_array((a, b) in wide().pair(PairBits::Own)) {
            let (la, lb) = (a.layout(), b.layout());
            prop_assert_eq!(la.element_type(), lb.element_type());
            prop_assert_eq!(la.sizes(), lb.sizes());
        }
    }

    #[test]
    fn display_of_plain_and_tiled() {
        let s = Spec::plain(PrimitiveType::F32, &[3, 5], &[1, 0]);
        assert_eq!(s.to_string(), "f32[3,5]{1,0}");
        let mut t = s.tiled(&[&[Some(2), None, Some(2)], &[Some(2), Some(1)]]);
        t.align = 4;
        t.e_bits = 32;
        t.padded = Some(vec![4, 6]);
        assert_eq!(
            t.to_string(),
            "f32[3,5]{1,0:T(2,*,2)(2,1)L(4)E(32)pad(4,6:zero)}"
        );
        assert_eq!(Spec::plain(PrimitiveType::S4, &[], &[]).to_string(), "s4[]");
    }
}
