//! Type-level numbers written in decimal, for compile errors: the element
//! count behind [`SameElementCount`](crate::SameElementCount) is a typenum
//! number, which an error prints in binary
//! (`UInt<UInt<UInt<UTerm, B1>, B1>, B0>` for 6); [`ToDecimal`] turns it
//! into its digits, `Decimal<(D2, D4)>` for 24, so that a mismatch reads
//! as the two counts.
//!
//! The digits come from typenum's division by ten, one per digit, at
//! compile time; nothing here exists at run time.

use core::marker::PhantomData;
use core::ops::{Div, Rem};

use typenum::{Mod, Quot, U10, UInt, UTerm};

/// A number as its decimal digits, most significant first: `Decimal<(D2,
/// D4)>` is 24 ([`ToDecimal`]); zero has none, `Decimal<()>`.
///
/// ```
/// use static_assertions::assert_type_eq_all;
/// use tessera::typelevel::{D1, D2, D4, Decimal, ToDecimal};
/// use tessera::typenum::{U0, U1, U24};
/// assert_type_eq_all!(<U24 as ToDecimal>::Output, Decimal<(D2, D4)>);
/// assert_type_eq_all!(<U1 as ToDecimal>::Output, Decimal<(D1,)>);
/// assert_type_eq_all!(<U0 as ToDecimal>::Output, Decimal<()>);
/// ```
pub struct Decimal<Digits>(PhantomData<fn() -> Digits>);

/// Generates the ten digit types and their typenum values.
macro_rules! digits {
    ($($digit:ident = $value:ident;)*) => {
        $(
            #[doc = concat!("The decimal digit ", stringify!($value), " of a [`Decimal`].")]
            ///
            /// ```
            /// use tessera::typelevel::{D0, D1, D2, D3, D4, D5, D6, D7, D8, D9};
            /// let _ = (D0, D1, D2, D3, D4, D5, D6, D7, D8, D9);
            /// ```
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
            pub struct $digit;

            impl Digit for typenum::$value {
                type Of = $digit;
            }
        )*
    };
}

/// A typenum number below ten as a digit type.
#[doc(hidden)]
pub trait Digit {
    /// The digit.
    type Of;
}

digits! {
    D0 = U0; D1 = U1; D2 = U2; D3 = U3; D4 = U4;
    D5 = U5; D6 = U6; D7 = U7; D8 = U8; D9 = U9;
}

/// A typenum number as a [`Decimal`].
///
/// ```
/// use static_assertions::assert_type_eq_all;
/// use tessera::typelevel::{D0, D1, D4, D5, D6, D7, D8, Decimal, ToDecimal};
/// use tessera::typenum::U1048576;
/// assert_type_eq_all!(
///     <U1048576 as ToDecimal>::Output,
///     Decimal<(D1, D0, D4, D8, D5, D7, D6)>,
/// );
/// ```
pub trait ToDecimal {
    /// The number's digits.
    type Output;
}

impl<N: DigitsBefore<()>> ToDecimal for N {
    type Output = Decimal<<N as DigitsBefore<()>>::Output>;
}

/// The digits of a typenum number followed by `Tail`, a tuple of digits;
/// none for zero.
#[doc(hidden)]
pub trait DigitsBefore<Tail> {
    /// The digits, then `Tail`'s.
    type Output;
}

impl<Tail> DigitsBefore<Tail> for UTerm {
    type Output = Tail;
}

/// The last digit of `N` (its remainder by ten).
type LastDigit<N> = <Mod<N, U10> as Digit>::Of;

impl<U, B, Tail> DigitsBefore<Tail> for UInt<U, B>
where
    UInt<U, B>: Div<U10> + Rem<U10>,
    Mod<UInt<U, B>, U10>: Digit,
    Tail: Prepend<LastDigit<UInt<U, B>>>,
    Quot<UInt<U, B>, U10>: DigitsBefore<<Tail as Prepend<LastDigit<UInt<U, B>>>>::Output>,
{
    type Output = <Quot<UInt<U, B>, U10> as DigitsBefore<
        <Tail as Prepend<LastDigit<UInt<U, B>>>>::Output,
    >>::Output;
}

/// A tuple with `Head` put first.
#[doc(hidden)]
pub trait Prepend<Head> {
    /// `(Head, ..Self)`.
    type Output;
}

/// Generates `Prepend` for tuples of each arity up to the count given
/// (20 digits: every `u64`).
macro_rules! prepend_impls {
    ($($t:ident)*) => {
        impl<Head, $($t),*> Prepend<Head> for ($($t,)*) {
            type Output = (Head, $($t,)*);
        }
    };
}

prepend_impls!();
prepend_impls!(A0);
prepend_impls!(A0 A1);
prepend_impls!(A0 A1 A2);
prepend_impls!(A0 A1 A2 A3);
prepend_impls!(A0 A1 A2 A3 A4);
prepend_impls!(A0 A1 A2 A3 A4 A5);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15 A16);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15 A16 A17);
prepend_impls!(A0 A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 A12 A13 A14 A15 A16 A17 A18);
