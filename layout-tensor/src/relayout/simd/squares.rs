//! The vector blocks of packed transposes by squares of fields
//! ([`crate::packed`]'s `squares`): 16 source rows of 16 bytes in SSE2's
//! vectors, or 32 rows in AVX2's when the CPU has it
//! ([`has_avx2`]).
//!
//! A block's source rows hold `k = 8 / n` slots of `n` bits per byte
//! along the source's contiguous level; each group of `k` rows has its
//! squares' fields transposed in its vectors ([`Mix::vectors`]), which
//! leaves byte `q` of vector `e` of group `g` the destination byte of row
//! `k q + e` at byte `g`; a 16 × 16 transpose of the bytes
//! ([`transpose_bytes`]), the vectors taken `e` by `e`, gives each
//! destination row its `16 / k` bytes of the block in one vector.
//!
//! With AVX2, lane 0 of each vector holds 16 bytes of one of rows `0..16`
//! and lane 1 the same bytes of row `16 + t`: the field mix and the byte
//! transpose (unpacks within lanes) make of each lane what SSE2 makes of
//! its 16 rows, and a permute of 8-byte quarters (`vpermq`), with a byte
//! shuffle within lanes for `k` of 4 and 8, puts each destination row's
//! `32 / k` bytes side by side: half the shuffles per byte, and stores
//! twice as wide.
//!
//! A tile goes in bands of destination rows ([`BAND_SPAN`]), and a band
//! in blocks of source rows that each take the band's whole height, so
//! that each source line is read whole while it is in the L1 cache (its
//! four 16-byte pieces in consecutive blocks). Timed in turns with the
//! SSE2 kernel that went a block of rows at a time across the tile's
//! source rows (commit 2c98cbc, against 92e6c18), times over `memcpy`'s,
//! medians of 500 in a scratch harness, two rounds: `s4[2048,1024]` → `{0,1:E(4)}` (1
//! MiB) 4.4–4.5 against 5.4–5.5, `s4[2000,1000]` 4.7 against 5.5,
//! `s4[1024,4096]` 5.6–5.7 against 8.2–8.3, its reverse 4.5 against 5.4,
//! `u2[2048,2048]` 6.0–6.7 against 6.9–7.8, `pred[4096,2048]` 10.5
//! against 12.6–12.8; at 16 MiB (`s4[32768,1024]`) 4.7–4.8 against
//! 4.5–4.8. Tried and not kept: AVX-512's four lanes (64 rows a block,
//! 4.4 against AVX2's 4.3–4.4 at 1 MiB), and prefetching the next
//! tile's or block's source lines or the next tile's destination lines
//! (each slower, 4.5 to 5.2–5.7).
//!
//! Rows that start mid-byte go through the stage: source rows realigned
//! into it a band at a time ([`realign`]), destination rows shifted out
//! of it a row at a time ([`write_shifted_row`]), their first and last
//! bytes merged with the slots around them.
//!
//! Loads and stores are of slices, checked once per block (once per row
//! where the source rows come in groups, [`BlockRows`]); the `unsafe`
//! code is the vector instructions, and the call into the function
//! compiled for AVX2. `.ci/run` runs this module's tests under Miri, with
//! and without AVX2 enabled.

use core::arch::x86_64::__m128i;

use crate::packed::{BlockRows, copy_shifted_run, realign};
use crate::relayout::isa::has_avx2;
use crate::relayout::mix::{Fields, Mix};
use crate::relayout::simd::{transpose_bytes, transpose_lanes};
use crate::relayout::stream::copy_streamed;

/// Slots of a tile along each level, as [`crate::packed`]'s `squares`
/// tiles them: 128 source rows of up to 128 slots, into 128 destination
/// rows of up to 128 slots.
pub(crate) const TILE: usize = 128;

/// Where [`tile`] gathers a tile's destination rows, and its source rows
/// where they go through the stage: [`TILE`] rows of `TILE / K` bytes
/// each (8 KiB for `K = 2`), made once per copy and reused by each tile.
pub(crate) struct Stage {
    dst: [u8; TILE * TILE / 2],
    /// A tile's source rows realigned to start a byte, when they start
    /// mid-byte.
    src: [u8; TILE * TILE / 2],
    /// Where a tile's source rows start, when they come in groups.
    starts: [usize; TILE],
}

