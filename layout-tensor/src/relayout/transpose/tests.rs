use super::{TransposeGrid, transpose_grid};
use alloc::vec::Vec;

/// Runs the kernel on `grid` and checks it against the definition:
/// every block's elements in place, every other element unchanged.
fn check_grid<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
    src: &[T],
    out: &mut [T],
    grid: TransposeGrid,
    streaming: bool,
) {
    let mut expected = out.to_vec();
    for o in 0..grid.counts[0] {
        for k in 0..grid.counts[1] {
            let [s, d] = grid.block(o, k);
            for r in 0..grid.rows {
                for i in 0..grid.len {
                    expected[d + r * grid.row_stride + i] = src[s + r + i * grid.run_stride];
                }
            }
        }
    }
    let before = out.to_vec();
    for isa in isas() {
        out.copy_from_slice(&before);
        run(src, out, &grid, streaming, isa);
        assert_eq!(out, &expected[..], "{grid:?} streaming {streaming} {isa:?}");
    }
}

/// The instruction sets the kernel can run with here.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn isas() -> impl Iterator<Item = Option<crate::relayout::isa::Isa>> {
    crate::relayout::isa::Isa::available()
        .iter()
        .copied()
        .map(Some)
}

/// Elsewhere: the plain loop only.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn isas() -> impl Iterator<Item = Option<()>> {
    [None].into_iter()
}

/// [`transpose_grid`] with the vectors of `isa`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn run<T: bytemuck::NoUninit>(
    src: &[T],
    out: &mut [T],
    grid: &TransposeGrid,
    streaming: bool,
    isa: Option<crate::relayout::isa::Isa>,
) {
    match isa {
        Some(isa) => super::transpose_grid_on(src, out, grid, streaming, isa),
        None => transpose_grid(src, out, grid, streaming),
    }
}

/// [`transpose_grid`], elsewhere.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn run<T: bytemuck::NoUninit>(
    src: &[T],
    out: &mut [T],
    grid: &TransposeGrid,
    streaming: bool,
    _: Option<()>,
) {
    transpose_grid(src, out, grid, streaming);
}

/// The CPU detection agrees with the standard library's.
#[test]
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
fn detects_avx2_as_std_does() {
    extern crate std;
    assert_eq!(
        crate::relayout::isa::has_avx2(),
        std::is_x86_feature_detected!("avx2")
    );
    assert_eq!(
        crate::relayout::isa::has_avx2(),
        crate::relayout::isa::has_avx2(),
        "the remembered answer"
    );
}

/// The AVX-512 detection agrees with the standard library's (F and BW).
#[test]
#[cfg(all(target_arch = "x86_64", target_feature = "sse2", not(miri)))]
fn detects_avx512_as_std_does() {
    extern crate std;
    let std_says =
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw");
    assert_eq!(crate::relayout::isa::has_avx512(), std_says);
    assert_eq!(
        crate::relayout::isa::Isa::best() == crate::relayout::isa::Isa::Avx512,
        std_says
    );
}

