//! Names of logical dimensions as XLA writes them (`x`; `y x`; `z y x`;
//! `p z y x`) and the `--dims` option that picks two of them.

use crate::spec::CliError;

/// XLA's names, for ranks up to 4, from the most major.
const NAMES: [&str; 4] = ["p", "z", "y", "x"];

/// The name of logical dimension `dim` of a rank-`rank` shape: XLA's
/// letter up to rank 4, `d<dim>` beyond.
pub(crate) fn name(rank: usize, dim: usize) -> String {
    if rank <= NAMES.len() {
        NAMES[NAMES.len() - rank + dim].to_string()
    } else {
        format!("d{dim}")
    }
}

/// Parses one dimension given as a number (`0`), a name (`y`) or `d<n>`.
///
/// # Errors
/// Not a dimension of a rank-`rank` shape.
pub(crate) fn parse_one(rank: usize, text: &str) -> Result<usize, CliError> {
    let t = text.trim();
    let found = if let Ok(n) = t.parse::<usize>() {
        Some(n).filter(|&n| n < rank)
    } else {
        (0..rank).find(|&d| name(rank, d) == t)
    };
    found.ok_or_else(|| {
        let names: Vec<String> = (0..rank).map(|d| name(rank, d)).collect();
        CliError::msg(format!(
            "`{t}` is not a dimension of this rank-{rank} shape (use 0..{rank} or {})",
            names.join(" ")
        ))
    })
}

/// Parses `--dims`: two different dimensions, rows first, separated by a
/// comma or a space (`y,x`, `0 2`, `x,z`).
///
/// # Errors
/// Not two different dimensions of the shape, or a shape of rank below 2.
pub(crate) fn parse_pair(rank: usize, text: &str) -> Result<(usize, usize), CliError> {
    if rank < 2 {
        return Err(CliError::msg(format!(
            "`--dims` needs a shape of rank 2 or more, not {rank}"
        )));
    }
    let parts: Vec<&str> = text.split([',', ' ']).filter(|p| !p.is_empty()).collect();
    let [a, b] = parts[..] else {
        return Err(CliError::msg(format!(
            "`--dims` takes two dimensions, rows then columns (e.g. `y,x`), not `{text}`"
        )));
    };
    let (r, c) = (parse_one(rank, a)?, parse_one(rank, b)?);
    if r == c {
        return Err(CliError::msg(format!(
            "`--dims` names dimension `{a}` twice"
        )));
    }
    Ok((r, c))
}

/// The dims shown by default: the two most-minor ones in the layout (the
/// ones the tiles cut), rows being the lower-numbered.
pub(crate) fn default_pair(minor_to_major: &[u8]) -> Option<(usize, usize)> {
    let [a, b, ..] = minor_to_major[..] else {
        return None;
    };
    let (a, b) = (usize::from(a), usize::from(b));
    Some((a.min(b), a.max(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_xla() {
        let n = |rank| {
            (0..rank)
                .map(|d| name(rank, d))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(n(1), "x");
        assert_eq!(n(2), "y x");
        assert_eq!(n(3), "z y x");
        assert_eq!(n(4), "p z y x");
        assert_eq!(n(5), "d0 d1 d2 d3 d4");
    }

    #[test]
    fn pairs_by_number_or_name() {
        assert_eq!(parse_pair(3, "z,x"), Ok((0, 2)));
        assert_eq!(parse_pair(3, "2 0"), Ok((2, 0)));
        assert_eq!(parse_pair(5, "d1,d4"), Ok((1, 4)));
        assert!(parse_pair(3, "y,y").is_err());
        assert!(parse_pair(3, "y").is_err());
        assert!(parse_pair(2, "z,x").is_err());
        assert!(parse_pair(1, "0,1").is_err());
    }

    #[test]
    fn default_is_the_two_most_minor() {
        assert_eq!(default_pair(&[2, 1, 0]), Some((1, 2)));
        assert_eq!(default_pair(&[0, 2, 1]), Some((0, 2)));
        assert_eq!(default_pair(&[0]), None);
    }
}