impl Stage {
    /// A stage of zeros.
    pub(crate) fn new() -> Stage {
        Stage {
            dst: [0; TILE * TILE / 2],
            src: [0; TILE * TILE / 2],
            starts: [0; TILE],
        }
    }
}

/// The squares of a tile (`place`, [`TilePlace`]): slots `is[0]..is[1]`
/// (multiples of `K`, at most [`TILE`] apart) along the destination's
/// rows and `rs[0]..rs[1]` (multiples of `K`, at most [`TILE`] apart)
/// along the source's. `rows`, `[src_rows, dst_rows]`, are where the
/// nest's block has its rows in each buffer, in slots: source row `i` at
/// slot `src_rows.at(i)`, destination row `r` at slot `dst_rows.at(r)`. Source rows that start mid-byte, and
/// tiles whose extents are not whole vector blocks (16 source rows, `16
/// K` slots of them), go through the stage a band at a time
/// ([`realign`]), where the last block of each extent reads stale bytes
/// past it into destination bytes that are not written out. Destination
/// rows that start mid-byte are written out shifted, their first and
/// last bytes merged ([`copy_shifted_run`]).
///
/// Blocks of 16 or 32 source rows take a band's whole height at a time,
/// so that each source line is read in turn while it is in the L1 cache:
/// a tile's source rows are a row apart, and with rows 512 bytes apart
/// its 128 rows fall in 8 of the cache's sets, twice what those sets
/// hold. The tile's destination rows are staged in `stage`, and then
/// written out a row at a time: written straight, they are a row stride
/// apart, often a multiple of 4 KiB and so in one cache set, and each
/// line was written in pieces, evicted between them (an `s4` transpose
/// of 1 MiB took 58 times `memcpy`'s time).
///
/// # Panics
/// If a block reaches past `src` or `out` (the caller's nest is checked
/// against both).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn tile<const K: usize, const N: u32>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    place: TilePlace,
) where
    Fields<N>: Mix<u8>,
{
    let TilePlace { rows, is, rs, .. } = place;
    if is[1] <= is[0] || rs[1] <= rs[0] {
        return;
    }
    // Source rows in groups read their starts from a table; rows all a
    // stride apart, a multiple of it; rows that start mid-byte, and tiles
    // at the edges, whose last block is part of one, through the stage
    // (each kernel compiled for one).
    let [src_rows, dst_rows] = rows;
    let whole = (is[1] - is[0]).is_multiple_of(16) && (rs[1] - rs[0]).is_multiple_of(16 * K);
    let aligned = whole && src_rows.on_bytes(K);
    let rows = match aligned {
        true => [src_rows.in_bytes(K), dst_rows],
        false => rows,
    };
    tile_with::<K, N>(
        has_avx2(),
        src,
        out,
        stage,
        TilePlace { rows, ..place },
        aligned,
    );
}

/// Where a [`tile`] lies: its block's rows in each buffer (`rows`, in
/// slots; the source's in bytes where [`tile_with`] is told they are
/// aligned), and its slots along the destination's rows (`is`) and along
/// the source's (`rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TilePlace {
    pub(crate) rows: [BlockRows; 2],
    pub(crate) is: [usize; 2],
    pub(crate) rs: [usize; 2],
    /// Whether destination pieces that are whole lines starting on one
    /// take streaming stores ([`copy_streamed`]; the caller fences).
    pub(crate) stream: bool,
}

