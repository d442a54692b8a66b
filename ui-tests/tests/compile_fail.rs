//! Every `ui/*.rs` must fail to compile with exactly its `.stderr`.
//! Refresh with `TRYBUILD=overwrite cargo test -p ui-tests` and read the
//! diff; never edit a `.stderr` by hand.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