/// Blocks of every shape around the vector and tile sizes, at odd
/// starts, single and in grids (side by side along the destination
/// rows, and apart), for every element size, with and without
/// streaming into a 64-byte aligned buffer (Miri checks every access
/// is in bounds and every streamed store aligned).
fn check_sizes<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
    let n = if cfg!(miri) { 400 } else { 1200 };
    let src: Vec<T> = (0..n).map(make).collect();
    let fits = |grid: &TransposeGrid| grid.ends().is_some_and(|[s, d]| s <= n && d <= n);
    // Runs `grid` into `n` elements that start on a 64-byte line.
    let check = |grid: TransposeGrid, streaming: bool| {
        let mut out: Vec<T> = (0..n + 64).map(|i| make(i + 5000)).collect();
        let line = out.as_ptr().align_offset(64);
        check_grid(&src, &mut out[line..line + n], grid, streaming);
    };
    // Under Miri (slow): a partial vector, a dense narrow group, and
    // one vector plus one element, of this element size.
    let lanes = (16 / core::mem::size_of::<T>()).max(2);
    let few = [1, 2, lanes + 1];
    let shapes: &[usize] = if cfg!(miri) {
        &few
    } else {
        &[1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 20, 32, 33]
    };
    let placements: &[([usize; 2], usize)] = if cfg!(miri) {
        &[([1, 3], 0), ([0, 0], 1)]
    } else {
        &[([0, 0], 0), ([1, 3], 0), ([1, 3], 1), ([0, 0], 2)]
    };
    for streaming in [false, true] {
        for &rows in shapes {
            for &len in shapes {
                // Apart and dense (the narrow pack and unpack when
                // `len` or `rows` is fewer than a vector's elements).
                for &(start, gap) in placements {
                    let grid = TransposeGrid {
                        start,
                        counts: [1, 1],
                        strides: [[0, 0]; 2],
                        rows,
                        len,
                        run_stride: rows + gap,
                        row_stride: len + 2 * gap,
                    };
                    if fits(&grid) {
                        check(grid, streaming);
                    }
                }
                // 2 planes of 3 blocks that continue each other's
                // destination rows, and 2×2 blocks apart.
                let along = TransposeGrid {
                    start: [2, 0],
                    counts: [2, 3],
                    strides: [[rows * len * 3, 3 * len * rows], [rows * len, len]],
                    rows,
                    len,
                    run_stride: rows,
                    row_stride: 3 * len,
                };
                let apart = TransposeGrid {
                    counts: [2, 2],
                    strides: [
                        [2 * rows * len + 1, 2 * rows * len + 4],
                        [rows * len, rows * len],
                    ],
                    row_stride: len,
                    ..along
                };
                for grid in [along, apart] {
                    if fits(&grid) {
                        check(grid, streaming);
                    }
                }
            }
        }
    }
}

/// Bytes in whole squares of 32 rows, which AVX2 copies in half
/// squares (32 rows of 16 runs, `half_squares_plane`): every group of
/// runs and rows, the rows and runs past them, more runs than one band
/// of 128, and strides that are not the block's own, under Miri too.
#[test]
fn byte_squares_transpose_like_the_definition() {
    let shapes: &[[usize; 2]] = if cfg!(miri) {
        &[[33, 17]]
    } else {
        &[[32, 16], [33, 17], [64, 47], [35, 130], [96, 300]]
    };
    for &[rows, len] in shapes {
        for gap in [0, 3] {
            let grid = TransposeGrid {
                start: [1, 2],
                counts: [1, 1],
                strides: [[0, 0]; 2],
                rows,
                len,
                run_stride: rows + gap,
                row_stride: len + 2 * gap,
            };
            let n = grid.ends().unwrap();
            let src: Vec<u8> = (0..n[0]).map(|i| (i * 7 + i / 251) as u8).collect();
            let mut out: Vec<u8> = (0..n[1] + 5).map(|i| (i * 13) as u8).collect();
            check_grid(&src, &mut out, grid, false);
        }
    }
}

/// Bytes above the streaming threshold whose destination rows start
/// cache lines, which AVX-512 streams in lane squares (16 rows of 64
/// runs, `lane_squares_plane`): whole squares, rows and runs past them
/// (a trailing square overlapping the one before), a lead square where
/// the plane starts mid-line, runs in blocks of 64 apart in the source,
/// rows in blocks of 16 apart in the destination; under Miri too (one
/// square, and the lead).
#[test]
fn byte_lane_squares_transpose_like_the_definition() {
    // `(rows, runs, run_stride, row_stride, start)`.
    let planes: &[(usize, usize, usize, usize, [usize; 2])] = if cfg!(miri) {
        &[(16, 64, 16, 64, [0, 0]), (17, 129, 19, 192, [1, 16])]
    } else {
        &[
            (48, 192, 48, 192, [0, 0]),
            (37, 200, 41, 256, [3, 0]),
            (40, 200, 40, 256, [0, 16]),
            (16, 64, 16, 64, [5, 0]),
        ]
    };
    let check = |grid: TransposeGrid| {
        let [ns, nd] = grid.ends().unwrap();
        let src: Vec<u8> = (0..ns).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut out: Vec<u8> = (0..nd + 64).map(|i| (i * 13) as u8).collect();
        let line = out.as_ptr().align_offset(64);
        check_grid(&src, &mut out[line..line + nd], grid, true);
    };
    for &(rows, len, run_stride, row_stride, start) in planes {
        check(TransposeGrid {
            start,
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len,
            run_stride,
            row_stride,
        });
    }
    if !cfg!(miri) {
        // 3 blocks of 64 runs that continue each other's destination
        // rows, 5 bytes apart in the source, in 2 planes.
        let (rows, len) = (32, 64);
        check(TransposeGrid {
            start: [0, 0],
            counts: [2, 3],
            strides: [
                [3 * (rows * len + 5), 3 * len * rows],
                [rows * len + 5, len],
            ],
            rows,
            len,
            run_stride: rows,
            row_stride: 3 * len,
        });
        // 2 blocks of 16 rows that continue each other's source runs,
        // two lines apart in the destination.
        let (rows, len) = (16, 64);
        check(TransposeGrid {
            start: [0, 0],
            counts: [1, 2],
            strides: [[0, 0], [rows, rows * len + 128]],
            rows,
            len,
            run_stride: 2 * rows,
            row_stride: len,
        });
    }
}

