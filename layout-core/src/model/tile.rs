//! One level of tiling: `T(8,128)`, `T(2,*,128)`.

use crate::error::{Error, ErrorKind};
use crate::limits::MAX_RANK;

/// One entry of a [`Tile`]: a size, or `*`, which combines that dimension
/// into the next more-minor one before tiling (XLA's
/// `Tile::kCombineDimension`).
///
/// ```
/// use tessera::{Layout, TileDim};
/// let l: Layout = "{2,1,0:T(2,*,128)}".parse()?;
/// let t = l.tiles()[0];
/// assert_eq!(t.dim(0), TileDim::Size(2));
/// assert_eq!(t.dim(1), TileDim::Combined);
/// assert_eq!(TileDim::Combined.to_raw(), 0); // how types and tables write `*`
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileDim {
    /// A tile extent of at least 1.
    Size(usize),
    /// `*`: merge this dimension into the next more-minor one.
    Combined,
}

impl TileDim {
    /// The number that stands for this entry in generic parameters and
    /// tables: the size, or 0 for `*` (0 is never a valid size).
    pub const fn to_raw(self) -> usize {
        match self {
            TileDim::Size(n) => n,
            TileDim::Combined => 0,
        }
    }

    /// The inverse of [`TileDim::to_raw`]: 0 is `*`.
    pub const fn from_raw(raw: usize) -> Self {
        if raw == 0 {
            TileDim::Combined
        } else {
            TileDim::Size(raw)
        }
    }
}

/// One tile level: its entries apply to the most-minor physical dimensions
/// of the shape it tiles (entry `k-1` to the most-minor one).
///
/// Invariant: at least one entry, at most [`MAX_RANK`], no size 0.
///
/// ```
/// use tessera::{Tile, TileDim};
/// let t = Tile::new(&[TileDim::Size(2), TileDim::Combined, TileDim::Size(128)]).unwrap();
/// assert_eq!(t.rank(), 3);
/// assert_eq!(t.dim(1), TileDim::Combined);
/// assert_eq!(t.to_string(), "(2,*,128)");
/// assert!(Tile::from_sizes(&[8, 0]).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tile {
    rank: u8,
    /// Raw entries ([`TileDim::to_raw`]); entries past `rank` are 0.
    dims: [usize; MAX_RANK],
}

impl Tile {
    /// A tile from its entries.
    ///
    /// # Errors
    /// No entries, more than [`MAX_RANK`] entries, or a size of 0.
    pub const fn new(dims: &[TileDim]) -> Result<Tile, Error> {
        if dims.is_empty() {
            return Err(Error::new(ErrorKind::EmptyTile));
        }
        if dims.len() > MAX_RANK {
            return Err(Error::new(ErrorKind::TileRankTooLarge {
                rank: dims.len(),
                max: MAX_RANK,
            }));
        }
        let mut raw = [0usize; MAX_RANK];
        let mut i = 0;
        while i < dims.len() {
            raw[i] = match dims[i] {
                TileDim::Size(0) => return Err(Error::new(ErrorKind::ZeroTileDim)),
                d => d.to_raw(),
            };
            i += 1;
        }
        Ok(Tile {
            rank: dims.len() as u8,
            dims: raw,
        })
    }

    /// A tile of sizes only (no `*`).
    ///
    /// # Errors
    /// As [`Tile::new`].
    pub const fn from_sizes(sizes: &[usize]) -> Result<Tile, Error> {
        if sizes.is_empty() {
            return Err(Error::new(ErrorKind::EmptyTile));
        }
        if sizes.len() > MAX_RANK {
            return Err(Error::new(ErrorKind::TileRankTooLarge {
                rank: sizes.len(),
                max: MAX_RANK,
            }));
        }
        let mut raw = [0usize; MAX_RANK];
        let mut i = 0;
        while i < sizes.len() {
            if sizes[i] == 0 {
                return Err(Error::new(ErrorKind::ZeroTileDim));
            }
            raw[i] = sizes[i];
            i += 1;
        }
        Ok(Tile {
            rank: sizes.len() as u8,
            dims: raw,
        })
    }

    /// A tile from raw entries, where 0 stands for `*` ([`TileDim::from_raw`]).
    ///
    /// # Errors
    /// No entries or more than [`MAX_RANK`].
    pub const fn from_raw(raw: &[usize]) -> Result<Tile, Error> {
        if raw.is_empty() {
            return Err(Error::new(ErrorKind::EmptyTile));
        }
        if raw.len() > MAX_RANK {
            return Err(Error::new(ErrorKind::TileRankTooLarge {
                rank: raw.len(),
                max: MAX_RANK,
            }));
        }
        let mut dims = [0usize; MAX_RANK];
        let mut i = 0;
        while i < raw.len() {
            dims[i] = raw[i];
            i += 1;
        }
        Ok(Tile {
            rank: raw.len() as u8,
            dims,
        })
    }

    /// Number of entries.
    pub const fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Entry `i`.
    ///
    /// # Panics
    /// If `i >= self.rank()`.
    pub const fn dim(&self, i: usize) -> TileDim {
        assert!(i < self.rank as usize, "tile entry index out of range");
        TileDim::from_raw(self.dims[i])
    }

    /// The raw entries, 0 standing for `*`.
    pub const fn raw(&self) -> &[usize] {
        self.dims.split_at(self.rank as usize).0
    }

    /// Whether any entry is `*`.
    pub const fn has_combined_dims(&self) -> bool {
        let mut i = 0;
        while i < self.rank as usize {
            if self.dims[i] == 0 {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The entries, in order.
    pub fn dims(&self) -> impl ExactSizeIterator<Item = TileDim> + '_ {
        self.raw().iter().map(|&r| TileDim::from_raw(r))
    }
}

impl core::fmt::Display for Tile {
    /// XLA's form: `(8,128)`, `(2,*,128)`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("(")?;
        for (i, d) in self.dims().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match d {
                TileDim::Size(n) => write!(f, "{n}")?,
                TileDim::Combined => f.write_str("*")?,
            }
        }
        f.write_str(")")
    }
}
