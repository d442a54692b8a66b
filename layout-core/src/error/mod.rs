//! Errors: what rule was broken ([`ErrorKind`]) and where ([`ByteSpan`]).
//!
//! Every message is composed by one `const fn` ([`Error::message`]), so a
//! run-time `Display`, the `layout!` macro's `compile_error!` and a
//! compile-time evaluation panic all say the same sentence. Messages follow
//! rustc's style: lower case, no final period, code in backticks.

pub mod message;

use crate::element::PrimitiveType;
use crate::error::message::{Escaped, Message, Snippet, echo_width};

/// A range of bytes `start..end` in the text that was parsed.
///
/// ```
/// use tessera::{ArrayLayout, ByteSpan};
/// let text = "f32[3,5]{1,1}";
/// let span: ByteSpan = text.parse::<ArrayLayout>().unwrap_err().span().unwrap();
/// assert_eq!(&text[span.start..span.end], "1"); // the repeated dimension
/// assert_eq!(ByteSpan::new(4, 5).to(ByteSpan::new(6, 7)), ByteSpan::new(4, 7));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ByteSpan {
    /// First byte of the offending part.
    pub start: usize,
    /// One past its last byte (`start == end` for "at the end of input").
    pub end: usize,
}

impl ByteSpan {
    /// The span `start..end`.
    pub const fn new(start: usize, end: usize) -> Self {
        ByteSpan { start, end }
    }

    /// The smallest span covering both `self` and `other`.
    pub const fn to(self, other: ByteSpan) -> Self {
        ByteSpan {
            start: if self.start < other.start {
                self.start
            } else {
                other.start
            },
            end: if self.end > other.end {
                self.end
            } else {
                other.end
            },
        }
    }
}

