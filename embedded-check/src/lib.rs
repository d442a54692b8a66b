//! The README's int4 matvec on a microcontroller, `y = W x` with `W` a
//! static `s4[64,64]{1,0:E(4)}` matrix, written three ways: through
//! [`Packed::get`], through [`Packed::iter`], and as the nibble code a
//! kernel author writes by hand. `.ci/embedded-size.sh` builds this crate
//! for `thumbv7em-none-eabihf` (release, no LTO), links each entry point
//! on its own and fails if the `get` or `iter` one pulls in `core::fmt`
//! or grows past 1.5× the hand-written one's code (see `README.md`).
//!
//! On the host it builds as an ordinary `no_std` library, so its unit
//! tests run with `cargo test -p embedded-check`.
#![no_std]

use tessera::{Packed, layout};

/// The weights' layout: 64×64 `s4`, two per byte, row-major.
type Int4 = layout!(s4[64,64]{1,0:E(4)});

/// The weights' byte count: 4096 nibbles.
const BYTES: usize = Int4::PHYSICAL_BYTE_SIZE;

/// Rows of `W` (the length of `y`).
const ROWS: usize = 64;

/// Columns of `W` (the length of `x`).
const COLS: usize = 64;

/// Pseudo-random weight bytes, as a quantizer might have written them
/// (a linear congruential generator, so every nibble value occurs).
const fn weight_bytes() -> [u8; BYTES] {
    let mut bytes = [0u8; BYTES];
    let mut state: u32 = 0x1234_5678;
    let mut i = 0;
    while i < BYTES {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        bytes[i] = (state >> 16) as u8;
        i += 1;
    }
    bytes
}

/// The weights as a packed tensor (what the `get` and `iter` kernels
/// read).
static WEIGHTS: Packed<Int4, BYTES> = Packed::from_bytes(weight_bytes());

/// The same weights as plain bytes (what the hand-written kernel reads).
static WEIGHT_BYTES: [u8; BYTES] = weight_bytes();

/// `y = W x` through [`Packed::get`], as a user writes it.
///
/// ```
/// let x = [1i8; 64];
/// let (mut by_get, mut by_hand) = ([0; 64], [0; 64]);
/// embedded_check::matvec_get(&x, &mut by_get);
/// embedded_check::matvec_hand(&x, &mut by_hand);
/// assert_eq!(by_get, by_hand);
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn matvec_get(x: &[i8; COLS], y: &mut [i32; ROWS]) {
    for (r, out) in y.iter_mut().enumerate() {
        let mut acc = 0i32;
        for (c, &xc) in x.iter().enumerate() {
            acc += i32::from(WEIGHTS.get([r, c]).unwrap()) * i32::from(xc);
        }
        *out = acc;
    }
}

/// `y = W x` through [`Packed::iter`]: the elements in row-major order,
/// a row of them per output.
///
/// ```
/// let x = [-1i8; 64];
/// let (mut by_iter, mut by_hand) = ([0; 64], [0; 64]);
/// embedded_check::matvec_iter(&x, &mut by_iter);
/// embedded_check::matvec_hand(&x, &mut by_hand);
/// assert_eq!(by_iter, by_hand);
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn matvec_iter(x: &[i8; COLS], y: &mut [i32; ROWS]) {
    let mut weights = WEIGHTS.iter();
    for out in y.iter_mut() {
        *out = x
            .iter()
            .zip(&mut weights)
            .map(|(&xc, w)| i32::from(w) * i32::from(xc))
            .sum();
    }
}

/// `y = W x` by hand: two elements per byte, the first in the high
/// nibble, sign-extended (XLA's `PackIntN`).
///
/// ```
/// // x = e_0 picks column 0, whose entries are nibbles: -8..=7.
/// let mut x = [0i8; 64];
/// x[0] = 1;
/// let mut y = [0; 64];
/// embedded_check::matvec_hand(&x, &mut y);
/// assert!(y.iter().all(|v| (-8..=7).contains(v)) && y.iter().any(|&v| v != 0));
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn matvec_hand(x: &[i8; COLS], y: &mut [i32; ROWS]) {
    let (rows, _) = WEIGHT_BYTES.as_chunks::<{ COLS / 2 }>();
    let (pairs, _) = x.as_chunks::<2>();
    for (row, out) in rows.iter().zip(y.iter_mut()) {
        let mut acc = 0i32;
        for (&b, &[x0, x1]) in row.iter().zip(pairs) {
            let hi = (b as i8) >> 4;
            let lo = ((b << 4) as i8) >> 4;
            acc += i32::from(hi) * i32::from(x0) + i32::from(lo) * i32::from(x1);
        }
        *out = acc;
    }
}

/// A panic handler that formats nothing, so that any `core::fmt` left in
/// a linked entry point was pulled in by the code itself.
#[cfg(target_os = "none")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_three(x: &[i8; COLS]) -> [i32; ROWS] {
        let (mut by_get, mut by_iter, mut by_hand) = ([0; ROWS], [0; ROWS], [0; ROWS]);
        matvec_get(x, &mut by_get);
        matvec_iter(x, &mut by_iter);
        matvec_hand(x, &mut by_hand);
        assert_eq!(
            by_get, by_hand,
            "get disagrees with the hand-written kernel for x = {x:?}"
        );
        assert_eq!(
            by_iter, by_hand,
            "iter disagrees with the hand-written kernel for x = {x:?}"
        );
        by_hand
    }

    #[test]
    fn the_three_kernels_agree() {
        let mut ramp = [0i8; COLS];
        let mut alternating = [0i8; COLS];
        for c in 0..COLS {
            ramp[c] = (c % 15) as i8 - 7;
            alternating[c] = if c % 2 == 0 { 127 } else { -128 };
        }
        for x in [[0; COLS], [1; COLS], [-1; COLS], ramp, alternating] {
            all_three(&x);
        }
    }

    #[test]
    fn a_unit_vector_picks_a_column() {
        // x = e_c: y[r] is W[r, c], read here from the bytes directly.
        for c in [0, 1, 30, 63] {
            let mut x = [0i8; COLS];
            x[c] = 1;
            let y = all_three(&x);
            for (r, &yr) in y.iter().enumerate() {
                let byte = WEIGHT_BYTES[(r * COLS + c) / 2];
                let nibble = if c % 2 == 0 { byte >> 4 } else { byte & 0xF };
                let expected = i32::from(((nibble << 4) as i8) >> 4);
                assert_eq!(yr, expected, "W[{r}, {c}]");
            }
        }
        // The weights are not all zero, so agreement above means something.
        assert!(WEIGHT_BYTES.iter().any(|&b| b != 0 && b != 0xFF));
    }
}
