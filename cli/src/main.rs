//! `tessera`: see, check and use XLA array layouts from the shell.
//!
//! This file holds the command-line arguments and the dispatch; each
//! command's work is in [`commands`], and every number printed comes from
//! the `layout-core` engine. Errors go to stderr with exit status 2.

mod arrays;
mod codegen;
mod commands;
mod dims;
mod hlo;
mod picture;
mod render;
mod show;
mod spec;
mod tile_view;
mod tiles;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use crate::codegen::Lang;
use crate::commands::Output;
use crate::spec::CliError;

/// See, check and use XLA array layouts (shapes with `minor_to_major`,
/// tiles and padding).
#[derive(Parser, Debug)]
#[command(
    name = "tessera",
    version,
    about,
    after_help = "\
Examples:
  tessera show 'f32[3,5]{1,0:T(2,2)}'
  tessera canon 'f32[2,3]' 'bf16[8,16]{1,0:T(4,8)(2,1)}'
  tessera offset 'f32[3,5]{1,0:T(2,2)}' 2 3

Shell tip: quote specs, since `{`, `[` and `*` mean something to shells."
)]
struct Cli {
    /// When to colour the output: `auto` colours terminals unless
    /// `NO_COLOR` is set.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true)]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Summarize a layout and draw it: offsets on the logical array, tiles
    /// told apart, padding, and the memory order.
    #[command(after_help = "\
Example:
  tessera show 'f32[3,5]{1,0:T(2,2)}'
  tessera show 'f32[4,6,8]{2,1,0:T(2,4)}' --dims z,x
  tessera show '(f32[4,4]{1,0}, s32[])'
  tessera show 'f32[?,512]{1,0}' --extent 0=37
  tessera show 'bf16[64,256]{1,0:T(8,128)(2,1)}' --tile 2,1

Grid cells hold offsets; `·` marks padding. The strip lists the buffer's
slots in memory order, each with the logical index it holds. A tuple is
drawn element by element, titled by its ShapeIndex. When one tile is
larger than a screen, the grid of tiles is drawn instead (each cell a
tile: its number and the share of it that is padding); `--tile` draws
one tile whole. A tiled rank-1 array wraps into rows of whole tiles.")]
    Show {
        /// The shape, e.g. `f32[3,5]{1,0:T(2,2)}`; tuples too.
        spec: String,
        #[command(flatten)]
        drawing: DrawingArgs,
    },
    /// Draw the same picture as an SVG image.
    #[command(after_help = "\
Example:
  tessera svg 'f32[4,8]{1,0:T(2,4)(2,1)}' -o tiles.svg")]
    Svg {
        /// The shape; tuples too.
        spec: String,
        /// Where to write the image (`-` for stdout).
        #[arg(short, long)]
        output: PathBuf,
        #[command(flatten)]
        drawing: DrawingArgs,
    },
    /// Print the canonical XLA form of each spec, one line each.
    #[command(after_help = "\
Example:
  tessera canon 'f32[2,3]' '(f32[1], s8[2]{0})'
  printf 'f32[2,3]\\nf32[2]{1}\\n' | tessera canon -

One output line per input: the canonical form, or `error: MESSAGE`.
The exit status is 2 if any input was invalid.")]
    Canon {
        /// Shapes (tuples too), or `-` to read one per line from stdin.
        #[arg(required = true)]
        specs: Vec<String>,
    },
    /// Validate a spec; on error show where and which rule it breaks.
    #[command(after_help = "\
Example:
  tessera check 'f32[3,5]{1,1}'")]
    Check {
        /// The shape.
        spec: String,
    },
    /// Print the offset (in elements) of a logical index.
    #[command(after_help = "\
Example:
  tessera offset 'f32[3,5]{1,0:T(2,2)}' 2 3     # prints 17")]
    Offset {
        /// The array shape.
        spec: String,
        /// The logical index, one number per dimension.
        index: Vec<usize>,
    },
    /// Print the logical index stored at an offset, or `padding`.
    #[command(after_help = "\
Example:
  tessera index 'f32[3,5]{1,0:T(2,2)}' 17     # prints 2 3")]
    Index {
        /// The array shape.
        spec: String,
        /// The offset in the buffer, in elements.
        offset: usize,
    },
    /// Print the offsets of all elements in logical row-major order.
    #[command(after_help = "\
Example:
  tessera offsets 'f32[3,5]{1,0:T(2,2)}' --json

JSON output is one line:
  {\"canonical\":\"f32[3,5]{1,0:T(2,2)}\",\"buffer_len\":24,\"offsets\":[0,1,4,...]}")]
    Offsets {
        /// The array shape.
        spec: String,
        /// Print JSON instead of one offset per line.
        #[arg(long)]
        json: bool,
    },
    /// Report the memory of an HLO module: each instruction's buffers in
    /// XLA's bytes and tessera's, with padding and totals.
    #[command(after_help = "\
