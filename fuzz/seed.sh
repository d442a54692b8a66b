#!/usr/bin/env bash
# Seeds each fuzz target's corpus (fuzz/corpus/<target>/) from the XLA
# conformance data in tests/data/: every JSON string holding a shape, a
# layout or a tile (`[`, `{`, `<` or `(`). `parse` reads them as text;
# `xla_util` as pairs `a;b` after 16 choice bytes; `layout_props` and
# `relayout` read any bytes as choices, so they start from the same texts.
set -euo pipefail
cd "$(dirname "$0")"

texts=$(grep -ohE '"[^"\\]*[][{}<>()][^"\\]*"' ../tests/data/xla/*.json | sed 's/^"//; s/"$//' | sort -u)

put() { # put TARGET CONTENT
    mkdir -p "corpus/$1"
    local name
    name=$(printf '%s' "$2" | sha1sum | cut -c1-16)
    printf '%s' "$2" > "corpus/$1/$name"
}

prev=""
while IFS= read -r t; do
    put parse "$t"
    put layout_props "$t"
    put relayout "$t"
    put xla_util "0123456789abcdef${prev:-$t};$t"
    prev=$t
done <<< "$texts"
# Destinations past the streaming threshold (choice bytes: element
# type f32 / u8 / bf16, then the two bytes that ask for a streaming size),
# which random mutation reaches only rarely.
for kind in '\x06' '\x01' '\x02'; do
    put relayout "$(printf "${kind}\xa5\x5a\x03\x01\x02\x07\x01")"
done
for target in parse layout_props relayout xla_util; do
    echo "corpus/$target: $(ls "corpus/$target" | wc -l) seeds"
done
