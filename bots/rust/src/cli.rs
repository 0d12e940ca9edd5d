//! Command-line flags shared by the four binaries.

/// Parsed flags; each binary accepts only the ones that concern it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args {
    /// `--seed`: mixed into every game's RNG, so that two seeds give two
    /// different bots (default 0).
    pub seed: u64,
    /// `--depth`: a fixed search depth for alpha-beta.
    pub depth: Option<u32>,
    /// `--playouts`: a fixed number of playouts per move for MCTS.
    pub playouts: Option<u32>,
    /// `--playout-depth`: MCTS's playout cap (0: play to the end).
    pub playout_depth: Option<u32>,
    /// `--uct-c`: MCTS's exploration constant.
    pub uct_c: Option<f64>,
}

/// Parses `args` (without the program name), accepting `--seed` and the
/// flags in `allowed` (e.g. `["--depth"]`), as `--flag value` or
/// `--flag=value`. `Err` carries the message to print (usage on `--help`).
pub fn parse(
    program: &str,
    args: impl IntoIterator<Item = String>,
    allowed: &[&str],
) -> Result<Args, String> {
    let usage = {
        let mut u = format!("usage: {program} [--seed S]");
        for a in allowed {
            u.push_str(&format!(" [{a} N]"));
        }
        u.push_str("\nSpeaks the arena protocol on stdin/stdout; plays dakon and latrunculi.");
        u
    };
    let mut out = Args::default();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        if arg == "--help" || arg == "-h" {
            return Err(usage);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        if flag != "--seed" && !allowed.contains(&flag.as_str()) {
            return Err(format!("unknown argument `{arg}`\n{usage}"));
        }
        let value = match inline.or_else(|| it.next()) {
            Some(v) => v,
            None => return Err(format!("{flag} needs a value\n{usage}")),
        };
        let bad = |v: &str| format!("{flag}: `{v}` is not a valid value\n{usage}");
        match flag.as_str() {
            "--seed" => out.seed = value.parse().map_err(|_| bad(&value))?,
            "--depth" => {
                out.depth = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|&d| d >= 1)
                        .ok_or_else(|| bad(&value))?,
                )
            }
            "--playouts" => {
                out.playouts = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| bad(&value))?,
                )
            }
            "--playout-depth" => out.playout_depth = Some(value.parse().map_err(|_| bad(&value))?),
            "--uct-c" => {
                out.uct_c = Some(
                    value
                        .parse()
                        .ok()
                        .filter(|c: &f64| c.is_finite() && *c >= 0.0)
                        .ok_or_else(|| bad(&value))?,
                )
            }
            _ => unreachable!("flag checked above"),
        }
    }
    Ok(out)
}

/// Parses the process arguments or exits with the message (status 0 for
/// `--help`, 2 otherwise).
pub fn from_env(program: &str, allowed: &[&str]) -> Args {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let help = raw.iter().any(|a| a == "--help" || a == "-h");
    match parse(program, raw, allowed) {
        Ok(a) => a,
        Err(msg) => {
            eprintln!("{msg}");
            std::process::exit(if help { 0 } else { 2 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str], allowed: &[&str]) -> Result<Args, String> {
        parse("t", args.iter().map(|s| s.to_string()), allowed)
    }

    #[test]
    fn flags() {
        let a = p(&["--seed", "7", "--depth=3"], &["--depth"]).unwrap();
        assert_eq!(a.seed, 7);
        assert_eq!(a.depth, Some(3));
        assert!(p(&["--playouts", "5"], &["--depth"]).is_err());
        assert!(p(&["--depth", "0"], &["--depth"]).is_err());
        assert!(p(&["--seed"], &[]).is_err());
        let a = p(
            &["--playouts", "50", "--uct-c", "1.2"],
            &["--playouts", "--uct-c"],
        )
        .unwrap();
        assert_eq!((a.playouts, a.uct_c), (Some(50), Some(1.2)));
    }
}