/// [`tile`] with AVX2's vectors or not (`avx2`, which the CPU has when
/// true), the source's rows in bytes where they are `aligned`, in slots
/// where not (the destination's in slots).
#[cfg_attr(not(debug_assertions), inline(always))]
fn tile_with<const K: usize, const N: u32>(
    avx2: bool,
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    place: TilePlace,
    aligned: bool,
) where
    Fields<N>: Mix<u8>,
{
    match (aligned, place.rows[0].per == usize::MAX) {
        // SAFETY: the CPU has AVX2.
        (true, true) if avx2 => unsafe { wide_tile::<K, N, false, false>(src, out, stage, place) },
        // SAFETY: as above.
        (true, false) if avx2 => unsafe { wide_tile::<K, N, true, false>(src, out, stage, place) },
        // SAFETY: as above.
        (false, _) if avx2 => unsafe { wide_tile::<K, N, false, true>(src, out, stage, place) },
        (true, true) => narrow_tile::<K, N, false, false>(src, out, stage, place),
        (true, false) => narrow_tile::<K, N, true, false>(src, out, stage, place),
        (false, _) => narrow_tile::<K, N, false, true>(src, out, stage, place),
    }
}

/// [`tile`] in SSE2's vectors.
#[cfg_attr(not(debug_assertions), inline(always))]
fn narrow_tile<const K: usize, const N: u32, const GROUPED: bool, const SHIFTED: bool>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    place: TilePlace,
) where
    Fields<N>: Mix<u8>,
{
    let width = place.is[1] - place.is[0];
    staged::<K, GROUPED, SHIFTED>(src, out, stage, place, |src, from, stage, height| {
        narrow_blocks::<K, N, GROUPED>(src, from, stage, height, [0, width]);
    });
}

/// SSE2's blocks of 16 source rows, the tile's rows `is[0]..is[1]` of a
/// band `height` slots high, into the stage.
#[cfg_attr(not(debug_assertions), inline(always))]
fn narrow_blocks<const K: usize, const N: u32, const GROUPED: bool>(
    src: &[u8],
    from: SourceRows<'_, K, GROUPED>,
    stage: &mut [u8],
    height: usize,
    is: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    for i in (is[0]..is[1]).step_by(16) {
        for_each_block::<K>(height, |r| {
            let to = [r * (TILE / K) + i / K, TILE / K];
            block::<K, N>(src, from.rows(i, r), stage, to);
        });
    }
}

/// [`tile`] in AVX2's vectors: source rows 32 at a time, the rest 16 at
/// a time in SSE2's.
///
/// # Safety
/// The CPU has AVX2.
#[target_feature(enable = "avx2")]
unsafe fn wide_tile<const K: usize, const N: u32, const GROUPED: bool, const SHIFTED: bool>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    place: TilePlace,
) where
    Fields<N>: Mix<u8>,
{
    let width = place.is[1] - place.is[0];
    staged::<K, GROUPED, SHIFTED>(src, out, stage, place, |src, from, stage, height| {
        let pairs = width / 32 * 32;
        for i in (0..pairs).step_by(32) {
            for_each_block::<K>(height, |r| {
                let to = [r * (TILE / K) + i / K, TILE / K];
                // SAFETY: this function's caller's CPU has AVX2.
                unsafe { wide_block::<K, N>(src, from.rows(i, r), stage, to) };
            });
        }
        narrow_blocks::<K, N, GROUPED>(src, from, stage, height, [pairs, width]);
    });
}

/// `f(r)` for the start `r` of each block of `16 K` slots of a band
/// `height` slots high, counted from the band's first.
#[cfg_attr(not(debug_assertions), inline(always))]
fn for_each_block<const K: usize>(height: usize, mut f: impl FnMut(usize)) {
    for r in (0..height).step_by(16 * K) {
        f(r);
    }
}

/// A band's source rows: where each of the tile's rows starts (from a
/// table where they come in groups, `GROUPED`, else a stride apart from
/// the first), and the band's first byte along them.
#[derive(Clone, Copy)]
struct SourceRows<'a, const K: usize, const GROUPED: bool> {
    starts: &'a [usize; TILE],
    first: usize,
    stride: usize,
    column: usize,
}