/// Units of 2 and 4 elements, taken from buffers of a length that is
/// not a whole number of units, transpose as the elements they hold.
#[test]
fn units_transpose_as_their_elements() {
    let (rows, len) = (9, 6);
    let src: Vec<u16> = (0..2 * rows * len + 1).map(|i| i as u16).collect();
    let mut out: Vec<u16> = (0..2 * rows * len + 1).map(|_| 0).collect();
    let grid = TransposeGrid {
        start: [0, 0],
        counts: [1, 1],
        strides: [[0, 0]; 2],
        rows,
        len,
        run_stride: rows,
        row_stride: len,
    };
    transpose_grid(
        super::as_units::<u16, 2>(&src),
        super::as_units_mut::<u16, 2>(&mut out),
        &grid,
        false,
    );
    for r in 0..rows {
        for i in 0..len {
            for e in 0..2 {
                assert_eq!(out[2 * (r * len + i) + e], src[2 * (r + i * rows) + e]);
            }
        }
    }
    assert_eq!(out[2 * rows * len], 0, "the element past the units");
    let bytes: Vec<u8> = (0..4 * 5 * 7 + 3).map(|i| i as u8).collect();
    assert_eq!(super::as_units::<u8, 4>(&bytes).len(), 5 * 7);
}

#[test]
fn transposes_like_the_definition() {
    check_sizes(|i| i as u8);
    check_sizes(|i| (i as i16).wrapping_neg());
    check_sizes(|i| i as f32);
    check_sizes(|i| i as u64);
    if !cfg!(miri) {
        // The plain loop only (no `unsafe`).
        check_sizes(|i| [i as u64, !(i as u64)]);
    }
}

/// Runs `grid` streamed over a source of `make`'s values into a
/// destination that starts on a cache line, and checks it against the
/// definition ([`check_grid`]).
fn check_streamed<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
    grid: TransposeGrid,
    make: fn(usize) -> T,
) {
    let [ns, nd] = grid.ends().unwrap();
    let src: Vec<T> = (0..ns).map(make).collect();
    let mut out: Vec<T> = (0..nd + 64).map(|i| make(i + 7000)).collect();
    let line = out.as_ptr().align_offset(64);
    check_grid(&src, &mut out[line..line + nd], grid, true);
}

/// Destination rows of 2 KiB or more, whose staged tiles (streaming)
/// write four lines of each row at once (`streamed_run_bytes`): whole
/// tiles, a partial last one, more rows than a tile's (64 of bytes and
/// of 2-byte elements), rows past the last whole square, an odd start,
/// and rows that stop short of a line.
fn check_long_rows<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
    let size = core::mem::size_of::<T>();
    let long = 2048 / size;
    let shapes: &[(usize, usize, usize)] = match cfg!(miri) {
        true => &[(5, long + 3, 1)],
        false => &[
            (37, long + 70, 0),
            (9, 2 * long + 3, 5),
            (64, long, 1),
            (150, long + 300, 3),
        ],
    };
    for &(rows, len, gap) in shapes {
        let grid = TransposeGrid {
            start: [gap, 3 * gap],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len,
            run_stride: rows + gap,
            row_stride: len + gap,
        };
        check_streamed(grid, make);
    }
}

