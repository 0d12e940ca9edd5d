//! `arena openings`: writes an opening suite (see [`arena::run::openings`]).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::Error;
use arena::run::openings::{self, Balance, GenerateOptions, Generated};
use arena_core::games;

/// `arena openings` (its help is the doc comment of `Command::Openings`).
#[derive(Args)]
pub struct OpeningsArgs {
    #[arg(long, help = super::game_help())]
    game: String,
    /// A game parameter as key=value (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE", value_parser = arena::run::config::parse_param)]
    params: Vec<(String, String)>,
    /// How many openings to write.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    count: u64,
    /// Plies per opening: K, or A-B for a length drawn uniformly from A to
    /// B per candidate [default: 4].
    #[arg(long, value_name = "K|A-B", value_parser = parse_plies)]
    plies: Option<(u32, u32)>,
    /// Keep only openings the reference search judges close to even.
    #[arg(long)]
    balanced: bool,
    /// Depth of the reference search, in plies (with --balanced).
    #[arg(long, value_name = "D", requires = "balanced", value_parser = clap::value_parser!(u32).range(0..=30))]
    depth: Option<u32>,
    /// Largest reference value kept either way (with --balanced).
    #[arg(long, value_name = "M", requires = "balanced", value_parser = clap::value_parser!(u32).range(0..=100_000))]
    margin: Option<u32>,
    /// Let openings end inside a set-up phase (Ludus latrunculorum's
    /// placement): --plies then counts from the initial position.
    #[arg(long)]
    allow_placement: bool,
    /// The seed of the candidates.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up after this many candidates [default: 1000 per opening
    /// asked]; it also gives up after 100000 candidates in a row without a
    /// new opening.
    #[arg(long, value_name = "N")]
    max_candidates: Option<u64>,
    /// The suite file to write (replaced if it exists).
    #[arg(long)]
    out: PathBuf,
}

fn parse_plies(s: &str) -> Result<(u32, u32), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|&k| k <= 200)
            .ok_or_else(|| {
                format!("`{s}` is not K or A-B with plies from 0 to 200 (e.g. 4 or 4-8)")
            })
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(s)?, num(s)?),
    };
    if a > b {
        return Err(format!("`{s}`: the range must go up (A <= B)"));
    }
    Ok((a, b))
}

/// An argument as a shell would need it written.
fn shell_word(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// `arena openings`.
pub fn run(args: OpeningsArgs) -> Result<(), Error> {
    let game = games::new_game(&args.game, &args.params).map_err(Error::usage)?;
    let plies = args.plies.unwrap_or((4, 4));
    let balanced = args.balanced.then(|| {
        let d = Balance::default_for(&*game);
        Balance {
            depth: args.depth.unwrap_or(d.depth),
            margin: args.margin.map_or(d.margin, |m| m as i32),
        }
    });
    let opts = GenerateOptions {
        count: args.count as usize,
        plies,
        seed: args.seed,
        balanced,
        allow_setup: args.allow_placement,
        max_candidates: args
            .max_candidates
            .unwrap_or(args.count.saturating_mul(1000)),
    };
    let started = Instant::now();
    let made = openings::generate(&*game, &opts);
    let seconds = started.elapsed().as_secs_f64();
    let kept_values: Vec<i32> = match balanced {
        Some(b) => made
            .values
            .iter()
            .copied()
            .filter(|v| v.abs() <= b.margin)
            .collect(),
        None => Vec::new(),
    };
    let stats = format!(
        "tried {} candidates: kept {}, {} same position as an earlier one, {} could not be played to their length, {} not balanced",
        made.tried,
        made.lines.len(),
        made.duplicates,
        made.ended,
        made.unbalanced
    );
    println!("{stats}");
    if balanced.is_some() {
        println!(
            "reference values of the {} candidates evaluated: {}",
            made.values.len(),
            Generated::spread(&made.values)
        );
        println!("kept (value:count): {}", Generated::histogram(&kept_values));
    }
    if made.lines.len() < opts.count {
        return Err(Error::Failed(format!(
            "found only {} of {} openings in {} candidates (give more --plies, a wider --margin, or --max-candidates); nothing written",
            made.lines.len(),
            opts.count,
            made.tried
        )));
    }
    let command: Vec<String> = std::iter::once("arena".to_string())
        .chain(std::env::args().skip(1).map(|a| shell_word(&a)))
        .collect();
    let mut text = String::new();
    text.push_str(&format!(
        "# arena opening suite: {} {}\n",
        game.name(),
        openings::params_text(&*game)
    ));
    text.push_str(&format!("# made by: {}\n", command.join(" ")));
    text.push_str(
        "# One opening per line: the moves from the initial position, in protocol notation.\n",
    );
    let plies_text = if plies.0 == plies.1 {
        plies.0.to_string()
    } else {
        format!("{} to {}", plies.0, plies.1)
    };
    text.push_str(&format!(
        "# Candidates: {plies_text} uniformly random plies{} (ChaCha8, seed {}), never a move that ends the game; no position twice.\n",
        if args.allow_placement {
            ""
        } else if game.initial_state().in_setup() {
            " after a random placement phase"
        } else {
            ""
        },
        args.seed
    ));
    match balanced {
        Some(b) => {
            text.push_str(&format!(
                "# Balanced: kept when minimax with alpha-beta to depth {} (material of seat 0 less seat 1 at the leaves) is within {} either way.\n",
                b.depth, b.margin
            ));
            text.push_str(&format!("# {stats}.\n"));
            text.push_str(&format!(
                "# Reference values of the candidates evaluated: {}; kept (value:count): {}.\n",
                Generated::spread(&made.values),
                Generated::histogram(&kept_values)
            ));
        }
        None => text.push_str(&format!("# Not balanced. {stats}.\n")),
    }
    for line in &made.lines {
        text.push_str(line);
        text.push('\n');
    }
    // Read back before it replaces anything: what is written must load.
    openings::parse_suite(&args.out.display().to_string(), &text, &*game)
        .map_err(|e| Error::Failed(format!("the suite made does not read back: {e}")))?;
    let tmp = args.out.with_extension("tmp");
    std::fs::write(&tmp, &text)
        .and_then(|()| std::fs::rename(&tmp, &args.out))
        .map_err(|e| Error::Failed(format!("cannot write {}: {e}", args.out.display())))?;
    println!(
        "wrote {} openings to {} in {seconds:.1} s",
        made.lines.len(),
        args.out.display()
    );
    Ok(())
}