impl<'a, const K: usize, const GROUPED: bool> SourceRows<'a, K, GROUPED> {
    /// The rows of a block from the tile's source row `i`, at the band's
    /// slot `r`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn rows(self, i: usize, r: usize) -> BlockSource<'a> {
        let column = self.column + r / K;
        match GROUPED {
            true => BlockSource {
                starts: Some(&self.starts[i..]),
                first: column,
                stride: 0,
            },
            false => BlockSource {
                starts: None,
                first: self.first + i * self.stride + column,
                stride: self.stride,
            },
        }
    }
}

/// A block's source rows: row `t` at `first + t * stride`, or, with
/// `starts`, at `starts[t] + first`.
#[derive(Clone, Copy)]
struct BlockSource<'a> {
    starts: Option<&'a [usize]>,
    first: usize,
    stride: usize,
}

impl BlockSource<'_> {
    /// 16 bytes of each of `L` rows, from row `offset` on.
    ///
    /// # Panics
    /// If a row reaches past `src`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn load<const L: usize>(self, src: &[u8], offset: usize) -> [__m128i; L] {
        let read = |bytes: &[u8]| bytemuck::pod_read_unaligned::<__m128i>(&bytes[..16]);
        match self.starts {
            // The block's span checked once.
            None => {
                let from = self.first + offset * self.stride;
                let src = &src[from..from + (L - 1) * self.stride + 16];
                core::array::from_fn(|t| read(&src[t * self.stride..]))
            }
            Some(starts) => core::array::from_fn(|t| read(&src[starts[offset + t] + self.first..])),
        }
    }
}

/// Bytes of the destination that one band of a tile's rows may span
/// ([`staged`]): 128 KiB, 32 pages.
///
/// A band's destination rows are written out together, each on its own
/// page where rows are 4 KiB apart. Bands of 128 rows read as follows on
/// the machine of `BENCHMARKS.md` (times over `memcpy`'s, in turns with
/// bands of 32 rows, a block's): `s4` transposes whose destination rows
/// are 512 bytes or 1 KiB apart took 5.3 and 4.3 against 7.8 and 5.8,
/// and those with rows 2 and 4 KiB apart 9.2 and 14.3 against 7.2 and
/// 10.5 (`s4[4096,2048]`, `s4[8192,1024]`). Our reading, not verified,
/// is the data TLB: a band of 128 rows 4 KiB apart writes to 128 pages,
/// more than the first-level TLB holds.
const BAND_SPAN: usize = 128 << 10;

