// `AnyLayout` is sealed: tensors hand out `&mut` by its offsets, so only
// the engine's layouts implement it.
use tessera::{AnyLayout, ArrayLayout, DimVec, PrimitiveType, Shape};

#[derive(Clone)]
struct Mine(ArrayLayout);

impl AnyLayout for Mine {
    const FIXED_RANK: Option<usize> = None;
    const FIXED_LAYOUT: Option<ArrayLayout> = None;
    const TEMPLATE: Option<Shape> = None;
    type Index = DimVec;
    fn to_array_layout(&self) -> ArrayLayout {
        self.0
    }
    fn rank(&self) -> usize {
        self.0.rank()
    }
    fn size(&self, dim: usize) -> usize {
        self.0.size(dim)
    }
    fn sizes(&self) -> DimVec {
        self.0.sizes()
    }
    fn element_type(&self) -> PrimitiveType {
        self.0.element_type()
    }
    fn element_size_in_bits(&self) -> usize {
        self.0.element_size_in_bits()
    }
    fn element_count(&self) -> usize {
        self.0.element_count()
    }
    fn buffer_len(&self) -> usize {
        self.0.buffer_len()
    }
    fn strides(&self) -> Option<DimVec> {
        self.0.strides()
    }
    fn is_in_bounds(&self, index: &[usize]) -> bool {
        self.0.is_in_bounds(index)
    }
    fn offset_in_bounds(&self, _index: &[usize]) -> usize {
        0
    }
}

fn main() {}
