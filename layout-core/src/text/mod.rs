//! XLA's shape text: one grammar ([`parse_shape`]) and one printer (the
//! `Display` impls of [`Shape`](crate::Shape), [`Layout`](crate::Layout),
//! [`Tile`](crate::Tile) and [`ArrayLayout`](crate::ArrayLayout)).
//!
//! ```text
//! shape  ::= array | '(' [shape (',' shape)*] ')' | 'b(' shape ')'
//! array  ::= type '[' [dim (',' dim)*] ']' [layout]
//! dim    ::= INT | '<=' INT | '?'
//! layout ::= ('{' | '<') [INT (',' INT)*] [':' attrs] ('}' | '>')
//! attrs  ::= [T] [L] [E] [S] [SC] [M] [pad]       -- in this order
//! T      ::= 'T' ('(' tdim (',' tdim)* ')')+       tdim ::= INT | '*'
//! L | E | S | M ::= letter '(' INT ')'
//! SC     ::= 'SC' ('(' INT ':' INT (',' INT)* ')')+
//! pad    ::= 'pad' '(' INT (',' INT)* [':' ('zero'|'one'|'lowest'|'highest')] ')'
//! ```
//!
//! Whitespace may stand between tokens. `#(..)`, `*(..)`, `P(..)` and
//! `D(..)` are recognised and rejected: they belong to sparse layouts.
//! A `{` after the dims starts a layout only when an integer or `:`
//! follows, as in XLA, so `f32[2]{}` is an error ("unexpected `{`").

mod lexer;
mod parser;
mod printer;

pub use parser::{
    ParsedShape, SpanTable, TreeEvent, parse_layout, parse_shape, parse_shape_tree, write_canonical,
};
pub use printer::HumanString;

#[cfg(test)]
mod tests;