/// The stage and its write-out of [`tile`], in bands of `16 K` to
/// [`TILE`] rows (as many as span at most [`BAND_SPAN`] of the
/// destination): `blocks(src, from, stage, height)` fills `stage` with a
/// band `height` rows high (its row `r` at byte `r * TILE / K`; the
/// blocks from the tile's source row `i` at the band's slot `r` where
/// [`from.rows(i, r)`](SourceRows::rows) says: in `src`, or in the
/// stage's realigned rows), whose rows then go to the destination
/// (`dst_rows` in slots): copied where they start on a byte, shifted
/// where not.
#[cfg_attr(not(debug_assertions), inline(always))]
fn staged<const K: usize, const GROUPED: bool, const SHIFTED: bool>(
    src: &[u8],
    out: &mut [u8],
    stage: &mut Stage,
    place: TilePlace,
    mut blocks: impl FnMut(&[u8], SourceRows<'_, K, GROUPED>, &mut [u8], usize),
) {
    let TilePlace {
        rows: [src_rows, dst_rows],
        is,
        rs,
        stream,
    } = place;
    let width = (is[1] - is[0]) / K;
    let Stage {
        dst: stage,
        src: aligned,
        starts,
    } = stage;
    if GROUPED {
        src_rows.fill(&mut starts[..is[1] - is[0]], is[0]);
    }
    let starts = &*starts;
    let band = (BAND_SPAN / (dst_rows.row / K).max(1)).clamp(16 * K, TILE) / (16 * K) * (16 * K);
    let stage = &mut stage[..TILE * (TILE / K)];
    for r in (rs[0]..rs[1]).step_by(band) {
        let height = band.min(rs[1] - r);
        if SHIFTED {
            // The band of each source row (`src_rows` in slots), from
            // where it starts in its byte to the stage's rows.
            for (i, row) in aligned
                .chunks_exact_mut(TILE / K)
                .take(is[1] - is[0])
                .enumerate()
            {
                realign::<K>(src, src_rows.at(is[0] + i) + r, &mut row[..height / K]);
            }
            let from = SourceRows::<K, GROUPED> {
                starts,
                first: 0,
                stride: TILE / K,
                column: 0,
            };
            blocks(&aligned[..], from, stage, height);
        } else {
            let from = SourceRows::<K, GROUPED> {
                starts,
                first: src_rows.at(is[0]),
                stride: src_rows.row,
                column: r / K,
            };
            blocks(src, from, stage, height);
        }
        // Two loops: rows that all start on a byte copy their bytes.
        let band = [r, height];
        match dst_rows.on_bytes(K) {
            true => write_out::<K, false>(stage, out, dst_rows, band, [is[0], width], stream),
            false => write_out::<K, true>(stage, out, dst_rows, band, [is[0], width], stream),
        }
    }
}

/// The band of [`staged`] rows `r..r + height` (`[r, height]`), each
/// `width` bytes of the stage's row, to the destination's rows where
/// `dst_rows` says (in slots), from their slot `i` on (`[i, width]`);
/// rows that start mid-byte (only where `SHIFTED`) shifted.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_out<const K: usize, const SHIFTED: bool>(
    stage: &[u8],
    out: &mut [u8],
    dst_rows: BlockRows,
    [r, height]: [usize; 2],
    [i, width]: [usize; 2],
    stream: bool,
) {
    // Stepped row by row.
    let (mut group, mut e) = (r / dst_rows.per, r % dst_rows.per);
    let mut at = dst_rows.at(r) + i;
    for staged in stage.chunks_exact(TILE / K).take(height) {
        let byte = at / K;
        // A whole stage row is a copy of constant length, inlined, and so
        // are the loops that shift one.
        match (!SHIFTED || at.is_multiple_of(K), width == TILE / K) {
            (true, true) if stream => copy_streamed(staged, &mut out[byte..byte + TILE / K]),
            (true, true) => out[byte..byte + TILE / K].copy_from_slice(staged),
            (true, false) => out[byte..byte + width].copy_from_slice(&staged[..width]),
            (false, true) => write_shifted_row::<K>(staged, out, at),
            // The stage row holds the byte past the run's first that the
            // shifted copy reads (`TILE / K` bytes, 16 or more).
            (false, false) => copy_shifted_run(staged, out, [0, at], width * K, (8 / K) as u32),
        }
        (e, at) = (e + 1, at + dst_rows.row);
        if e == dst_rows.per {
            (group, e) = (group + 1, 0);
            at = dst_rows.start + group * dst_rows.block + i;
        }
    }
}

/// A whole stage row, `TILE / K` bytes of slots, written to `out` from
/// slot `at` on, which is not on a byte: what [`copy_shifted_run`] does
/// for a run of any length (each byte out from the two it straddles, the
/// first and last merged into what they hold), in loops of constant
/// length that the compiler vectorises whole. Its loop of run-time
/// length took 8 bytes a vector and the rest a byte at a time.
///
/// # Panics
/// If the row reaches past `out`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn write_shifted_row<const K: usize>(row: &[u8], out: &mut [u8], at: usize) {
    let width = TILE / K;
    let (byte, shift) = (at / K, (at % K * (8 / K)) as u32);
    debug_assert!(shift > 0);
    let (row, out) = (&row[..width], &mut out[byte..byte + width + 1]);
    // Each byte with the next one's first bits after its last ones: `out`
    // from its second byte on, its last byte's bits still to merge.
    let mut next = [0u8; TILE / 2];
    next[..width - 1].copy_from_slice(&row[1..]);
    let mut placed = [0u8; TILE / 2];
    for ((p, &this), &next) in placed[..width].iter_mut().zip(row).zip(&next[..width]) {
        *p = (this << (8 - shift)) | (next >> shift);
    }
    let low = 0xFF >> shift;
    out[0] = (out[0] & !low) | (row[0] >> shift);
    out[1..width].copy_from_slice(&placed[..width - 1]);
    out[width] = (out[width] & low) | placed[width - 1];
}

