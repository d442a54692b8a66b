//! `layout!` expands to paths under `$crate` only, so it works with no
//! prelude in scope. The renamed-dependency half of this proof is
//! `no-std-check/src/lib.rs`, where the facade is only reachable as
//! `tessera_renamed`, also with no prelude (Cargo cannot rename a crate's
//! dependency on itself, so it cannot live here).
#![no_implicit_prelude]

type Tiled = ::tessera::layout!(f32[3,5]{1,0:T(2,2)});
type Angle = ::tessera::layout!(f32[3,5]<1,0:T(2,2)>);

const OFF: usize = Tiled::offset([2, 3]);
const LEN: usize = Angle::BUFFER_LEN;

#[test]
fn expands_without_prelude() {
    ::std::assert_eq!(OFF, 17);
    ::std::assert_eq!(LEN, 24);
    ::std::assert_eq!(Tiled::ELEMENT_TYPE, ::tessera::PrimitiveType::F32);
}
