//! `ndarray` views of strided tensors and back (feature `ndarray`): the
//! same slots, the layout's dims and strides, and errors that say why for
//! layouts that have no strides.
#![cfg(feature = "ndarray")]

use ndarray::{Array2, Array3, IxDyn, ShapeBuilder};
use proptest::prelude::*;
use tessera::{
    ArrayLayout, ErrorKind, PrimitiveType, TensorBuf, TensorView, TensorViewMut, layout,
};
use test_support::{SpecGen, row_major};

fn parse(text: &str) -> ArrayLayout {
    text.parse().unwrap()
}

fn value(i: &[usize]) -> f32 {
    i.iter().fold(0.0, |a, &x| a * 17.0 + x as f32 + 1.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every generated layout: strided ones give a view of the same slots
    /// with the layout's strides, which converts back to the same buffer;
    /// tiled and padded ones give `NotStrided`.
    #[test]
    fn views_agree_with_the_layout(spec in SpecGen { rank: 1..=3, max_dim: 7, ..SpecGen::new(vec![PrimitiveType::F32]) }.spec()) {
        let layout = spec.layout();
        let t = TensorBuf::from_fn(layout, value).unwrap();
        let view = t.as_ndarray();
        let untiled = layout.layout().tiles().is_empty() && layout.layout().padding().is_none();
        let Ok(a) = view else {
            prop_assert!(!untiled, "{}: {}", layout, view.unwrap_err());
            let is_not_strided = matches!(view.unwrap_err().kind(), ErrorKind::NotStrided { .. });
            prop_assert!(is_not_strided);
            return Ok(());
        };
        prop_assert!(untiled, "{}", layout);
        let sizes = layout.sizes();
        prop_assert_eq!(a.shape(), sizes.as_slice());
        let strides: Vec<isize> = layout.strides().unwrap().iter().map(|&s| s as isize).collect();
        if layout.element_count() > 0 {
            prop_assert_eq!(a.strides(), &strides[..]);
        }
        for index in row_major(layout.sizes().as_slice()) {
            prop_assert_eq!(a[IxDyn(&index)], t.as_slice()[layout.offset(&index)]);
        }
        // Back: the same slots, no copy (an `L(n)` tail is longer than the
        // elements, so the view cannot hold the layout's buffer).
        match TensorView::from_ndarray(layout, a) {
            Ok(back) => {
                prop_assert_eq!(back.as_slice().as_ptr(), t.as_slice().as_ptr());
                prop_assert!(back == t.view());
            }
            Err(e) => {
                prop_assert!(layout.buffer_len() > layout.element_count(), "{}: {}", layout, e);
                let is_too_short = matches!(e.kind(), ErrorKind::BufferTooShort { .. });
                prop_assert!(is_too_short);
            }
        }
    }
}

#[test]
fn tiled_and_padded_layouts_say_why_and_point_to_relayout() {
    for (text, why) in [
        ("f32[16,256]{1,0:T(8,128)}", "tiles"),
        ("f32[4,5]{1,0:pad(4,8)}", "`pad(..)`"),
    ] {
        let t = TensorBuf::<ArrayLayout, f32>::zeroed(parse(text)).unwrap();
        let e = t.as_ndarray().unwrap_err();
        let message = e.to_string();
        assert!(
            message.contains(why) && message.contains("`relayout`"),
            "{text}: {message}"
        );
        let a = Array2::<f32>::zeros((4, 5));
        let e = TensorView::from_ndarray(parse(text), a.view()).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::NotStrided { .. }),
            "{text}: {e}"
        );
    }
}

#[test]
fn mismatched_views_name_the_dimension() {
    let a = Array3::<f32>::zeros((2, 3, 4));
    let e = TensorView::from_ndarray(<layout!(f32[2,3,4]{0,1,2})>::NEW, a.view()).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::StrideMismatch {
            dim: 0,
            expected: 1,
            found: 12
        }
    );
    assert!(
        e.to_string()
            .contains("stride 12 in the view but 1 in the layout"),
        "{e}"
    );
    let e = TensorView::from_ndarray(<layout!(f32[2,3,5])>::NEW, a.view()).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimensionMismatch {
            dim: 2,
            expected: 4,
            found: 5
        }
    );
    let e = TensorView::from_ndarray(<layout!(f32[6,4])>::NEW, a.view()).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::RankMismatch {
            expected: 3,
            found: 2
        }
    );
    // A strided slice of a view is not a dense layout's.
    let b = Array2::<f32>::zeros((4, 6));
    let every_other = b.slice(ndarray::s![.., ..;2]);
    let e = TensorView::from_ndarray(<layout!(f32[4,3])>::NEW, every_other).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::StrideMismatch {
            dim: 0,
            expected: 3,
            found: 6
        }
    );
    // A reversed axis has a negative stride.
    let e = TensorView::from_ndarray(<layout!(f32[4,6])>::NEW, b.slice(ndarray::s![..;-1, ..]))
        .unwrap_err();
    assert!(e.to_string().contains("stride -6"), "{e}");
}

#[test]
fn mutable_views_write_the_same_slots() {
    // Column-major, 3-D, through a run-time layout.
    let l = parse("s32[2,3,4]{0,2,1}");
    let mut t = TensorBuf::<ArrayLayout, i32>::zeroed(l).unwrap();
    t.as_ndarray_mut().unwrap()[[1, 2, 3]] = 5;
    assert_eq!(t.get_dyn(&[1, 2, 3]), Some(&5));
    let mut buf = [0i32; 24];
    let mut m =
        ndarray::ArrayViewMut::from_shape((2, 3, 4).strides((1, 8, 2)), &mut buf[..]).unwrap();
    m[[1, 2, 3]] = 9;
    let mut tv = TensorViewMut::from_ndarray(l, m).unwrap();
    assert_eq!(tv[[1, 2, 3]], 9);
    tv[[0, 1, 2]] = 4;
    assert_eq!(buf[l.offset(&[0, 1, 2])], 4);
    assert_eq!(buf[l.offset(&[1, 2, 3])], 9);
}