/// Which part of a shape an error is about, before it is mapped to a byte
/// span by the parser (builder APIs have no text, so they keep only this).
///
/// ```
/// use tessera::{Layout, Locus, PrimitiveType, Shape};
/// let shape = Shape::new(PrimitiveType::F32, &[3, 5])?;
/// let err = shape.with_layout(Layout::new(&[1, 1])?).unwrap_err();
/// // Built without text: no span, but the part, `minor_to_major` entry 1.
/// assert_eq!(err.locus(), Locus::MinorToMajorEntry(1));
/// assert_eq!(err.span(), None);
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Locus {
    /// The shape or layout as a whole.
    Whole,
    /// The element type.
    ElementType,
    /// The list of dimensions `[...]` as a whole.
    Dims,
    /// Logical dimension `i`.
    Dim(usize),
    /// The `minor_to_major` list as a whole.
    MinorToMajor,
    /// Entry `i` of `minor_to_major`.
    MinorToMajorEntry(usize),
    /// Tile level `i`, as a whole.
    Tile(usize),
    /// Entry `j` of tile level `i`.
    TileEntry(usize, usize),
    /// An attribute such as `E(...)`, by its letter(s).
    Attribute(&'static str),
    /// Entry `i` of the `pad(...)` attribute.
    PaddingEntry(usize),
    /// Split config `i` of `SC(...)`.
    SplitConfig(usize),
}

/// The rule an input broke. Each variant carries the numbers its message
/// names.
///
/// ```
/// use tessera::{ArrayLayout, ErrorKind};
/// let a: ArrayLayout = "f32[3,5]".parse()?;
/// let err = a.try_offset(&[3, 0]).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::IndexOutOfBounds { dim: 0, index: 3, bound: 3 });
/// assert_eq!(err.to_string(), "index 3 is out of bounds for dimension `0` of size 3");
/// # Ok::<(), tessera::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    // ---- text ----
    /// The text ended where more was expected.
    UnexpectedEnd {
        /// What was expected, e.g. "`]`".
        expected: &'static str,
    },
    /// A line of HLO text that ends before something it needs.
    UnexpectedEndOfLine {
        /// What was expected, e.g. "`=`".
        expected: &'static str,
    },
    /// A token other than the expected one.
    UnexpectedToken {
        /// What was expected.
        expected: &'static str,
        /// The token found.
        found: Snippet,
    },
    /// A character that no token starts with.
    UnexpectedCharacter {
        /// The character.
        found: char,
    },
    /// An element type name XLA does not have.
    UnknownElementType {
        /// The name found.
        name: Snippet,
    },
    /// A number that is not a plain decimal integer (e.g. `3usize`, `0x10`).
    InvalidInteger {
        /// The text found.
        text: Snippet,
    },
    /// An integer too large for the field it sits in.
    IntegerTooLarge {
        /// What the integer is (e.g. "dimension size").
        what: &'static str,
        /// The largest value allowed.
        max: u64,
    },
    /// `{}` or `<>` after a shape: XLA reads a layout only where a
    /// dimension number or `:` follows the bracket, so this is no layout
    /// and no other part of a shape either.
    EmptyLayout,
    /// Text after a complete shape.
    TrailingInput {
        /// The first token after the shape.
        found: Snippet,
    },
    /// A layout attribute written after one that XLA prints after it.
    AttributeOutOfOrder {
        /// The attribute that came too late.
        attribute: &'static str,
        /// The attribute it must precede.
        before: &'static str,
    },
    /// A layout attribute written twice.
    DuplicateAttribute {
        /// The attribute.
        attribute: &'static str,
    },
    /// A layout attribute letter XLA does not have.
    UnknownAttribute {
        /// The text found.
        name: Snippet,
    },
    /// A sparse-only layout attribute (`#(..)`, `*(..)`, `P(..)`, `D(..)`).
    SparseLayout {
        /// The attribute, e.g. "`#(...)` (index_primitive_type)".
        attribute: &'static str,
    },
    /// A non-integral type in `#(..)` or `*(..)`, which XLA would print as
    /// `#(invalid)` (text that does not parse back).
    NonIntegralIndexType {
        /// The attribute, e.g. "`#(...)` (index_primitive_type)".
        attribute: &'static str,
        /// The type found.
        found: PrimitiveType,
    },
    /// A tuple `(...)` or buffer `b(...)` where one array shape is needed.
    NotASingleShape {
        /// "tuple" or "buffer".
        what: &'static str,
    },
    /// The writer given to [`write_canonical`](crate::text::write_canonical)
    /// failed.
    WriteFailed,
    /// Tuples nested deeper than [`MAX_TUPLE_DEPTH`](crate::limits::MAX_TUPLE_DEPTH).
    NestingTooDeep {
        /// The limit.
        max: usize,
    },

    // ---- shape ----
    /// `token` or `opaque` where an array type is needed.
    NotAnArrayType {
        /// The type found.
        element_type: PrimitiveType,
    },
    /// `token`/`opaque` written with dimensions.
    NonArrayWithDims {
        /// The type found.
        element_type: PrimitiveType,
    },
    /// More dimensions than [`MAX_RANK`](crate::limits::MAX_RANK).
    RankTooLarge {
        /// The rank asked for.
        rank: usize,
        /// The limit.
        max: usize,
    },
    /// A negative dimension size.
    NegativeDimension {
        /// The logical dimension.
        dim: usize,
    },
    /// A dimension's size is not known (`?`) where a size is needed.
    UnboundedDimension {
        /// The logical dimension.
        dim: usize,
    },
    /// A dimension number outside `-rank..rank`.
    DimensionOutOfRange {
        /// The dimension number asked for.
        dim: i64,
        /// The rank of the shape.
        rank: usize,
    },
    /// An operation needs a layout and the shape has none.
    MissingLayout,

    // ---- layout ----
    /// `minor_to_major` has the wrong number of entries.
    MinorToMajorLength {
        /// Entries given.
        len: usize,
        /// Rank of the shape.
        rank: usize,
    },
    /// A `minor_to_major` entry is not a dimension of the shape.
    MinorToMajorOutOfRange {
        /// The entry.
        value: i64,
        /// Rank of the shape.
        rank: usize,
    },
    /// A negative `minor_to_major` entry.
    NegativeMinorToMajorEntry,
    /// A dimension appears twice in `minor_to_major`.
    MinorToMajorDuplicate {
        /// The repeated dimension.
        dim: usize,
    },
    /// More tile levels than [`MAX_TILE_LEVELS`](crate::limits::MAX_TILE_LEVELS).
    TooManyTileLevels {
        /// The limit.
        max: usize,
    },
    /// A tile with no entries, `()`.
    EmptyTile,
    /// A tile with more entries than [`MAX_RANK`](crate::limits::MAX_RANK).
    TileRankTooLarge {
        /// Entries given.
        rank: usize,
        /// The limit.
        max: usize,
    },
    /// A tile entry of 0.
    ZeroTileDim,
    /// A negative tile entry other than `*`.
    NegativeTileDim,
    /// `*` as the most-minor entry of a tile.
    CombinedDimMostMinor,
    /// `L(0)` or a negative `L`.
    TailPaddingAlignmentZero,
    /// `E(n)` narrower than the element type.
    ElementSizeTooSmall {
        /// `n`.
        bits: u32,
        /// The element type.
        element_type: PrimitiveType,
    },
    /// `E(n)` that is neither 1, 2, 4 nor a multiple of 8.
    ElementSizeUnsupported {
        /// `n`.
        bits: u32,
    },
    /// `E(n)` on a non-array type.
    ElementSizeOnNonArray,
    /// `S(n)` outside XLA's `int8` range 0..=127.
    MemorySpaceOutOfRange,
    /// More split configs or split indices than tessera stores.
    TooManySplits {
        /// The limit.
        max: usize,
    },
    /// A split config names a physical dimension the shape does not have.
    SplitDimensionOutOfRange {
        /// The dimension.
        dim: usize,
        /// Rank of the shape.
        rank: usize,
    },
    /// Split indices that are not strictly increasing and positive.
    SplitIndicesNotIncreasing,
    /// `pad(...)` with the wrong number of entries.
    PaddingLength {
        /// Entries given.
        len: usize,
        /// Rank of the shape.
        rank: usize,
    },
    /// A padded width below the dimension's size.
    PaddedBelowSize {
        /// The logical dimension.
        dim: usize,
        /// The padded width.
        padded: usize,
        /// The dimension's size.
        size: usize,
    },
    /// Padding an unbounded (`?`) dimension.
    PaddingOfUnboundedDim {
        /// The logical dimension.
        dim: usize,
    },

    // ---- sizes and indices ----
    /// A shape whose byte size does not fit XLA's `int64`, which XLA
    /// rejects when it validates the shape ("size may overflow int64_t").
    SizeMayOverflowInt64 {
        /// Which size, e.g. "the byte size".
        what: &'static str,
    },
    /// A size, stride or offset does not fit `usize` (or XLA's `i64`).
    Overflow {
        /// What overflowed, e.g. "the buffer length".
        what: &'static str,
    },
    /// An index with the wrong number of entries.
    IndexRankMismatch {
        /// The layout's rank.
        expected: usize,
        /// Entries given.
        found: usize,
    },
    /// A dimension size given as a number (not text) above
    /// [`MAX_DIM_SIZE`](crate::limits::MAX_DIM_SIZE), XLA's `int64` limit.
    DimSizeTooLarge {
        /// The logical dimension.
        dim: usize,
        /// The size given.
        size: usize,
        /// The largest size.
        max: usize,
    },
    /// A row index (every entry of an index but the last, as a packed
    /// tensor's `read_row` takes it) with the wrong number of entries.
    RowIndexRankMismatch {
        /// The layout's rank: a row index takes one entry fewer (none
        /// for rank 0 or 1).
        rank: usize,
        /// Entries given.
        found: usize,
    },
    /// A buffer for one row of values (as a packed tensor's `read_row`
    /// fills it) that is not as long as the row.
    RowLengthMismatch {
        /// Elements in a row: the size of the last dimension.
        row_len: usize,
        /// The buffer's length.
        found: usize,
    },
    /// An index entry at or past its dimension's size.
    IndexOutOfBounds {
        /// The logical dimension.
        dim: usize,
        /// The index entry.
        index: usize,
        /// The dimension's size.
        bound: usize,
    },
    /// A list that should be a permutation of `0..rank` is not one (a
    /// repeated or out-of-range entry, or the wrong length).
    InvalidPermutation {
        /// Entries given.
        len: usize,
        /// The rank it should permute.
        rank: usize,
    },
    /// Two shapes differ in tuple structure or rank where an operation
    /// needs them alike (XLA's "cannot copy layout from shape").
    ShapeStructureMismatch,
    /// An operation that, like XLA's, does not implement `*` (combined
    /// dimension) tile entries.
    CombinedDimUnsupported {
        /// The operation, e.g. "`linear_index_top_tile_only`".
        operation: &'static str,
    },
    /// A linear offset at or past the buffer length.
    OffsetOutOfBounds {
        /// The offset.
        offset: usize,
        /// The buffer length.
        buffer_len: usize,
    },

    // ---- buffers and relayout ----
    /// Two element types that must agree do not: a Rust element type and
    /// a layout's, or the two layouts of a relayout.
    ElementTypeMismatch {
        /// The type required (the layout's, or the source's).
        expected: PrimitiveType,
        /// The type given.
        found: PrimitiveType,
    },
    /// Two layouts of a relayout differ in rank.
    RankMismatch {
        /// The source's rank.
        expected: usize,
        /// The destination's rank.
        found: usize,
    },
    /// Two layouts of a relayout differ in the size of a dimension.
    DimensionMismatch {
        /// The logical dimension.
        dim: usize,
        /// Its size in the source.
        expected: usize,
        /// Its size in the destination.
        found: usize,
    },
    /// A buffer that could not be allocated (not enough memory, or more
    /// than the address space holds).
    AllocationFailed {
        /// The bytes asked for (saturated at `usize::MAX`).
        bytes: usize,
    },
    /// A buffer shorter than the layout needs.
    BufferTooShort {
        /// Slots the layout needs.
        needed: usize,
        /// Slots the buffer has.
        found: usize,
    },
    /// A packed (sub-byte) buffer with fewer bytes than the layout needs.
    ByteBufferTooShort {
        /// Bytes the layout needs.
        needed: usize,
        /// Bytes the buffer has.
        found: usize,
    },
    /// An inline buffer (`[T; N]`) whose length is not the layout's
    /// buffer length, which it must be exactly.
    InlineBufferLengthMismatch {
        /// The layout's buffer length.
        needed: usize,
        /// `N`.
        found: usize,
    },
    /// Fewer values than the layout has elements.
    TooFewValues {
        /// The layout's element count.
        needed: usize,
        /// Values given.
        found: usize,
    },
    /// More values than the layout has elements.
    TooManyValues {
        /// The layout's element count.
        needed: usize,
    },
    /// A layout whose elements take a different number of bits than the
    /// Rust type that should hold them (`E(16)` on `s8`, or a sub-byte
    /// type read as a whole-byte type).
    ElementWidthMismatch {
        /// Bits per element in the layout (`E(n)`, or the type's width).
        layout_bits: usize,
        /// Bits of the Rust type, or of the packed storage asked for.
        storage_bits: usize,
    },
    /// A layout's padding value that the element type does not have
    /// (`pad(..:lowest)` on a complex type).
    PaddingValueUndefined {
        /// The padding value's word.
        value: &'static str,
        /// The element type.
        element_type: PrimitiveType,
    },
    /// A run-time extent given for a dim that the layout fixes.
    StaticDimensionMismatch {
        /// The logical dimension.
        dim: usize,
        /// Its static size.
        expected: usize,
        /// The extent given.
        found: usize,
    },
    /// A run-time extent above its `<=N` bound.
    BoundExceeded {
        /// The logical dimension.
        dim: usize,
        /// The bound `N`.
        bound: usize,
        /// The extent given.
        found: usize,
    },
    /// Tile views asked of a layout without `T(..)` tiles.
    NotTiled,
    /// Tile views asked of a tiling whose first-level tiles are not
    /// blocks of the buffer that a view can describe.
    TileViewUnsupported {
        /// Why, e.g. "the first tile has more entries than the array has dimensions".
        reason: &'static str,
    },
    /// A strided view (ndarray's) asked of a layout whose elements are not
    /// at `index · strides`: tiles, `pad(..)`.
    NotStrided {
        /// Why, e.g. "tiles reorder the elements".
        reason: &'static str,
    },
    /// A strided view whose stride along a dimension is not the layout's.
    StrideMismatch {
        /// The logical dimension.
        dim: usize,
        /// The layout's stride, in elements.
        expected: usize,
        /// The view's stride, in elements.
        found: isize,
    },
    /// A window range that is reversed or reaches past its dimension.
    WindowOutOfBounds {
        /// The logical dimension.
        dim: usize,
        /// The range's start.
        start: usize,
        /// The range's end.
        end: usize,
        /// The dimension's size.
        size: usize,
    },
    /// A value outside what a sub-byte element type can hold.
    ValueOutOfRange {
        /// The value.
        value: i64,
        /// The element type.
        element_type: PrimitiveType,
    },
}

