//! The mirrors of XLA's `ShapeUtil`, `LayoutUtil` and `IndexUtil` on shapes
//! parsed from fuzzed text, with fuzzed dims, indices and permutations: no
//! panic, and the properties that tie them together: linear index and
//! multidimensional index are inverses, `bump_indices` visits every
//! element once, a permutation and its inverse give the shape back, every
//! shape made is one the text parser accepts as printed.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera::text::parse_shape;
use tessera::{Shape, index_util, layout_util, shape_util};
use tessera_fuzz::Choices;

/// A shape made by a mirror prints as text that parses back to it.
fn reparses(made: &Shape) {
    let printed = made.to_string();
    let again = parse_shape(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
    assert_eq!(&again.shape, made, "{printed}");
}

fuzz_target!(|data: &[u8]| {
    // Two shapes, as text separated by a `;`, after some choice bytes.
    let mut c = Choices::new(data);
    let choices: Vec<u8> = (0..16).map(|_| c.byte()).collect();
    let Ok(text) = std::str::from_utf8(c.rest()) else {
        return;
    };
    let (t1, t2) = text.split_once(';').unwrap_or((text, text));
    let (Ok(s1), Ok(s2)) = (parse_shape(t1), parse_shape(t2)) else {
        return;
    };
    let (s1, s2) = (s1.shape, s2.shape);
    let mut c = Choices::new(&choices);
    let rank = s1.rank();
    let dim = c.below(rank + 2);
    let bound = [0, 1, 2, 7, usize::MAX, i64::MAX as usize][c.below(6)];
    let mut perm: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        let j = c.below(i + 1);
        perm.swap(i, j);
    }
    let index: Vec<usize> = (0..rank).map(|_| c.below(4)).collect();

    // IndexUtil.
    if let Ok(linear) = index_util::multidimensional_index_to_linear_index(&s1, &index) {
        let back = index_util::linear_index_to_multidimensional_index(&s1, linear).unwrap();
        assert_eq!(back.as_slice(), &index[..], "{s1}");
    }
    let _ = index_util::dimension_stride(&s1, dim);
    let _ = index_util::index_in_bounds(&s1, &index);
    if let Ok(count) = s1.element_count()
        && count <= 4096
        && s1.is_static()
    {
        let mut at = vec![0; rank];
        let mut visited = usize::from(count > 0);
        while index_util::bump_indices(&s1, &mut at) {
            visited += 1;
            assert!(visited <= count, "{s1}");
        }
        assert_eq!(visited, count, "{s1}");
    }

    // LayoutUtil.
    if let Some(l) = s1.layout() {
        let _ = layout_util::move_dim_to_major(l, dim);
        let _ = layout_util::move_dim_to_minor(l, dim);
    }
    let _ = layout_util::max_split_size(&s1, dim);
    let _ = layout_util::max_elements_in_per_split(&s1);
    if let Some(bytes) = layout_util::xla_array_size_bytes(&s1) {
        assert!(bytes <= i64::MAX as usize, "{s1}");
    }
    let _ = layout_util::xla_array_data_size(&s1);
    let _ = layout_util::unpacked_byte_strides(&s1);
    let _ = layout_util::linear_index_top_tile_only(&s1, &index);
    let _ = layout_util::layouts_in_shapes_equal(&s1, &s2);
    if let Ok(made) = layout_util::copy_layout_between_shapes(&s1, &s2) {
        reparses(&made);
    }

    // ShapeUtil.
    if let Ok(p) = shape_util::permute_dimensions(&perm, &s1) {
        reparses(&p);
        let mut inverse = vec![0; rank];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i;
        }
        let back = shape_util::permute_dimensions(&inverse, &p).unwrap();
        assert!(
            shape_util::equal(&back, &s1),
            "{s1} by {perm:?}: {p} then {back}"
        );
    }
    for made in [
        shape_util::permute_dimensions_ignoring_layout(&perm, &s1),
        shape_util::reorder_logical_dimensions(&s1, &perm),
        shape_util::insert_dimension_at_index(&s1, dim, bound),
        shape_util::prepend_major_dimension(bound, &s1),
        shape_util::append_minor_dimension(bound, &s1),
        shape_util::delete_dimension(&s1, dim),
        shape_util::delete_dimensions(&s1, &perm[..dim.min(rank)]),
        shape_util::move_dim_to_major(&s1, dim),
        shape_util::make_shape_with_descending_layout_and_same_physical_layout(&s1),
        shape_util::device_shape_to_host_shape(&s1),
    ]
    .into_iter()
    .flatten()
    {
        reparses(&made);
    }
    let _ = shape_util::transpose_is_bitcast(&s1, &s2, &perm, c.below(2) == 0);
    let _ = shape_util::reshape_is_bitcast(&s1, &s2, c.below(2) == 0);
    let _ = shape_util::deduce_transpose_dimensions_for_bitcast(&s1, &s2);
    let _ = shape_util::is_reshape_or_transpose_bitcast(&s1, &s2, c.below(2) == 0);
    if let Some(aligned) = shape_util::align_layouts(&s1, &s2) {
        reparses(&aligned);
    }
    let _ = shape_util::has_degenerate_dimensions(&s1);
    let _ = shape_util::is_effectively_most_major_dimension(&s1, dim);
    let _ = shape_util::last_dim_is_minor_most(&s1);
    let _ = shape_util::device_shape_is_host_shape(&s1);
    assert_eq!(shape_util::equal(&s1, &s2), shape_util::equal(&s2, &s1));
    assert!(shape_util::equal(&s1, &s1) && shape_util::compatible(&s1, &s1));
});
