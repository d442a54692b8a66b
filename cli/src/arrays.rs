//! What `show` and `svg` draw: the arrays of any shape `check` accepts.
//! A tuple gives one array per leaf, titled by XLA's ShapeIndex; a `?`
//! dimension is drawn at the extent `--extent DIM=N` gives it; a `<=N`
//! dimension at its bound N, the room XLA gives it.

use layout_core::text::parse_shape;
use layout_core::{ArrayLayout, Dim, Error, ErrorKind, Shape};

use crate::dims;
use crate::hlo;
use crate::spec::{self, CliError};

/// One array to draw.
pub(crate) struct Drawn {
    /// `{0,1}: f32[4]{0}` for a tuple's leaf; `None` for an array.
    pub(crate) title: Option<String>,
    /// The array, or why a leaf has nothing to draw (`token[]`).
    pub(crate) array: Result<ArrayLayout, String>,
}

/// `--extent`'s entries, `DIM=N` separated by commas (`0=37`, `y=37,x=5`).
///
/// # Errors
/// An entry that is not `DIM=N`.
pub(crate) fn parse_extents(text: Option<&str>) -> Result<Vec<(String, usize)>, CliError> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    text.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|part| {
            let bad = || {
                CliError::msg(format!(
                    "`--extent` takes DIM=N entries (e.g. `0=37` or `y=37,x=5`), not `{part}`"
                ))
            };
            let (d, n) = part.split_once('=').ok_or_else(bad)?;
            let n = n.trim().parse::<usize>().map_err(|e| match e.kind() {
                core::num::IntErrorKind::PosOverflow => CliError::msg(format!(
                    "`--extent` entry `{part}`: the size is larger than the largest \
                     this machine holds ({})",
                    usize::MAX
                )),
                _ => bad(),
            })?;
            Ok((d.trim().to_string(), n))
        })
        .collect()
}

/// The arrays of `text` with `extents` applied.
///
/// # Errors
/// What `check` reports for `text` (with its caret); a `?` dimension
/// without an extent (caret under it); an extent for a dimension that is
/// not `?` in a single array; an extent that makes the buffer overflow.
pub(crate) fn arrays(text: &str, extents: &[(String, usize)]) -> Result<Vec<Drawn>, CliError> {
    spec::canonical(text).map_err(|e| CliError::report(&e, text))?;
    match parse_shape(text) {
        Ok(_) => Ok(vec![Drawn {
            title: None,
            array: Ok(with_extents(text, extents, true)?),
        }]),
        Err(e) if matches!(e.kind(), ErrorKind::NotASingleShape { .. }) => {
            let leaves = hlo::leaves(text).map_err(|e| CliError::report(&e, text))?;
            let mut out = Vec::new();
            for leaf in leaves.iter().filter(|l| !l.shape.starts_with('(')) {
                let index: Vec<String> = leaf.index.iter().map(usize::to_string).collect();
                let title = Some(format!("{{{}}}: {}", index.join(","), leaf.shape));
                let parsed = parse_shape(&leaf.shape).map_err(|e| CliError::report(&e, text))?;
                let array = if parsed.shape.is_array() {
                    Ok(with_extents(&leaf.shape, extents, false)?)
                } else {
                    Err(format!("{} has no elements to draw", leaf.shape))
                };
                out.push(Drawn { title, array });
            }
            Ok(out)
        }
        Err(e) => Err(CliError::report(&e, text)),
    }
}

/// The one array of `text`, its `?` dims set by `extents`. With `strict`,
/// an extent for a dimension that is not `?` is an error; else it is
/// ignored (a tuple's other leaves).
fn with_extents(
    text: &str,
    extents: &[(String, usize)],
    strict: bool,
) -> Result<ArrayLayout, CliError> {
    let parsed = parse_shape(text).map_err(|e| CliError::report(&e, text))?;
    let shape = parsed.shape;
    let rank = shape.rank();
    let mut sizes: Vec<Dim> = shape.dims().to_vec();
    for (name, n) in extents {
        let d = dims::parse_one(rank, name)?;
        match sizes[d] {
            Dim::Unbounded => sizes[d] = Dim::Static(*n),
            Dim::Static(s) | Dim::Bounded(s) if strict => {
                let what = if matches!(sizes[d], Dim::Bounded(_)) {
                    format!("is bounded (`<={s}`) and drawn at its bound")
                } else {
                    format!("has size {s}")
                };
                return Err(CliError::msg(format!(
                    "dimension `{name}` {what}; `--extent` gives the size of a `?` dimension"
                )));
            }
            _ => {}
        }
    }
    if let Some(d) = sizes.iter().position(|d| *d == Dim::Unbounded) {
        let e = Error::spanned(
            ErrorKind::UnboundedDimension { dim: d },
            parsed.spans.dim[d],
        );
        let mut err = CliError::report(&e, text);
        err.text.push_str(&format!(
            "\n  (draw it at a size with `--extent {}=N`)",
            dims::name(rank, d)
        ));
        return Err(err);
    }
    let resized = Shape::with_dims(shape.element_type(), &sizes)
        .and_then(|s| match shape.layout() {
            Some(l) => s.with_layout(*l),
            None => Ok(s),
        })
        .and_then(ArrayLayout::new);
    resized.map_err(|e| match extents.is_empty() {
        true => CliError::msg(e.to_string()),
        false => CliError::msg(format!("with `--extent`, {e}")),
    })
}
