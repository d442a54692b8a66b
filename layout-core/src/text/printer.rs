//! Shapes and layouts to XLA's canonical text
//! (`ShapeUtil::HumanStringWithLayout`, `Layout::ToString`).

use core::fmt::{self, Display, Formatter, Write};

use crate::model::layout::Layout;
use crate::model::shape::{Dim, Shape};

impl Display for Layout {
    /// XLA's form: `{1,0:T(8,128)(2,1)L(4)E(4)S(1)SC(0:8)M(16)}`, with
    /// default-valued attributes left out and tessera's `pad(..)` last.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        for (i, d) in self.minor_to_major().iter().enumerate() {
            if i > 0 {
                f.write_char(',')?;
            }
            write!(f, "{d}")?;
        }
        if self.has_attributes() {
            f.write_char(':')?;
            if !self.tiles().is_empty() {
                f.write_char('T')?;
                for t in self.tiles() {
                    write!(f, "{t}")?;
                }
            }
            if self.tail_padding_alignment_in_elements() != 1 {
                write!(f, "L({})", self.tail_padding_alignment_in_elements())?;
            }
            if let Some(t) = self.index_primitive_type() {
                write!(f, "#({})", integral_name(t))?;
            }
            if let Some(t) = self.pointer_primitive_type() {
                write!(f, "*({})", integral_name(t))?;
            }
            if self.element_size_in_bits() != 0 {
                write!(f, "E({})", self.element_size_in_bits())?;
            }
            if self.memory_space() != 0 {
                write!(f, "S({})", self.memory_space())?;
            }
            if !self.split_configs().is_empty() {
                f.write_str("SC")?;
                for sc in self.split_configs() {
                    write!(f, "({}:", sc.dimension())?;
                    write_list(f, sc.split_indices())?;
                    f.write_char(')')?;
                }
            }
            if let Some(p) = self.sparse_physical_shape() {
                write!(f, "P({}[", p.element_type())?;
                write_list(f, p.dims())?;
                f.write_str("]")?;
                if !p.dims().is_empty() {
                    f.write_char('{')?;
                    write_list(f, p.minor_to_major())?;
                    f.write_char('}')?;
                }
                f.write_char(')')?;
            }
            if self.dynamic_shape_metadata_prefix_bytes() > 0 {
                write!(f, "M({})", self.dynamic_shape_metadata_prefix_bytes())?;
            }
            if let Some(p) = self.padding() {
                f.write_str("pad(")?;
                write_list(f, p.padded_dims())?;
                if !p.value().name().is_empty() {
                    write!(f, ":{}", p.value().name())?;
                }
                f.write_char(')')?;
            }
        }
        f.write_char('}')
    }
}

/// XLA prints `#(invalid)` / `*(invalid)` for a non-integral type.
fn integral_name(t: crate::element::PrimitiveType) -> &'static str {
    if t.is_integral() { t.name() } else { "invalid" }
}

fn write_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_char(',')?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl Display for Dim {
    /// `5`, `<=5` or `?`.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Static(n) => write!(f, "{n}"),
            Dim::Bounded(n) => write!(f, "<={n}"),
            Dim::Unbounded => f.write_char('?'),
        }
    }
}

impl Display for Shape {
    /// XLA's `HumanStringWithLayout`: `f32[3,5]{1,0}`; a scalar with the
    /// empty layout prints `f32[]`; a shape without a layout prints no
    /// layout.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.without_layout_display())?;
        match self.layout() {
            Some(l) if !l.is_empty() => write!(f, "{l}"),
            _ => Ok(()),
        }
    }
}

/// A shape printed without its layout (XLA's `HumanString`), made by
/// [`Shape::without_layout_display`].
///
/// ```
/// use tessera::Shape;
/// use tessera::text::HumanString;
/// let s: Shape = "f32[3,5]{0,1}".parse()?;
/// let h: HumanString<'_> = s.without_layout_display();
/// assert_eq!(h.to_string(), "f32[3,5]");
/// assert_eq!(s.to_string(), "f32[3,5]{0,1}");
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct HumanString<'a>(&'a Shape);

impl Display for HumanString<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.0.element_type())?;
        write_list(f, self.0.dims())?;
        f.write_char(']')
    }
}

impl Shape {
    /// The shape printed without its layout (XLA's `HumanString`):
    /// `f32[3,5]`.
    pub fn without_layout_display(&self) -> HumanString<'_> {
        HumanString(self)
    }
}