/// An error from parsing, building, validating or indexing a layout: the
/// broken rule and, for text, the byte span of the offending part.
///
/// ```
/// use tessera::ArrayLayout;
/// let err = "f32[3,5]{1,1}".parse::<ArrayLayout>().unwrap_err();
/// assert_eq!(err.to_string(), "dimension `1` appears twice in minor_to_major");
/// assert_eq!(err.span().map(|s| (s.start, s.end)), Some((11, 12)));
/// assert_eq!(
///     err.report("f32[3,5]{1,1}").to_string(),
///     "error: dimension `1` appears twice in minor_to_major\n  f32[3,5]{1,1}\n             ^",
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    locus: Locus,
    span: Option<ByteSpan>,
}

impl Error {
    /// An error about the whole input, with no span yet.
    pub const fn new(kind: ErrorKind) -> Self {
        Error {
            kind,
            locus: Locus::Whole,
            span: None,
        }
    }

    /// An error about one part of a shape or layout.
    pub const fn at(kind: ErrorKind, locus: Locus) -> Self {
        Error {
            kind,
            locus,
            span: None,
        }
    }

    /// An error spanning `span` of the parsed text.
    pub const fn spanned(kind: ErrorKind, span: ByteSpan) -> Self {
        Error {
            kind,
            locus: Locus::Whole,
            span: Some(span),
        }
    }