Example:
  XLA_FLAGS='--xla_dump_to=dump --xla_dump_hlo_as_text' python train.py
  tessera hlo dump/module_0001.jit_step.cpu_after_optimizations.txt --top 5
  python -c 'print(jax.jit(f).lower(x).compile().as_text())' | tessera hlo - --json

Reads a module as XLA prints it (dumps before and after optimization,
`as_text()`). Columns, in bytes: xla = ShapeUtil::ByteSizeOf (what XLA's
CPU and GPU buffer assignment allocates), xla tiled = ShapeUtil::ArraySize
(padded for the first tile, as TPUs allocate), tessera = the buffer with
every tile level, padding = tessera - xla. A tuple's own buffer is its
table of 8-byte pointers; its elements follow under their ShapeIndex.
Lines that cannot be read are listed with their line numbers.
The JSON schema is in docs/hlo-report.md.")]
    Hlo {
        /// The HLO text file, or `-` for stdin.
        file: String,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Also list the N largest and the N most padded buffers.
        #[arg(long, value_name = "N")]
        top: Option<usize>,
    },
    /// Generate a standalone function computing offsets for this layout.
    #[command(after_help = "\
Example:
  tessera codegen 'f32[3,5]{1,0:T(2,2)}' --lang c > offset.h")]
    Codegen {
        /// The array shape.
        spec: String,
        /// The language.
        #[arg(long, value_enum)]
        lang: Lang,
        /// The function's name.
        #[arg(long, default_value = "tessera_offset")]
        name: String,
    },
}

/// How `show` and `svg` draw.
#[derive(clap::Args, Debug)]
struct DrawingArgs {
    /// Two dims to draw, rows then columns, by number or XLA name
    /// (`y,x`; `z y x`; `p z y x`); default: the two most-minor.
    #[arg(long)]
    dims: Option<String>,
    /// Draw everything, however large.
    #[arg(long)]
    full: bool,
    /// Sizes to draw `?` dims at, `DIM=N` by number or name
    /// (`--extent 0=37`, `--extent y=37,x=5`); `<=N` dims are drawn at N.
    #[arg(long, value_name = "DIM=N,..")]
    extent: Option<String>,
    /// Draw one first-level tile whole: its place in the tile grid, `Y,X`
    /// (one number for rank 1).
    #[arg(long, value_name = "Y,X")]
    tile: Option<String>,
}

impl DrawingArgs {
    fn drawing(&self) -> commands::Drawing<'_> {
        commands::Drawing {
            dims: self.dims.as_deref(),
            full: self.full,
            extent: self.extent.as_deref(),
            tile: self.tile.as_deref(),
        }
    }
}

/// Runs `command`; listings that can be long are written to `stdout` as
/// they are made.
fn run(command: Command, stdout: &mut dyn Write) -> Result<Output, CliError> {
    match command {
        Command::Show { spec, drawing } => commands::show(&spec, drawing.drawing()),
        Command::Svg {
            spec,
            output,
            drawing,
        } => commands::svg(&spec, drawing.drawing(), &output),
        Command::Canon { specs } => commands::canon(&specs, std::io::stdin().lock()),
        Command::Check { spec } => commands::check(&spec),
        Command::Offset { spec, index } => commands::offset(&spec, &index),
        Command::Index { spec, offset } => commands::index(&spec, offset),
        Command::Offsets { spec, json } => commands::offsets(&spec, json, stdout),
        Command::Codegen { spec, lang, name } => commands::codegen(&spec, lang, &name),
        Command::Hlo { file, json, top } => hlo::run(&file, json, top, std::io::stdin().lock()),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(_) => {
            // clap quotes the arguments it rejects: the same error again,
            // with no styles (`render` writes a style's codes whatever the
            // colour choice), its text taken raw (plain `to_string` would
            // strip control sequences of the user's too) and the arguments
            // escaped as ours are.
            let e = Cli::command()
                .color(clap::ColorChoice::Never)
                .styles(clap::builder::Styles::plain())
                .try_get_matches()
                .err()
                .unwrap_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue));
            let text = e.render().ansi().to_string();
            let mut stderr = std::io::stderr().lock();
            for line in text.lines() {
                let _ = writeln!(stderr, "{}", layout_core::error::message::Escaped(line));
            }
            return ExitCode::from(2);
        }
    };
    let choice = match cli.color {
        ColorWhen::Auto => anstream::ColorChoice::Auto,
        ColorWhen::Always => anstream::ColorChoice::Always,
        ColorWhen::Never => anstream::ColorChoice::Never,
    };
    let mut stdout = anstream::AutoStream::new(std::io::stdout(), choice);
    // Listings bypass the colour stream (they have no colour), buffered.
    let mut listing = std::io::BufWriter::new(std::io::stdout().lock());
    let result = run(cli.command, &mut listing);
    drop(listing);
    match result {
        Ok(out) => {
            if stdout
                .write_all(out.stdout.as_bytes())
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return ExitCode::from(2);
            }
            if out.failed {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{}", e.text);
            ExitCode::from(2)
        }
    }
}