/// Bytes whose source runs lie a multiple of 4 KiB apart, whose
/// squares' runs crowd one set of the L1 cache and go through the run
/// stage (`RunStage`): tiles of long rows and of short ones (streaming),
/// partial squares, and an odd start.
#[test]
fn crowded_runs_transpose_like_the_definition() {
    let shapes: &[(usize, usize, usize)] = match cfg!(miri) {
        true => &[(20, 18, 4096)],
        false => &[(100, 2100, 4096), (37, 300, 8192), (150, 40, 4096 + 4096)],
    };
    for &(rows, len, run_stride) in shapes {
        let grid = TransposeGrid {
            start: [3, 5],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len,
            run_stride,
            row_stride: len + 1,
        };
        let [ns, nd] = grid.ends().unwrap();
        // The source's runs each a multiple of 4 KiB from a line start.
        let src: Vec<u8> = (0..ns + 64).map(|i| (i * 7 + i / 251) as u8).collect();
        let first = src.as_ptr().align_offset(64);
        let mut out: Vec<u8> = (0..nd + 64).map(|i| (i + 11) as u8).collect();
        let line = out.as_ptr().align_offset(64);
        check_grid(
            &src[first..first + ns],
            &mut out[line..line + nd],
            grid,
            true,
        );
    }
}

/// Streamed rows in blocks of two short pieces (the 2-row tiles of
/// `{0,1:T(2,128)}`: `x` in pairs, each pair's block of runs a piece of
/// `len`), which take tiles of more rows and two lines of each
/// (`PAIRED_ROWS_RUN_BYTES`): whole tiles, a partial last tile of rows
/// and of runs, rows past the last whole square, and an odd start.
fn check_paired_rows<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
    // `(pairs, len, pieces)`: `2 * pairs` rows, `len * pieces` runs.
    let shapes: &[(usize, usize, usize)] = match cfg!(miri) {
        true => &[(9, 19, 2)],
        false => &[(64, 128, 2), (45, 40, 3), (130, 128, 1), (7, 100, 2)],
    };
    for &(pairs, len, pieces) in shapes {
        let (x, y) = (2 * pairs, len * pieces);
        // The source row-major `[y, x]` (its runs `x` apart) from an odd
        // start; the destination `T(2,128)`-like: pair `p`'s pieces side
        // by side, `2 * y` apart, each piece its two rows `len` apart.
        let grid = TransposeGrid {
            start: [3, 0],
            counts: [pairs, pieces],
            strides: [[2, 2 * y], [len * x, 2 * len]],
            rows: 2,
            len,
            run_stride: x,
            row_stride: len,
        };
        check_streamed(grid, make);
    }
}

#[test]
fn paired_rows_transpose_like_the_definition() {
    check_paired_rows(|i| i as f32);
    check_paired_rows(|i| (i as i16).wrapping_neg());
    if !cfg!(miri) {
        check_paired_rows(|i| i as u64);
    }
}

#[test]
fn long_rows_transpose_like_the_definition() {
    // Under Miri (slow): the element sizes that write more than a line.
    if !cfg!(miri) {
        check_long_rows(|i| i as u8);
        check_long_rows(|i| i as u64);
    }
    check_long_rows(|i| (i as i16).wrapping_neg());
    check_long_rows(|i| i as f32);
}

/// Grids of whole cache tiles of the vector kernel (`128` bytes of
/// rows by a cache line of runs) and their partial edges, for every
/// element size: a single plane, planes whose blocks continue each
/// other's source rows (the tiles of `{1,0}` → `{0,1:T(..)}` side by
/// side, merged into one transpose), and blocks that continue each
/// other's destination runs (its reverse), at an odd start, with and
/// without streaming.
fn check_tiles<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
    let size = core::mem::size_of::<T>();
    let (tile_rows, line) = (128 / size, 64 / size);
    let v = (16 / size).max(2);
    // Past a whole tile, not a multiple of a vector either way (under
    // Miri, which is slow, one row and run past it).
    let (rows, len) = match cfg!(miri) {
        true => (tile_rows + 1, line + 1),
        false => (tile_rows + v + 1, line + v + 1),
    };
    // Row tiles of `tile` rows, 3 side by side in the source (more
    // than a whole tile's rows together), 8, or a 16-byte vector's
    // elements (whole squares of 16-byte vectors, not of 32-byte ones).
    let tiles: &[usize] = match cfg!(miri) {
        true => &[rows / 3 + 1],
        false => &[rows / 3 + 1, 8, v],
    };
    for &tile in tiles {
        check_tile_grids(make, [rows, len], tile);
    }
}