    /// The same error with its span set.
    pub const fn with_span(mut self, span: ByteSpan) -> Self {
        self.span = Some(span);
        self
    }

    /// The rule broken.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Which part of the shape the error is about.
    pub const fn locus(&self) -> Locus {
        self.locus
    }

    /// The byte span of the offending part, for errors from text.
    pub const fn span(&self) -> Option<ByteSpan> {
        self.span
    }

    /// The message, composed in `const` context.
    pub const fn message(&self) -> Message {
        let mut m = Message::new();
        describe(&self.kind, &mut m);
        m
    }

    /// Panics with this error's message. Used by `const` APIs (such as a
    /// static layout's `offset`) so that a bad constant input is a compile
    /// error that says what is wrong.
    #[track_caller]
    pub const fn panic(&self) -> ! {
        let m = self.message();
        panic!("{}", m.as_str())
    }

    /// The error with the input it came from, displayed as the message, the
    /// input, and a caret line under the offending part.
    pub fn report<'a>(&'a self, input: &'a str) -> Report<'a> {
        Report { error: self, input }
    }
}

const fn describe(kind: &ErrorKind, m: &mut Message) {
    match *kind {
        ErrorKind::UnexpectedEnd { expected } => {
            m.push_str("expected ");
            m.push_str(expected);
            m.push_str(", found the end of the input");
        }
        ErrorKind::UnexpectedEndOfLine { expected } => {
            m.push_str("expected ");
            m.push_str(expected);
            m.push_str(", found the end of the line");
        }
        ErrorKind::UnexpectedToken { expected, found } => {
            m.push_str("expected ");
            m.push_str(expected);
            m.push_str(", found ");
            push_snippet(m, &found);
        }
        ErrorKind::UnexpectedCharacter { found } => {
            m.push_str("unexpected character `");
            let mut buf = [0u8; 4];
            m.push_escaped(found.encode_utf8(&mut buf));
            m.push_str("`");
        }
        ErrorKind::UnknownElementType { name } => {
            m.push_str("unknown element type ");
            push_snippet(m, &name);
            m.push_str(" (expected one of XLA's types: pred, s4, s8, s32, u8, bf16, f16, f32, f64, c64, ...)");
        }
        ErrorKind::InvalidInteger { text } => {
            m.push_str("invalid integer ");
            push_snippet(m, &text);
            m.push_str(": expected plain decimal digits");
        }
        ErrorKind::IntegerTooLarge { what, max } => {
            m.push_str(what);
            m.push_str(" is too large (the maximum is ");
            m.push_u64(max);
            m.push_str(")");
        }
        ErrorKind::EmptyLayout => {
            m.push_str(
                "an empty layout: a layout starts with a dimension number or `:`; \
                 a scalar's is left out (`f32[]`), an array's lists every dimension (`{1,0}`)",
            );
        }
        ErrorKind::TrailingInput { found } => {
            m.push_str("unexpected ");
            push_snippet(m, &found);
            m.push_str(" after the end of the shape");
        }
        ErrorKind::AttributeOutOfOrder { attribute, before } => {
            m.push_str("layout attribute ");
            m.push_str(attribute);
            m.push_str(" must come before ");
            m.push_str(before);
            m.push_str(" (XLA's order is T L # * E S SC P M, then tessera's pad)");
        }
        ErrorKind::DuplicateAttribute { attribute } => {
            m.push_str("layout attribute ");
            m.push_str(attribute);
            m.push_str(" appears twice");
        }
        ErrorKind::UnknownAttribute { name } => {
            m.push_str("unknown layout attribute ");
            push_snippet(m, &name);
            m.push_str(" (expected T, L, E, S, SC, M or pad)");
        }
        ErrorKind::NonIntegralIndexType { attribute, found } => {
            m.push_str(attribute);
            m.push_str(" takes an integral type such as `s32`, not ");
            m.push_code(found.name());
        }
        ErrorKind::SparseLayout { attribute } => {
            m.push_str(attribute);
            m.push_str(" belongs to sparse layouts, which are not supported");
        }
        ErrorKind::NotASingleShape { what } => {
            m.push_str("expected an array shape, found a ");
            m.push_str(what);
        }
        ErrorKind::NestingTooDeep { max } => {
            m.push_str("tuples are nested more than ");
            m.push_usize(max);
            m.push_str(" deep");
        }
        ErrorKind::NotAnArrayType { element_type } => {
            m.push_code(element_type.name());
            m.push_str(" is not an array element type");
        }
        ErrorKind::NonArrayWithDims { element_type } => {
            m.push_code(element_type.name());
            m.push_str(" is not an array type and takes no dimensions (write `");
            m.push_str(element_type.name());
            m.push_str("[]`)");
        }
        ErrorKind::RankTooLarge { rank, max } => {
            m.push_str("rank ");
            m.push_usize(rank);
            m.push_str(" is above tessera's maximum of ");
            m.push_usize(max);
        }
        ErrorKind::NegativeDimension { dim } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" has a negative size");
        }
        ErrorKind::UnboundedDimension { dim } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" is unbounded (`?`), so its size is not known");
        }
        ErrorKind::DimensionOutOfRange { dim, rank } => {
            m.push_str("dimension `");
            m.push_i64(dim);
            m.push_str("` is out of range for rank ");
            m.push_usize(rank);
        }
        ErrorKind::MissingLayout => m.push_str("the shape does not have a layout"),
        ErrorKind::MinorToMajorLength { len, rank } => {
            m.push_str("minor_to_major has ");
            m.push_usize(len);
            m.push_str(if len == 1 { " entry" } else { " entries" });
            m.push_str(" but the shape has rank ");
            m.push_usize(rank);
        }
        ErrorKind::MinorToMajorOutOfRange { value, rank } => {
            m.push_str("dimension `");
            m.push_i64(value);
            m.push_str("` in minor_to_major is out of range for rank ");
            m.push_usize(rank);
        }
        ErrorKind::NegativeMinorToMajorEntry => {
            m.push_str("minor_to_major lists dimension numbers, which cannot be negative")
        }
        ErrorKind::WriteFailed => m.push_str("the output writer failed"),
        ErrorKind::MinorToMajorDuplicate { dim } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" appears twice in minor_to_major");
        }
        ErrorKind::TooManyTileLevels { max } => {
            m.push_str("more than ");
            m.push_usize(max);
            m.push_str(" tile levels");
        }
        ErrorKind::EmptyTile => m.push_str("a tile needs at least one entry"),
        ErrorKind::TileRankTooLarge { rank, max } => {
            m.push_str("a tile with ");
            m.push_usize(rank);
            m.push_str(" entries is above tessera's maximum of ");
            m.push_usize(max);
        }
        ErrorKind::ZeroTileDim => m.push_str("a tile entry must be at least 1"),
        ErrorKind::NegativeTileDim => m.push_str("a tile entry must be a positive size or `*`"),
        ErrorKind::CombinedDimMostMinor => m.push_str(
            "`*` cannot be the last entry of a tile: there is no more-minor dimension to combine it into",
        ),
        ErrorKind::TailPaddingAlignmentZero => {
            m.push_str("tail padding alignment `L` must be at least 1")
        }
        ErrorKind::ElementSizeTooSmall { bits, element_type } => {
            m.push_str("element size E(");
            m.push_u64(bits as u64);
            m.push_str(") is narrower than ");
            m.push_code(element_type.name());
            m.push_str("'s ");
            m.push_u64(element_type.bit_width() as u64);
            m.push_str(" bits");
        }
        ErrorKind::ElementSizeUnsupported { bits } => {
            m.push_str("element size E(");
            m.push_u64(bits as u64);
            m.push_str(") must be 1, 2, 4 or a multiple of 8 bits");
        }
        ErrorKind::ElementSizeOnNonArray => {
            m.push_str("element size E(n) needs an array element type")
        }
        ErrorKind::MemorySpaceOutOfRange => {
            m.push_str("memory space `S` must be between 0 and 127 (XLA stores it in an int8)")
        }
        ErrorKind::TooManySplits { max } => {
            m.push_str("more than ");
            m.push_usize(max);
            m.push_str(" split configs or split indices");
        }
        ErrorKind::SplitDimensionOutOfRange { dim, rank } => {
            m.push_str("split config dimension ");
            m.push_code_usize(dim);
            m.push_str(" is out of range for rank ");
            m.push_usize(rank);
        }
        ErrorKind::SplitIndicesNotIncreasing => {
            m.push_str("split indices must be positive and strictly increasing")
        }
        ErrorKind::PaddingLength { len, rank } => {
            m.push_str("pad(...) has ");
            m.push_usize(len);
            m.push_str(if len == 1 { " entry" } else { " entries" });
            m.push_str(" but the shape has rank ");
            m.push_usize(rank);
        }
        ErrorKind::PaddedBelowSize { dim, padded, size } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" is padded to ");
            m.push_usize(padded);
            m.push_str(", below its size ");
            m.push_usize(size);
        }
        ErrorKind::PaddingOfUnboundedDim { dim } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" is unbounded (`?`) and cannot be padded");
        }
        ErrorKind::SizeMayOverflowInt64 { what } => {
            m.push_str(what);
            m.push_str(" may overflow int64_t");
        }
        ErrorKind::Overflow { what } => {
            m.push_str(what);
            m.push_str(" overflows");
        }
        ErrorKind::IndexRankMismatch { expected, found } => {
            m.push_str("index has ");
            m.push_usize(found);
            m.push_str(if found == 1 { " entry" } else { " entries" });
            m.push_str(" but the layout has rank ");
            m.push_usize(expected);
        }
        ErrorKind::DimSizeTooLarge { dim, size, max } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" has size ");
            m.push_usize(size);
            m.push_str(", above the maximum of ");
            m.push_usize(max);
        }
        ErrorKind::RowIndexRankMismatch { rank, found } => {
            m.push_str("row index has ");
            m.push_usize(found);
            m.push_str(if found == 1 { " entry" } else { " entries" });
            m.push_str(" but a row of a rank-");
            m.push_usize(rank);
            m.push_str(" layout takes ");
            m.push_usize(rank.saturating_sub(1));
        }
        ErrorKind::RowLengthMismatch { row_len, found } => {
            m.push_str("the row buffer has ");
            m.push_usize(found);
            m.push_str(if found == 1 { " slot" } else { " slots" });
            m.push_str(" but a row has ");
            m.push_usize(row_len);
            m.push_str(if row_len == 1 { " element" } else { " elements" });
        }
        ErrorKind::IndexOutOfBounds { dim, index, bound } => {
            m.push_str("index ");
            m.push_usize(index);
            m.push_str(" is out of bounds for dimension ");
            m.push_code_usize(dim);
            m.push_str(" of size ");
            m.push_usize(bound);
        }
        ErrorKind::InvalidPermutation { len, rank } => {
            m.push_str("expected a permutation of the ");
            m.push_usize(rank);
            m.push_str(" dimensions, found a list of ");
            m.push_usize(len);
            m.push_str(" entries that is not one");
        }
        ErrorKind::ShapeStructureMismatch => {
            m.push_str("cannot copy layout from shape: tuple structure or rank differs")
        }
        ErrorKind::CombinedDimUnsupported { operation } => {
            m.push_str(operation);
            m.push_str(" does not support `*` (combined dimension) tile entries");
        }
        ErrorKind::OffsetOutOfBounds { offset, buffer_len } => {
            m.push_str("offset ");
            m.push_usize(offset);
            m.push_str(" is out of bounds for a buffer of length ");
            m.push_usize(buffer_len);
        }
        ErrorKind::ElementTypeMismatch { expected, found } => {
            m.push_str("element type ");
            m.push_code(found.name());
            m.push_str(" does not match the layout's element type ");
            m.push_code(expected.name());
        }
        ErrorKind::RankMismatch { expected, found } => {
            m.push_str("the source has rank ");
            m.push_usize(expected);
            m.push_str(" but the destination has rank ");
            m.push_usize(found);
        }
        ErrorKind::DimensionMismatch {
            dim,
            expected,
            found,
        } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" has size ");
            m.push_usize(expected);
            m.push_str(" in the source but ");
            m.push_usize(found);
            m.push_str(" in the destination");
        }
        ErrorKind::AllocationFailed { bytes } => {
            m.push_str("cannot allocate a buffer of ");
            m.push_usize(bytes);
            m.push_str(" bytes");
        }
        ErrorKind::BufferTooShort { needed, found } => {
            m.push_str("the buffer has ");
            m.push_usize(found);
            m.push_str(" slots but the layout needs ");
            m.push_usize(needed);
        }
        ErrorKind::ByteBufferTooShort { needed, found } => {
            m.push_str("the buffer has ");
            m.push_usize(found);
            m.push_str(if found == 1 { " byte" } else { " bytes" });
            m.push_str(" but the layout needs ");
            m.push_usize(needed);
        }
        ErrorKind::InlineBufferLengthMismatch { needed, found } => {
            m.push_str("the inline buffer has ");
            m.push_usize(found);
            m.push_str(" slots but the layout's buffer is ");
            m.push_usize(needed);
            m.push_str(" slots, which it must be exactly");
        }
        ErrorKind::TooFewValues { needed, found } => {
            m.push_usize(found);
            m.push_str(if found == 1 { " value" } else { " values" });
            m.push_str(" given but the layout has ");
            m.push_usize(needed);
            m.push_str(" elements");
        }
        ErrorKind::TooManyValues { needed } => {
            m.push_str("more values given than the layout's ");
            m.push_usize(needed);
            m.push_str(" elements");
        }
        ErrorKind::ElementWidthMismatch {
            layout_bits,
            storage_bits,
        } => {
            m.push_str("the layout stores elements in ");
            m.push_usize(layout_bits);
            m.push_str(if layout_bits == 1 { " bit" } else { " bits" });
            m.push_str(" but the storage holds ");
            m.push_usize(storage_bits);
            m.push_str(" bits per element");
            if layout_bits < 8 && storage_bits >= 8 {
                m.push_str(" (packed elements are held by `PackedBuf`, `tessera::packed`)");
            }
        }
        ErrorKind::StaticDimensionMismatch {
            dim,
            expected,
            found,
        } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" is static with size ");
            m.push_usize(expected);
            m.push_str(", but the extent given is ");
            m.push_usize(found);
        }
        ErrorKind::BoundExceeded { dim, bound, found } => {
            m.push_str("extent ");
            m.push_usize(found);
            m.push_str(" of dimension ");
            m.push_code_usize(dim);
            m.push_str(" is above its bound <=");
            m.push_usize(bound);
        }
        ErrorKind::PaddingValueUndefined {
            value,
            element_type,
        } => {
            m.push_str("element type ");
            m.push_code(element_type.name());
            m.push_str(" has no ");
            m.push_code(value);
            m.push_str(" value to pad with");
        }
        ErrorKind::NotTiled => m.push_str(
            "the layout has no tiles: tile views need a `T(..)` level (index, iterate or take a window instead)",
        ),
        ErrorKind::TileViewUnsupported { reason } => {
            m.push_str("no tile views for this tiling: ");
            m.push_str(reason);
        }
        ErrorKind::NotStrided { reason } => {
            m.push_str("the layout is not strided: ");
            m.push_str(reason);
            m.push_str("; `relayout` the tensor to a layout without tiles or padding (e.g. ");
            m.push_code("{1,0}");
            m.push_str(") for a strided view");
        }
        ErrorKind::StrideMismatch {
            dim,
            expected,
            found,
        } => {
            m.push_str("dimension ");
            m.push_code_usize(dim);
            m.push_str(" has stride ");
            if found < 0 {
                m.push_str("-");
            }
            m.push_usize(found.unsigned_abs());
            m.push_str(" in the view but ");
            m.push_usize(expected);
            m.push_str(" in the layout");
        }
        ErrorKind::WindowOutOfBounds {
            dim,
            start,
            end,
            size,
        } => {
            m.push_str("window range ");
            m.push_usize(start);
            m.push_str("..");
            m.push_usize(end);
            m.push_str(" of dimension ");
            m.push_code_usize(dim);
            if start > end {
                m.push_str(" is reversed");
            } else {
                m.push_str(" reaches past its size ");
                m.push_usize(size);
            }
        }
        ErrorKind::ValueOutOfRange {
            value,
            element_type,
        } => {
            m.push_str("value ");
            m.push_i64(value);
            m.push_str(" does not fit element type ");
            m.push_code(element_type.name());
        }
    }
}

