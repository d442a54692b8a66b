//! Bytes to tokens with byte spans.