/// 16 source rows of 16 bytes, where `rows` says
/// (`16 K` slots, 16 squares per `K` rows), into `16 K` destination rows
/// of `16 / K` bytes, row `e` at byte `to + e * dst_row` (see the
/// [module docs](self)).
#[cfg_attr(not(debug_assertions), inline(always))]
fn block<const K: usize, const N: u32>(
    src: &[u8],
    rows: BlockSource<'_>,
    out: &mut [u8],
    [to, dst_row]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    let groups = 16 / K;
    let rows: [__m128i; 16] = rows.load(src, 0);
    let mut by_place = rows;
    for g in 0..groups {
        let mixed = <Fields<N> as Mix<u8>>::vectors::<K>(core::array::from_fn(|e| rows[g * K + e]));
        for (e, v) in mixed.into_iter().enumerate() {
            by_place[e * groups + g] = v;
        }
    }
    let out = &mut out[to..to + (16 * K - 1) * dst_row + groups];
    for (q, v) in transpose_bytes(by_place).into_iter().enumerate() {
        let bytes: [u8; 16] = bytemuck::cast(v);
        for (e, piece) in bytes.chunks_exact(groups).enumerate() {
            let at = (K * q + e) * dst_row;
            out[at..at + groups].copy_from_slice(piece);
        }
    }
}

/// [`block`] for 32 source rows, in AVX2's vectors: rows `t` and `16 + t`
/// in the two lanes of one vector, and `32 / K` bytes of each destination
/// row (see the [module docs](self)).
///
/// # Safety
/// The CPU has AVX2.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn wide_block<const K: usize, const N: u32>(
    src: &[u8],
    rows: BlockSource<'_>,
    out: &mut [u8],
    [to, dst_row]: [usize; 2],
) where
    Fields<N>: Mix<u8>,
{
    use core::arch::x86_64::{
        __m256i, _mm256_permute4x64_epi64, _mm256_set_m128i, _mm256_shuffle_epi8,
    };
    let groups = 16 / K;
    let [low, high]: [[__m128i; 16]; 2] = [rows.load(src, 0), rows.load(src, 16)];
    let rows: [__m256i; 16] = core::array::from_fn(|t| {
        // SAFETY: the caller's CPU has AVX2; register-only.
        unsafe { _mm256_set_m128i(high[t], low[t]) }
    });
    let mut by_place = rows;
    for g in 0..groups {
        // SAFETY: the caller's CPU has AVX2.
        let mixed = unsafe {
            <Fields<N> as Mix<u8>>::wide_vectors::<K>(core::array::from_fn(|e| rows[g * K + e]))
        };
        for (e, v) in mixed.into_iter().enumerate() {
            by_place[e * groups + g] = v;
        }
    }
    let row_bytes = 32 / K;
    let out = &mut out[to..to + (16 * K - 1) * dst_row + row_bytes];
    let side_by_side: __m256i = bytemuck::cast(side_by_side(groups));
    // SAFETY: as above.
    for (q, v) in unsafe { transpose_lanes(by_place) }.into_iter().enumerate() {
        // Quarters: lane 0's first, lane 1's first, lane 0's second, lane
        // 1's second; then, below 8-byte rows, the pieces of each lane
        // paired.
        // SAFETY: the caller's CPU has AVX2; register-only.
        let v = unsafe {
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
            match K {
                2 => v,
                _ => _mm256_shuffle_epi8(v, side_by_side),
            }
        };
        let bytes: [u8; 32] = bytemuck::cast(v);
        for (e, piece) in bytes.chunks_exact(row_bytes).enumerate() {
            let at = (K * q + e) * dst_row;
            out[at..at + row_bytes].copy_from_slice(piece);
        }
    }
}

