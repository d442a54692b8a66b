#!/usr/bin/env bash
# The layering check. layout-core's top-level modules are layers, declared
# lowest first in layout-core/src/lib.rs; a module may use only its own
# layer and the layers declared before it. Inside a folder, the files are
# declared lowest first in its mod.rs the same way, and a file may use only
# the files declared before it (and its parent module). Every `crate::` and
# `super::` path outside comments and `#[cfg(test)] mod tests` (in `use`
# lines, nested `use` groups and expressions) is resolved to the module it
# names; a path up the order, or through a root re-export (`crate::Shape`
# instead of `crate::model::shape::Shape`, which hides its layer), fails.
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
my $bad = 0;
sub fail { print STDERR "layering: @_\n"; $bad = 1 }

# The modules a file declares, lowest first, as name => rank.
sub declared {
    my ($file) = @_;
    my (@names, %rank);
    open my $fh, "<", $file or return {};
    while (my $line = <$fh>) {
        push @names, $1 if $line =~ /^\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+(\w+)\s*;/;
    }
    @rank{@names} = 0 .. $#names;
    return \%rank;
}
my $layers = declared("$src/lib.rs");
my @order = sort { $layers->{$a} <=> $layers->{$b} } keys %$layers;
my %children;
for my $layer (@order) {
    my $parent = -f "$src/$layer/mod.rs" ? "$src/$layer/mod.rs" : "$src/$layer.rs";
    $children{$layer} = declared($parent);
}

# Every top-level module is a declared layer, every file a declared child.
opendir my $dir, $src or die;
for (sort readdir $dir) {
    next if /^\./ || $_ eq "lib.rs";
    (my $m = $_) =~ s/\.rs$//;
    if (!exists $layers->{$m}) {
        fail("$src/$_ is not a layer declared in lib.rs");
    } elsif (-d "$src/$m") {
        for my $child (glob "$src/$m/*.rs") {
            (my $c = $child) =~ s{.*/(\w+)\.rs$}{$1};
            next if $c eq "mod" || $c eq "tests";
            fail("$child is not declared in its parent module") unless exists $children{$m}{$c};
        }
    }
}

# The paths of the use tree at pos($$text), each as a list of segments
# appended to @prefix; pos($$text) ends after the tree.
sub tree {
    my ($text, @prefix) = @_;
    $$text =~ /\G\s*/gc;
    if ($$text =~ /\G\{/gc) {
        my @paths;
        while (1) {
            $$text =~ /\G\s*/gc;
            last if $$text =~ /\G\}/gc;
            push @paths, tree($text, @prefix);
            $$text =~ /\G\s*,?/gc;
        }
        return @paths;
    }
    return [@prefix] if $$text =~ /\G\*/gc;
    if ($$text =~ /\G(\w+)/gc) {
        my $segment = $1;
        return [@prefix] if $segment eq "self";
        return tree($text, @prefix, $segment) if $$text =~ /\G\s*::\s*(?=[\w{*])/gc;
        $$text =~ /\G\s+as\s+\w+/gc;
        return [@prefix, $segment];
    }
    return [@prefix];
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

    while ($text =~ /(?<![\$\w])(crate|(?:super\s*::\s*)*super)\s*::/g) {
        my $base = $1;
        my @start;
        if ($base ne "crate") {
            my $up = () = $base =~ /super/g;
            if ($up > @path) {
                fail("$file: `super` above the crate root");
                next;
            }
            @start = @path[0 .. $#path - $up];
        }
        for my $target (tree(\$text, @start)) {
            my ($head, $child) = @$target;
            next unless defined $head;
            if (!exists $layers->{$head}) {
                fail("$file: `crate::$head` is not a layer; name the module that defines it");
            } elsif ($layers->{$head} > $layers->{$layer}) {
                fail("$file: layer `$layer` uses `$head`, a higher layer (order: @order)");
            } elsif ($head eq $layer && @path > 1 && defined $child && $child ne $path[1]
                     && exists $children{$layer}{$child}
                     && $children{$layer}{$child} > $children{$layer}{$path[1]}) {
                my %r = %{ $children{$layer} };
                my @sib = sort { $r{$a} <=> $r{$b} } keys %r;
                fail("$file: `$path[1]` uses `$child`, declared after it in `$layer` (order: @sib)");
            }
        }
    }
}
exit $bad;
' "${1:-layout-core/src}"
echo "layering: ok"
