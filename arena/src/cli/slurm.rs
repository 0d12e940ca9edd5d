//! `arena slurm CONFIG --shards N`: a tournament on a Slurm cluster, an
//! array job of shards and a merge job ([`arena::tools::slurm`]).

use std::path::{Path, PathBuf};

use clap::Args;

use super::Error;
use arena::run::config::Config;
use arena::tools::slurm::{Plan, SlurmError, MERGE_SCRIPT, SHARD_SCRIPT};

/// `arena slurm CONFIG --shards N`.
#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The tournament config (TOML), e.g. tournaments/demo-dakon.toml.
    pub config: PathBuf,
    /// Number of shards: array tasks 1..=N, each plays the games whose pair id
    /// is K-1 modulo N (a gauntlet with `sprt`: whole pairings, every N-th
    /// challenger).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub shards: u64,
    /// Slurm partition for both jobs [default: the cluster's default].
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit of each job (Slurm's format: MM, HH:MM:SS, D-HH:MM...).
    #[arg(long, value_name = "HH:MM:SS")]
    pub time: Option<String>,
    /// Run directory: shards, Slurm logs and the merged report [default: reports/<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Overrides the config's seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// CPUs per array task; the task plays that many games at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub cpus_per_task: u64,
    /// An extra sbatch option for both jobs, e.g. --sbatch=--account=proj (repeatable).
    #[arg(long = "sbatch", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch: Vec<String>,
    /// Skip the bots' `build` commands (otherwise run once here, before submitting).
    #[arg(long)]
    pub no_build: bool,
    /// Print the batch scripts and the sbatch commands; submit nothing.
    #[arg(long)]
    pub dry_run: bool,
}

impl From<SlurmError> for Error {
    fn from(e: SlurmError) -> Error {
        match e {
            e @ SlurmError::Usage(_) => Error::usage(e),
            e => Error::Failed(e.to_string()),
        }
    }
}

/// Runs `arena slurm`.
pub fn run(args: SlurmArgs) -> Result<(), Error> {
    let mut config = Config::load(&args.config).map_err(Error::usage)?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    let workdir = std::env::current_dir()
        .map_err(|e| Error::Usage(format!("cannot read the current directory: {e}")))?;
    let absolute = |p: &Path| workdir.join(p);
    let run_dir = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| arena::store::default_run_dir(&config.name)),
    );
    let plan = Plan {
        name: config.name.clone(),
        arena: std::env::current_exe()
            .map_err(|e| Error::Usage(format!("cannot find the arena binary: {e}")))?,
        config: absolute(&args.config),
        workdir: workdir.clone(),
        run_dir,
        shards: args.shards,
        seed: args.seed,
        cpus_per_task: args.cpus_per_task,
        partition: args.partition.clone(),
        time: args.time.clone(),
        extra: args.sbatch.clone(),
    };
    plan.check()?;
    let normalized = config.normalized();
    let jobs = arena::run::runner::jobs_for(&normalized);
    // A gauntlet with `sprt` is split by pairing, any other run by pair.
    let (units, what) = if normalized.sprt.is_some() {
        let pairings: std::collections::BTreeSet<[usize; 2]> =
            jobs.iter().map(arena::run::stop::pairing_of).collect();
        (
            pairings.len(),
            "pairings (a gauntlet with `sprt` shards by pairing)",
        )
    } else {
        let pairs: std::collections::BTreeSet<u64> = jobs.iter().map(|j| j.pair).collect();
        (pairs.len(), "seat-swapped pairs of games")
    };
    if (units as u64) < plan.shards {
        eprintln!(
            "arena slurm: warning: {units} {what} for {} shards: {} tasks will have nothing to play",
            plan.shards,
            plan.shards - units as u64
        );
    }
    if args.dry_run {
        let shard_path = plan.slurm_dir().join(SHARD_SCRIPT);
        let merge_path = plan.slurm_dir().join(MERGE_SCRIPT);
        println!("# {}", shard_path.display());
        print!("{}", plan.shard_script());
        println!();
        println!("# {}", merge_path.display());
        print!("{}", plan.merge_script());
        println!();
        println!("# submitted with:");
        println!("#   sbatch --parsable {}", shard_path.display());
        println!(
            "#   sbatch --parsable --dependency=afterok:<the array job's id> {}",
            merge_path.display()
        );
        return Ok(());
    }
    // Refuse now what the jobs would refuse later.
    plan.refuse_existing(&config.normalized().fingerprint())?;
    if args.no_build {
        config.check_bots()
    } else {
        config.run_builds(false, std::slice::from_ref(&plan.run_dir))
    }
    .map_err(Error::usage)?;
    plan.write_scripts()?;
    let (array, merge) = plan.submit()?;
    let n = plan.shards;
    println!(
        "shards: job {array} (array 1-{n}: task K plays shard K/{n} into {})",
        plan.run_dir
            .join(arena::store::shard_dir_name("K", n))
            .display()
    );
    println!("merge:  job {merge} (starts once every task of {array} has succeeded)");
    println!(
        "report: {} (games.jsonl, games.csv, ratings.csv) when job {merge} is done",
        plan.run_dir.join(arena::store::INDEX_HTML).display()
    );
    println!("logs:   {}", plan.slurm_dir().display());
    println!("watch:  squeue -j {array},{merge}");
    Ok(())
}
