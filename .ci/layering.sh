#!/usr/bin/env bash
# The layering check: layout-core's top-level modules are layers, declared
# lowest first in layout-core/src/lib.rs, and a module may use only its own
# layer and the layers declared before it. Every `crate::` and `super::`
# path outside comments and `#[cfg(test)] mod tests` (in `use` lines, `use`
# groups and expressions) is resolved to the layer it names; a path into a
# later layer, or through a root re-export (`crate::Shape` instead of
# `crate::model::shape::Shape`, whose layer the check cannot see), fails.
# Also: layout-tensor uses the engine, not the `xla/` mirrors.
#
# Usage: .ci/layering.sh [layout-core/src]
set -euo pipefail
cd "$(dirname "$0")/.."

if grep -rn 'layout_core::xla' layout-tensor/src; then
    echo "layering: layout-tensor uses layout-core's xla/ mirrors; use the engine" >&2
    exit 1
fi

perl -e '
use strict;
use warnings;
use File::Find;

my $src = shift;
my (@order, %rank);
open my $lib, "<", "$src/lib.rs" or die "layering: $src/lib.rs: $!\n";
while (<$lib>) {
    push @order, $1 if /^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+(\w+)\s*;/;
}
@rank{@order} = 0 .. $#order;

my $bad = 0;
sub fail { print STDERR "layering: @_\n"; $bad = 1 }

# Every top-level module is a declared layer.
opendir my $dir, $src or die;
for (sort readdir $dir) {
    next if /^\./ || $_ eq "lib.rs";
    (my $m = $_) =~ s/\.rs$//;
    fail("$src/$_ is not a layer declared in lib.rs") unless exists $rank{$m};
}

# The first path segment of each item of the `use` group that starts at
# offset $at of $text (just after its `{`).
sub group_heads {
    my ($text, $at) = @_;
    my ($depth, $item, @heads) = (1, "");
    for (my $i = $at; $i < length $text && $depth > 0; $i++) {
        my $c = substr $text, $i, 1;
        $depth++ if $c eq "{";
        $depth-- if $c eq "}";
        if ($depth == 0 || ($depth == 1 && $c eq ",")) {
            push @heads, $1 if $item =~ /^\s*(\w+)/;
            $item = "";
        } elsif ($depth >= 1) {
            $item .= $c;
        }
    }
    return @heads;
}

my @files;
find({ wanted => sub { push @files, $File::Find::name if /\.rs$/ }, no_chdir => 1 }, $src);
for my $file (sort @files) {
    (my $rel = $file) =~ s{^\Q$src\E/}{};
    next if $rel eq "lib.rs";
    my @path = split m{/}, $rel;
    $path[-1] =~ s/\.rs$//;
    pop @path if $path[-1] eq "mod";
    next if $path[-1] eq "tests";
    my $layer = $path[0];

    open my $fh, "<", $file or die "$file: $!\n";
    my $text = do { local $/; <$fh> };
    # Comments, strings and char literals say nothing about imports.
    $text =~ s{//[^\n]*|/\*.*?\*/|"(?:[^"\\]|\\.)*"|\x27(?:[^\x27\\\n]|\\[^\x27\n]*)\x27}{ }gs;
    # Unit tests may use any layer; they are not part of the library.
    $text =~ s/#\[cfg\(test\)\]\s*mod\s+tests\b.*//s;

    while ($text =~ /(?<![\$\w])(crate\s*::|(?:super\s*::\s*)+)\s*(\{|\*|\w+)/g) {
        my ($base, $next) = ($1, $2);
        my $at = pos $text;
        my @heads;
        if ($base =~ /^crate/) {
            @heads = $next eq "{" ? group_heads($text, $at) : ($next);
        } else {
            my $up = () = $base =~ /super/g;
            if ($up < @path) {
                @heads = ($path[0]);
            } elsif ($up == @path) {
                @heads = $next eq "{" ? group_heads($text, $at) : ($next);
            } else {
                fail("$file: `super` above the crate root");
                next;
            }
        }
        for my $head (@heads) {
            next if $head eq "self" || $head eq $layer;
            if (!exists $rank{$head}) {
                fail("$file: `crate::$head` is not a layer; name the module that defines it");
            } elsif ($rank{$head} > $rank{$layer}) {
                fail("$file: layer `$layer` uses `$head`, a higher layer (order: @order)");
            }
        }
    }
}
exit $bad;
' "${1:-layout-core/src}"
echo "layering: ok"