/// The byte shuffle of [`wide_block`] for pieces of `groups` bytes: in
/// each 16-byte lane, the first 8 bytes' pieces (of lane 0's rows) and
/// the last 8's (lane 1's) taken in turns, so that the pieces of one
/// destination row are side by side.
const fn side_by_side(groups: usize) -> [u8; 32] {
    let mut table = [0u8; 32];
    let mut at = 0;
    while at < 32 {
        let (piece, byte) = ((at % 16) / groups, at % groups);
        let from = match piece % 2 {
            0 => piece / 2 * groups,
            _ => 8 + piece / 2 * groups,
        };
        table[at] = (from + byte) as u8;
        at += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec;
    use alloc::vec::Vec;

    use super::{Stage, TILE, TilePlace, side_by_side, tile_with};
    use crate::packed::{BlockRows, realign};
    use crate::relayout::isa::has_avx2;
    use crate::relayout::mix::{Fields, Mix};

    /// A tile copied square by square with [`Mix::elements`]: the
    /// definition the vector tiles must agree with (rows in slots, the
    /// source's realigned where they start mid-byte, each destination
    /// byte's slots written one at a time).
    fn by_squares<const K: usize, const N: u32>(
        src: &[u8],
        out: &mut [u8],
        [src_rows, dst_rows]: [BlockRows; 2],
        is: [usize; 2],
        rs: [usize; 2],
    ) where
        Fields<N>: Mix<u8>,
    {
        for i in (is[0]..is[1]).step_by(K) {
            for r in (rs[0]..rs[1]).step_by(K) {
                let square: [u8; K] = core::array::from_fn(|j| {
                    let mut byte = [0];
                    realign::<K>(src, src_rows.at(i + j) + r, &mut byte);
                    byte[0]
                });
                for (j, byte) in Fields::<N>::elements(square).into_iter().enumerate() {
                    let at = dst_rows.at(r + j) + i;
                    if at.is_multiple_of(K) {
                        out[at / K] = byte;
                        continue;
                    }
                    for t in 0..K {
                        let (slot, mask) = (at + t, (1u8 << N) - 1);
                        let shift = 8 - (slot % K + 1) as u32 * N;
                        let value = (byte >> (8 - (t + 1) as u32 * N)) & mask;
                        let place = &mut out[slot / K];
                        *place = (*place & !(mask << shift)) | (value << shift);
                    }
                }
            }
        }
    }

    /// Both vector tiles (the AVX2 one where the CPU has it) against
    /// [`by_squares`], for tiles of 16 to [`TILE`] destination slots (odd
    /// numbers of 16 take SSE2 blocks after the AVX2 pairs) and `16 K` to
    /// [`TILE`] source slots, starts off the buffers' beginnings, padded
    /// row strides, rows in groups of 8 (a tile's) in either buffer,
    /// rows that start mid-byte in either buffer (the destination's
    /// rows each a slot further, in slots that the copy must keep), and
    /// one stage for all, left as the last tile left it. (Under Miri in a
    /// build with AVX2, the AVX2 tile only: see the loop.)
    fn check<const K: usize, const N: u32>()
    where
        Fields<N>: Mix<u8>,
    {
        let widths: &[usize] = match cfg!(miri) {
            true => &[16, 40],
            false => &[8, 16, 32, 40, 48, 64, 80, 96, 112, 120, 128],
        };
        // Whole vector blocks, and not (through the stage).
        let heights = (16 * K..=TILE)
            .step_by(16 * K)
            .chain([K, 16 * K + K, TILE - K]);
        let heights = heights.filter(|&h| h <= TILE && (!cfg!(miri) || h >= TILE - K));
        // Destination rows a few bytes past the tile, and far enough
        // apart for bands of 64 and of 32 rows (`BAND_SPAN`).
        let dst_rows: &[usize] = match cfg!(miri) {
            true => &[0, 3000],
            false => &[0, 1500, 3000],
        };
        let mut stages = [Stage::new(), Stage::new()];
        let cases = heights.flat_map(|h| widths.iter().rev().map(move |&w| (h, w)));
        let cases = cases.flat_map(|(h, w)| dst_rows.iter().map(move |&row| (h, w, row)));
        // Rows all a stride apart; the destination's, or the source's, in
        // groups of 8 with a gap of 40 bytes between groups; source rows,
        // or destination rows, a slot past a byte, and then each one slot
        // more.
        let cases = cases.flat_map(|(h, w, row)| (0..5).map(move |g| (h, w, row, g)));
        for (height, width, far, kind) in cases {
            // Under Miri (slow): wider tiles only into plain rows near
            // the tile; tiles of 16 slots with every kind of rows near
            // the tile, and into far rows only plain ones (far rows and
            // each kind reach code of their own, their combinations
            // none).
            if cfg!(miri) && (far > 0 || kind > 0) && (width > 16 || (far > 0 && kind > 0)) {
                continue;
            }
            let (is, rs) = ([16, 16 + width], [16 * K, 16 * K + height]);
            // Source rows along `i`, destination rows along `r`, each
            // with a few bytes past the tile.
            let (src_row, dst_row) = (rs[1] / K + 3, far.max(is[1] / K + 5));
            let plain = |start, row| BlockRows {
                start,
                row,
                per: usize::MAX,
                block: 0,
            };
            let groups = |start, row| BlockRows {
                start,
                row,
                per: 8,
                block: 8 * row + 40,
            };
            let (src_row, dst_row) = (src_row * K, dst_row * K);
            let rows = match kind {
                0 => [plain(7 * K, src_row), plain(11 * K, dst_row)],
                1 => [plain(7 * K, src_row), groups(11 * K, dst_row)],
                2 => [groups(7 * K, src_row), plain(11 * K, dst_row)],
                3 => [plain(7 * K + 1, src_row + 1), plain(11 * K, dst_row)],
                _ => [plain(7 * K, src_row), plain(11 * K + 1, dst_row + 1)],
            };
            let src: Vec<u8> = (0..(rows[0].at(is[1]) + src_row) / K)
                .map(|b| (b * 37 + b / 251) as u8)
                .collect();
            // Slots the copy must keep around the destination's rows
            // (a constant, which Miri fills fast).
            let dst = vec![0xA5u8; (rows[1].at(rs[1]) + dst_row) / K];
            let mut expected = dst.clone();
            by_squares::<K, N>(&src, &mut expected, rows, is, rs);
            let whole = width.is_multiple_of(16) && height.is_multiple_of(16 * K);
            let aligned = kind != 3 && whole;
            let in_tile = match aligned {
                true => [rows[0].in_bytes(K), rows[1]],
                false => rows,
            };
            let case = format!("K = {K}, {width} × {height} slots, rows {rows:?}");
            for (avx2, stage) in [false, true].into_iter().zip(&mut stages) {
                if avx2 && !has_avx2() {
                    continue;
                }
                // Under Miri in a build with AVX2 (`.ci/run`'s wider job),
                // AVX2's tiles only: the SSE2 build checks SSE2's.
                if !avx2 && cfg!(all(miri, target_feature = "avx2")) {
                    continue;
                }
                let mut got = dst.clone();
                let place = TilePlace {
                    rows: in_tile,
                    is,
                    rs,
                    stream: false,
                };
                tile_with::<K, N>(avx2, &src, &mut got, stage, place, aligned);
                assert_eq!(got, expected, "AVX2 {avx2}, {case}");
            }
        }
    }

    #[test]
    fn vector_tiles_transpose_squares_of_nibbles() {
        check::<2, 4>();
    }

    #[test]
    fn vector_tiles_transpose_squares_of_two_bit_fields() {
        check::<4, 2>();
    }

    #[test]
    fn vector_tiles_transpose_squares_of_bits() {
        check::<8, 1>();
    }

    /// Pieces of 8 bytes stay where they are; smaller ones alternate
    /// between each lane's halves.
    #[test]
    fn side_by_side_pairs_the_halves_pieces() {
        let identity: [u8; 32] = core::array::from_fn(|b| (b % 16) as u8);
        assert_eq!(side_by_side(8), identity);
        assert_eq!(
            &side_by_side(4)[..16],
            &[0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]
        );
        assert_eq!(&side_by_side(2)[..8], &[0, 1, 8, 9, 2, 3, 10, 11]);
    }
}