/// The grids of [`check_tiles`], with row tiles of `tile` rows.
fn check_tile_grids<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(
    make: fn(usize) -> T,
    [rows, len]: [usize; 2],
    tile: usize,
) {
    let grids = [
        // One plane, apart rows and runs.
        TransposeGrid {
            start: [1, 3],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len,
            run_stride: rows + 2,
            row_stride: len + 5,
        },
        // `{1,0}` → `{0,1:T(tile, len)}`: row tiles side by side in
        // the source (`outer[0] == tile`), two run blocks apart.
        TransposeGrid {
            start: [1, 3],
            counts: [3, 2],
            strides: [[tile, 2 * tile * len], [len * 3 * tile, tile * len]],
            rows: tile,
            len,
            run_stride: 3 * tile,
            row_stride: len,
        },
        // `{0,1:T(len, tile)}` → `{1,0}`: run blocks side by side in
        // the destination (`step[1] == len`).
        TransposeGrid {
            start: [1, 3],
            counts: [2, 3],
            strides: [[3 * rows * len, 3 * len * rows], [rows * len, len]],
            rows,
            len,
            run_stride: rows,
            row_stride: 3 * len,
        },
    ];
    // Under Miri, without the plane of apart rows, and with streaming
    // only (where the kernel differs only in the kind of store) but for
    // the tiles side by side: without streaming, blocks that are not
    // whole squares take squares across blocks (`Direct::Across`).
    let grids: &[TransposeGrid] = match cfg!(miri) {
        true => &grids[1..],
        false => &grids,
    };
    for (g, &grid) in grids.iter().enumerate() {
        let [s, d] = grid.ends().unwrap();
        let src: Vec<T> = (0..s).map(make).collect();
        let streams: &[bool] = match cfg!(miri) && g > 0 {
            true => &[true],
            false => &[false, true],
        };
        for &streaming in streams {
            let mut out: Vec<T> = (0..d + 64).map(|i| make(i + 5000)).collect();
            let line = out.as_ptr().align_offset(64);
            check_grid(&src, &mut out[line..line + d], grid, streaming);
        }
    }
}

#[test]
fn tiles_transpose_like_the_definition() {
    check_tiles(|i| i as u8);
    check_tiles(|i| (i as i16).wrapping_neg());
    check_tiles(|i| i as f32);
    check_tiles(|i| i as u64);
}