const fn push_snippet(m: &mut Message, s: &Snippet) {
    m.push_str("`");
    m.push_escaped(s.as_str());
    if s.is_cut() {
        m.push_str("...");
    }
    m.push_str("`");
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.message().as_str())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// An [`Error`] shown with its input: the message, then the input, then a
/// caret line under the offending part. Made by [`Error::report`].
///
/// ```
/// use tessera::{ArrayLayout, Report};
/// let text = "f32[2]{1}";
/// let err = text.parse::<ArrayLayout>().unwrap_err();
/// let report: Report<'_> = err.report(text);
/// assert_eq!(
///     report.to_string(),
///     "error: dimension `1` in minor_to_major is out of range for rank 1\n  f32[2]{1}\n         ^",
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    error: &'a Error,
    input: &'a str,
}

impl core::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "error: {}", self.error)?;
        let Some(span) = self.error.span else {
            return Ok(());
        };
        // Show the line holding the span (inputs are normally one line).
        let start = floor_char_boundary(self.input, span.start.min(self.input.len()));
        let end = floor_char_boundary(self.input, span.end.min(self.input.len())).max(start);
        let line_start = self.input[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.input[start..]
            .find('\n')
            .map_or(self.input.len(), |i| start + i);
        // Echoed with controls escaped, so the caret counts escapes' width.
        let line = &self.input[line_start..line_end];
        write!(f, "\n  {}\n  ", Escaped(line))?;
        for c in self.input[line_start..start].chars() {
            for _ in 0..echo_width(c) {
                f.write_str(" ")?;
            }
        }
        let width = self.input[start..end.min(line_end)]
            .chars()
            .map(echo_width)
            .sum::<usize>()
            .max(1);
        for _ in 0..width {
            f.write_str("^")?;
        }
        Ok(())
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}
