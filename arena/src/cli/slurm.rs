//! `arena slurm CONFIG --shards N`: a tournament on a Slurm cluster, an
//! array job of shards and a merge job ([`arena::tools::slurm`]).

use std::path::{Path, PathBuf};

use clap::Args;

use super::Error;
use arena::run::config::Config;
use arena::tools::slurm::{FleetPlan, Plan, SlurmError, MERGE_SCRIPT, SHARD_SCRIPT, WORKER_SCRIPT};

/// `arena slurm CONFIG --shards N`, or `arena slurm --workers N --server URL
/// --token-file F`.
#[derive(Args, Debug)]
pub struct SlurmArgs {
    /// The tournament config (TOML), e.g. tournaments/demo-dakon.toml.
    #[arg(required_unless_present = "workers")]
    pub config: Option<PathBuf>,
    /// Number of shards: array tasks 1..=N, each plays the games whose pair id
    /// is K-1 modulo N (a gauntlet with `sprt`: whole pairings, every N-th
    /// challenger).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000), required_unless_present = "workers")]
    pub shards: Option<u64>,
    /// Instead of a tournament: an array job of N ladder workers (`arena
    /// worker`), each until the job's --time (SIGTERM --grace seconds before).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000),
          conflicts_with_all = ["config", "shards", "seed", "no_build"],
          requires_all = ["server", "token_file"])]
    pub workers: Option<u64>,
    /// With --workers: the ladder server's URL, e.g. https://ladder.example.org.
    #[arg(long, value_name = "URL", requires = "workers")]
    pub server: Option<String>,
    /// With --workers: the worker token's file (from `arena ladder worker add`),
    /// mode 600, on a file system the nodes share; each task reads it there,
    /// the token goes into no script or command line.
    #[arg(long, value_name = "PATH", requires = "workers")]
    pub token_file: Option<PathBuf>,
    /// With --workers: games at once per task [default: --cpus-per-task].
    #[arg(long, value_name = "N", requires = "workers", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub concurrency: Option<u64>,
    /// With --workers: the job name, and each task's worker name
    /// NAME-<job id>-<task id>.
    #[arg(long, default_value = "arena-worker", requires = "workers")]
    pub name: String,
    /// With --workers: SIGTERM this many seconds before --time ends (Slurm may
    /// send it up to 60 s earlier), for the workers to give back their games.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 120,
        requires = "workers"
    )]
    pub grace: u64,
    /// With --workers: `none` runs the bots without a sandbox on the nodes.
    #[arg(long, value_parser = ["none"], requires = "workers")]
    pub sandbox: Option<String>,
    /// Slurm partition for both jobs [default: the cluster's default].
    #[arg(long, value_name = "P")]
    pub partition: Option<String>,
    /// Time limit of each job (Slurm's format: MM, HH:MM:SS, D-HH:MM...).
    #[arg(long, value_name = "HH:MM:SS")]
    pub time: Option<String>,
    /// Run directory: shards, Slurm logs and the merged report [default:
    /// reports/<name>]; with --workers: the script, logs and each task's data
    /// (task-K/) [default: arena-workers].
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
    if let Some(n) = args.workers {
        return workers(&args, n);
    }
    let (Some(config_path), Some(shards)) = (&args.config, args.shards) else {
        return Err(Error::Usage(
            "give a tournament config and --shards N, or --workers N".into(),
        ));
    };
    let mut config = Config::load(config_path).map_err(Error::usage)?;
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
        config: absolute(config_path),
        workdir: workdir.clone(),
        run_dir,
        shards,
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

/// `arena slurm --workers N`: checks, then prints or submits the array job.
fn workers(args: &SlurmArgs, n: u64) -> Result<(), Error> {
    let workdir = std::env::current_dir()
        .map_err(|e| Error::Usage(format!("cannot read the current directory: {e}")))?;
    let (Some(server), Some(token_file)) = (&args.server, &args.token_file) else {
        return Err(Error::Usage(
            "--workers needs --server URL and --token-file PATH".into(),
        ));
    };
    let token_file = workdir.join(token_file);
    // The check `arena worker` makes on the node, made here too: a file
    // others can read is refused now, not in N job logs later. Nothing of
    // it is kept: the tasks read the file themselves.
    check_token_file(&token_file)?;
    let plan = FleetPlan {
        name: args.name.clone(),
        arena: std::env::current_exe()
            .map_err(|e| Error::Usage(format!("cannot find the arena binary: {e}")))?,
        out: workdir.join(args.out.clone().unwrap_or_else(|| "arena-workers".into())),
        workdir,
        workers: n,
        server: server.clone(),
        token_file,
        cpus_per_task: args.cpus_per_task,
        concurrency: args.concurrency,
        grace: args.grace,
        no_sandbox: args.sandbox.is_some(),
        partition: args.partition.clone(),
        time: args.time.clone(),
        extra: args.sbatch.clone(),
    };
    plan.check()?;
    let script = plan.slurm_dir().join(WORKER_SCRIPT);
    if args.dry_run {
        println!("# {}", script.display());
        print!("{}", plan.script());
        println!();
        println!("# submitted with:");
        println!("#   sbatch --parsable {}", script.display());
        return Ok(());
    }
    let job = plan.submit()?;
    println!(
        "workers: job {job} (array 1-{n}: task K runs `arena worker` named {}-{job}-K against {})",
        plan.name, plan.server
    );
    println!("logs:    {}", plan.slurm_dir().display());
    println!("watch:   squeue -j {job}; on the server: arena ladder worker list");
    println!("stop:    scancel {job} (each worker gives back its games in progress)");
    Ok(())
}

/// A token file that exists, is a file, and that no other user can read or
/// change (the worker's own rule: arena_ladder::worker::resolve_token).
fn check_token_file(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(path)
        .map_err(|e| Error::Usage(format!("--token-file {}: {e}", path.display())))?;
    if !meta.is_file() {
        return Err(Error::Usage(format!(
            "--token-file {} is not a file",
            path.display()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o007 != 0 {
        return Err(Error::Usage(format!(
            "--token-file {} is open to other users (mode {mode:03o}); the workers would \
             refuse it: `chmod 600 {}`",
            path.display(),
            path.display()
        )));
    }
    Ok(())
}