/// Destination rows a power of two of bytes apart (1, 2 and 4 KiB),
/// which crowd into few cache sets: below 4 KiB the direct kernel
/// stores a block's squares in sweeps of fewer rows than the block
/// (`rows_before_crowding`), so these blocks take several sweeps, in
/// whole squares and in squares across blocks of 2 rows, also when the
/// blocks crowd and the rows within them do not; rows 4 KiB apart are
/// staged, and so are rows 2 KiB apart where a square's rows are less
/// than a line (bytes and 2-byte elements with AVX-512; all without).
/// With AVX-512, whole squares of 4- and 8-byte elements into rows 2 or
/// 4 KiB apart go through the squares' stage, and with AVX2 its squares
/// of 2-byte elements and half squares of bytes: rows of two blocks of
/// the stage's and then some,
/// more runs than a block of the stage holds (a trailing square or
/// group), and runs in blocks of 128 that a block of the stage spans.
fn check_crowded_rows<T: bytemuck::NoUninit + PartialEq + core::fmt::Debug>(make: fn(usize) -> T) {
    let size = core::mem::size_of::<T>();
    // Two blocks of 128 bytes and then some, either way; under Miri
    // (slow), one and some, rows 1 KiB apart (2 KiB for 4-byte elements
    // and bytes, whose squares are then staged), without the tiles.
    let (rows, len, row_bytes): (_, _, &[usize]) = match (cfg!(miri), size) {
        (true, 4) => (128 / size + 3, 64 / size + 3, &[2048]),
        (true, 1) => (35, 64 + 3, &[2048]),
        (true, _) => (128 / size + 3, 64 / size + 3, &[1024]),
        (false, _) => (2 * 128 / size + 35, 128 / size + 3, &[1024, 2048, 4096]),
    };
    // The plain grid's runs: past a block of the squares' stage (512
    // bytes of each row) and a square.
    let plain_len = match cfg!(miri) {
        true => len,
        false => 512 / size + 35,
    };
    for &row_bytes in row_bytes {
        let row_stride = row_bytes / size;
        let plain = TransposeGrid {
            start: [1, 3],
            counts: [1, 1],
            strides: [[0, 0]; 2],
            rows,
            len: plain_len,
            run_stride: rows + 1,
            row_stride,
        };
        // Tiles of 2 rows side by side in the source, apart in the
        // destination: not whole squares, so squares cross them.
        let tiles = TransposeGrid {
            counts: [rows / 2, 1],
            strides: [[2, 2 * row_stride + len], [0, 0]],
            rows: 2,
            len,
            run_stride: rows,
            ..plain
        };
        // Tiles of 2 rows 512 bytes apart, the tiles `row_bytes * 8`
        // apart (as `s8`'s `{0,1:T(8,128)(4,1)}` in 4-byte units).
        let far_tiles = TransposeGrid {
            strides: [[2, row_bytes * 8 / size], [0, 0]],
            row_stride: 512 / size,
            ..tiles
        };
        // Runs in blocks of 128 (a tile's width) that continue each
        // other in the destination and not in the source: squares, and
        // a stage's block of runs, span several.
        let run_blocks = TransposeGrid {
            counts: [3, 1],
            strides: [[128 * (rows + 1) + 7, 128], [0, 0]],
            len: 128,
            ..plain
        };
        // A last block of the stage of fewer runs than a square (or a
        // group of bytes' half squares).
        let short_band = TransposeGrid {
            len: 512 / size + 8 / size.min(8),
            ..plain
        };
        let grids = [plain, tiles, far_tiles, run_blocks, short_band];
        for &grid in &grids[..if cfg!(miri) { 1 } else { 5 }] {
            let [s, d] = grid.ends().unwrap();
            let src: Vec<T> = (0..s).map(make).collect();
            let mut out: Vec<T> = (0..d + 64).map(|i| make(i + 5000)).collect();
            let line = out.as_ptr().align_offset(64);
            check_grid(&src, &mut out[line..line + d], grid, false);
        }
    }
}

#[test]
fn crowded_rows_transpose_like_the_definition() {
    // Under Miri too: 2-byte elements, 32 rows to a sweep and 64 to a
    // block, in squares of 8 or 16; `f32` and bytes into rows 2 KiB
    // apart, through the squares' stage.
    check_crowded_rows(|i| (i as i16).wrapping_neg());
    check_crowded_rows(|i| i as f32);
    check_crowded_rows(|i| i as u8);
    if !cfg!(miri) {
        check_crowded_rows(|i| i as u64);
    }
}

#[test]
#[should_panic(expected = "out of bounds")]
fn a_block_past_the_source_panics() {
    let grid = TransposeGrid {
        start: [0, 0],
        counts: [1, 1],
        strides: [[0, 0]; 2],
        rows: 4,
        len: 4,
        run_stride: 4,
        row_stride: 4,
    };
    transpose_grid(&[0u32; 15], &mut [0u32; 16], &grid, false);
}

#[test]
#[should_panic(expected = "out of bounds")]
fn a_grid_that_overflows_panics() {
    let grid = TransposeGrid {
        start: [0, 0],
        counts: [2, 1],
        strides: [[usize::MAX, 0], [0, 0]],
        rows: 1,
        len: 1,
        run_stride: 1,
        row_stride: 1,
    };
    transpose_grid(&[0u32; 4], &mut [0u32; 4], &grid, false);
}
