//! `arena slurm`: a tournament on a Slurm cluster. One `sbatch --array` job
//! whose task K plays shard K of N into its own directory, and a job that
//! depends on it (`afterok`) and merges the shards into the final report.
//!
//! Script generation is pure ([`Plan::shard_script`], [`Plan::merge_script`]);
//! submission runs `sbatch --parsable` as a subprocess (argv, no shell).
//!
//! Layout of a run directory `RUN` (default `reports/<name>`):
//! - `RUN/shard-K-of-N/`: each task's run (manifest, journal, games, logs);
//! - `RUN/slurm/`: the two batch scripts and the jobs' output;
//! - `RUN/games.jsonl`, `games.csv`, `tournament.json`, `ratings.csv`,
//!   `index.html`: the merged report, written by the merge job.
//!
//! A task runs `arena tournament --resume`, which starts a fresh shard in an
//! empty directory and finishes its own shard otherwise: a requeued or re-run
//! task never plays a game twice.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use crate::run;
use crate::run::config::Config;
use crate::store::Manifest;

/// `arena slurm CONFIG --shards N`.
#[derive(clap::Args, Debug)]
pub struct SlurmArgs {
    /// The tournament config (TOML), e.g. tournaments/demo-dakon.toml.
    pub config: PathBuf,
    /// Number of shards: array tasks 1..=N, each plays the games whose pair id
    /// is K-1 modulo N.
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

/// Everything the two batch scripts depend on. Paths are absolute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The tournament's name (job names).
    pub name: String,
    /// The arena binary the tasks run.
    pub arena: PathBuf,
    pub config: PathBuf,
    /// The jobs' working directory (where `arena slurm` was run).
    pub workdir: PathBuf,
    pub run_dir: PathBuf,
    pub shards: u64,
    pub seed: Option<u64>,
    pub cpus_per_task: u64,
    pub partition: Option<String>,
    pub time: Option<String>,
    /// Extra `#SBATCH` options for both jobs.
    pub extra: Vec<String>,
}

pub const SHARD_SCRIPT: &str = "shards.sbatch";
pub const MERGE_SCRIPT: &str = "merge.sbatch";

impl Plan {
    pub fn shard_dir(&self, k: u64) -> PathBuf {
        self.run_dir.join(format!("shard-{k}-of-{}", self.shards))
    }

    pub fn slurm_dir(&self) -> PathBuf {
        self.run_dir.join("slurm")
    }

    /// What `#SBATCH` lines and argv cannot carry safely.
    pub fn check(&self) -> Result<(), String> {
        for (what, p) in [
            ("the run directory", &self.run_dir),
            ("the working directory", &self.workdir),
        ] {
            let s = p.to_string_lossy();
            if s.chars().any(|c| c.is_whitespace() || c == '%') {
                return Err(format!(
                    "{what} `{s}` holds whitespace or `%`, which #SBATCH lines cannot carry; use another --out or directory"
                ));
            }
        }
        if let Some(t) = &self.time {
            if t.is_empty()
                || !t
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
            {
                return Err(format!(
                    "--time `{t}` is not a Slurm time limit (e.g. 30, 01:30:00, 1-00:00:00)"
                ));
            }
        }
        for (what, v) in [("--partition", &self.partition)] {
            if let Some(v) = v {
                if v.is_empty() || v.chars().any(|c| c.is_whitespace()) {
                    return Err(format!("{what} `{v}` must be one word"));
                }
            }
        }
        for o in &self.extra {
            if !o.starts_with('-') || o.contains('\n') {
                return Err(format!(
                    "--sbatch `{o}` is not an sbatch option (give it as --sbatch=--account=NAME)"
                ));
            }
        }
        Ok(())
    }

    fn header(&self, lines: &mut Vec<String>, job_name: String, output: String) {
        lines.push("#!/bin/bash".into());
        lines.push(format!("#SBATCH --job-name={job_name}"));
        lines.push(format!("#SBATCH --output={output}"));
        // A requeued task appends to its log instead of wiping it.
        lines.push("#SBATCH --open-mode=append".into());
        lines.push(format!("#SBATCH --chdir={}", self.workdir.display()));
        if let Some(p) = &self.partition {
            lines.push(format!("#SBATCH --partition={p}"));
        }
        if let Some(t) = &self.time {
            lines.push(format!("#SBATCH --time={t}"));
        }
        for o in &self.extra {
            lines.push(format!("#SBATCH {o}"));
        }
    }

    /// The array job: task K plays shard K of N into `RUN/shard-K-of-N`.
    pub fn shard_script(&self) -> String {
        let n = self.shards;
        let mut l = Vec::new();
        self.header(
            &mut l,
            format!("arena-{}", self.name),
            format!("{}/shard-%a-of-{n}.out", self.slurm_dir().display()),
        );
        l.push(format!("#SBATCH --array=1-{n}"));
        l.push(format!("#SBATCH --cpus-per-task={}", self.cpus_per_task));
        l.push("#SBATCH --requeue".into());
        l.push(format!(
            "# Written by `arena slurm`: task K of this array plays shard K/{n} of `{}`.",
            self.name
        ));
        l.push(
            "# --resume starts an empty shard directory and finishes a started one, so a".into(),
        );
        l.push("# requeued or re-run task never plays a game twice.".into());
        l.push("set -euo pipefail".into());
        l.push(format!("arena={}", sh_quote(&self.arena.to_string_lossy())));
        l.push(format!("run={}", sh_quote(&self.run_dir.to_string_lossy())));
        l.push(
            "k=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch, or set SLURM_ARRAY_TASK_ID}"
                .into(),
        );
        let mut cmd = format!(
            "exec \"$arena\" tournament {} --shard \"$k/{n}\" --out \"$run/shard-$k-of-{n}\" --resume --no-build --concurrency {}",
            sh_quote(&self.config.to_string_lossy()),
            self.cpus_per_task
        );
        if let Some(s) = self.seed {
            cmd.push_str(&format!(" --seed {s}"));
        }
        l.push(cmd);
        l.join("\n") + "\n"
    }

    /// The merge job (submitted with `--dependency=afterok:<array job>`).
    pub fn merge_script(&self) -> String {
        let n = self.shards;
        let mut l = Vec::new();
        self.header(
            &mut l,
            format!("arena-{}-merge", self.name),
            format!("{}/merge.out", self.slurm_dir().display()),
        );
        // A failed shard cancels the merge instead of leaving it pending forever.
        l.push("#SBATCH --kill-on-invalid-dep=yes".into());
        l.push(format!(
            "# Written by `arena slurm`: merges the {n} shards of `{}` into the report.",
            self.name
        ));
        l.push("set -euo pipefail".into());
        l.push(format!("arena={}", sh_quote(&self.arena.to_string_lossy())));
        l.push(format!("run={}", sh_quote(&self.run_dir.to_string_lossy())));
        l.push(
            "# The merged manifest says \"complete\" last: once it does, the merge is done.".into(),
        );
        l.push(format!(
            "if ! grep -qs '\"status\": \"complete\"' \"$run/{}\"; then",
            crate::store::MANIFEST
        ));
        let dirs: Vec<String> = (1..=n)
            .map(|k| format!("\"$run/shard-{k}-of-{n}\""))
            .collect();
        l.push(format!(
            "  \"$arena\" merge {} --out \"$run\"",
            dirs.join(" ")
        ));
        l.push("fi".into());
        l.push("\"$arena\" ratings \"$run\"".into());
        l.push("\"$arena\" report \"$run\"".into());
        l.join("\n") + "\n"
    }
}

/// `s` as one single-quoted shell word.
pub fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The job id in `sbatch --parsable`'s output (`ID` or `ID;CLUSTER`).
pub fn parse_job_id(stdout: &str) -> Result<String, String> {
    let line = stdout.lines().map(str::trim).find(|l| !l.is_empty());
    let id = line.and_then(|l| l.split(';').next()).unwrap_or("").trim();
    if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
        Ok(id.to_string())
    } else {
        Err(format!(
            "sbatch printed no job id (output: `{}`)",
            stdout.trim()
        ))
    }
}

/// Runs `arena slurm`; prints errors and returns the exit code.
pub fn slurm(args: SlurmArgs) -> ExitCode {
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("arena slurm: {message}");
            ExitCode::from(code)
        }
    }
}

fn run(args: &SlurmArgs) -> Result<(), (u8, String)> {
    let usage = |m: String| (2u8, m);
    let mut config = Config::load(&args.config).map_err(|e| usage(e.to_string()))?;
    if let Some(seed) = args.seed {
        config.seed = seed;
    }
    let workdir = std::env::current_dir()
        .map_err(|e| usage(format!("cannot read the current directory: {e}")))?;
    let absolute = |p: &Path| workdir.join(p);
    let run_dir = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| Path::new("reports").join(&config.name)),
    );
    let plan = Plan {
        name: config.name.clone(),
        arena: std::env::current_exe()
            .map_err(|e| usage(format!("cannot find the arena binary: {e}")))?,
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
    plan.check().map_err(usage)?;
    let pairs: std::collections::BTreeSet<u64> = run::runner::jobs_for(&config.normalized())
        .iter()
        .map(|j| j.pair)
        .collect();
    if (pairs.len() as u64) < plan.shards {
        eprintln!(
            "arena slurm: warning: {} seat-swapped pairs of games for {} shards: {} tasks will have nothing to play",
            pairs.len(),
            plan.shards,
            plan.shards - pairs.len() as u64
        );
    }
    let shard_path = plan.slurm_dir().join(SHARD_SCRIPT);
    let merge_path = plan.slurm_dir().join(MERGE_SCRIPT);

    if args.dry_run {
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
    let fingerprint = config.normalized().fingerprint();
    let held = |e: crate::store::StoreError| (1u8, e.to_string());
    // A merge that stopped half-way ("merging") is done again by the new merge job.
    let merged = Manifest::read(&plan.run_dir).map_err(held)?;
    if let Some(m) = merged.filter(|m| m.status != "merging" || m.fingerprint != fingerprint) {
        return Err((
            1,
            format!(
                "{} already holds a report ({}); choose another --out",
                plan.run_dir.display(),
                m.describe()
            ),
        ));
    }
    for k in 1..=plan.shards {
        let dir = plan.shard_dir(k);
        if let Some(m) = Manifest::read(&dir).map_err(held)? {
            if m.fingerprint != fingerprint {
                return Err((
                    1,
                    format!(
                        "{} holds a shard of another config or seed ({}); choose another --out",
                        dir.display(),
                        m.describe()
                    ),
                ));
            }
        }
    }
    if args.no_build {
        config.check_bots()
    } else {
        config.run_builds(false)
    }
    .map_err(|e| usage(e.to_string()))?;

    let io = |p: &Path, e: std::io::Error| (1u8, format!("{}: {e}", p.display()));
    std::fs::create_dir_all(plan.slurm_dir()).map_err(|e| io(&plan.slurm_dir(), e))?;
    std::fs::write(&shard_path, plan.shard_script()).map_err(|e| io(&shard_path, e))?;
    std::fs::write(&merge_path, plan.merge_script()).map_err(|e| io(&merge_path, e))?;

    let array = sbatch(&[], &shard_path).map_err(|m| (1, m))?;
    let merge = match sbatch(&[format!("--dependency=afterok:{array}")], &merge_path) {
        Ok(id) => id,
        Err(m) => {
            // Without its merge the array would run for nothing.
            let _ = Command::new("scancel").arg(&array).status();
            return Err((1, format!("{m}; cancelled the shards' job {array}")));
        }
    };
    let n = plan.shards;
    println!(
        "shards: job {array} (array 1-{n}: task K plays shard K/{n} into {})",
        plan.run_dir.join(format!("shard-K-of-{n}")).display()
    );
    println!("merge:  job {merge} (starts once every task of {array} has succeeded)");
    println!(
        "report: {} (games.jsonl, games.csv, ratings.csv) when job {merge} is done",
        plan.run_dir.join(crate::store::INDEX_HTML).display()
    );
    println!("logs:   {}", plan.slurm_dir().display());
    println!("watch:  squeue -j {array},{merge}");
    Ok(())
}

/// `sbatch --parsable EXTRA... SCRIPT`; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String, String> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                "sbatch not found: run this on a Slurm submit host, or use --dry-run to see the scripts"
                    .to_string()
            } else {
                format!("cannot run sbatch: {e}")
            }
        })?;
    if !out.status.success() {
        return Err(format!(
            "sbatch {} failed ({}): {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    parse_job_id(&String::from_utf8_lossy(&out.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            name: "demo".into(),
            arena: "/opt/arena/target/release/arena".into(),
            config: "/home/u/arena/tournaments/demo's.toml".into(),
            workdir: "/home/u/arena".into(),
            run_dir: "/home/u/arena/reports/demo".into(),
            shards: 3,
            seed: None,
            cpus_per_task: 2,
            partition: Some("short".into()),
            time: Some("01:00:00".into()),
            extra: vec!["--account=proj".into()],
        }
    }

    #[test]
    fn the_array_script_runs_one_resumable_shard_per_task() {
        let s = plan().shard_script();
        assert!(s.starts_with("#!/bin/bash\n"), "{s}");
        for line in [
            "#SBATCH --array=1-3",
            "#SBATCH --job-name=arena-demo",
            "#SBATCH --output=/home/u/arena/reports/demo/slurm/shard-%a-of-3.out",
            "#SBATCH --chdir=/home/u/arena",
            "#SBATCH --partition=short",
            "#SBATCH --time=01:00:00",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --account=proj",
            "#SBATCH --requeue",
            "#SBATCH --open-mode=append",
            "arena=/opt/arena/target/release/arena",
            "run=/home/u/arena/reports/demo",
        ] {
            assert!(s.lines().any(|l| l == line), "no `{line}` in:\n{s}");
        }
        let exec = s.lines().find(|l| l.starts_with("exec ")).unwrap();
        assert_eq!(
            exec,
            "exec \"$arena\" tournament '/home/u/arena/tournaments/demo'\\''s.toml' \
             --shard \"$k/3\" --out \"$run/shard-$k-of-3\" --resume --no-build --concurrency 2"
        );
        // Every #SBATCH line comes before the first command (sbatch stops there).
        let first_cmd = s.lines().position(|l| l.starts_with("set ")).unwrap();
        assert!(s.lines().skip(first_cmd).all(|l| !l.starts_with("#SBATCH")));

        let mut p = plan();
        p.seed = Some(7);
        p.partition = None;
        p.time = None;
        let s = p.shard_script();
        assert!(s.contains("--concurrency 2 --seed 7\n"), "{s}");
        assert!(!s.contains("--partition") && !s.contains("--time"), "{s}");
    }

    #[test]
    fn the_merge_script_merges_every_shard_then_rates_and_reports() {
        let s = plan().merge_script();
        for line in [
            "#SBATCH --job-name=arena-demo-merge",
            "#SBATCH --output=/home/u/arena/reports/demo/slurm/merge.out",
            "#SBATCH --kill-on-invalid-dep=yes",
            "#SBATCH --partition=short",
            "if ! grep -qs '\"status\": \"complete\"' \"$run/tournament.json\"; then",
            "  \"$arena\" merge \"$run/shard-1-of-3\" \"$run/shard-2-of-3\" \"$run/shard-3-of-3\" --out \"$run\"",
            "\"$arena\" ratings \"$run\"",
            "\"$arena\" report \"$run\"",
        ] {
            assert!(s.lines().any(|l| l == line), "no `{line}` in:\n{s}");
        }
        assert!(!s.contains("--array"), "{s}");
    }

    #[test]
    fn scripts_run_under_bash() {
        // Syntax check only (bash -n), with a hostile path.
        let mut p = plan();
        p.arena = "/tmp/a $(touch x) `b`/arena".into();
        for s in [p.shard_script(), p.merge_script()] {
            let out = Command::new("bash")
                .args(["-n", "-c", &s])
                .output()
                .unwrap();
            assert!(out.status.success(), "{s}\n{:?}", out);
            assert!(s.contains("arena='/tmp/a $(touch x) `b`/arena'"), "{s}");
        }
    }

    #[test]
    fn check_refuses_what_sbatch_lines_cannot_carry() {
        assert_eq!(plan().check(), Ok(()));
        let mut p = plan();
        p.run_dir = "/home/u/my reports".into();
        assert!(p.check().unwrap_err().contains("whitespace"));
        let mut p = plan();
        p.time = Some("1 hour".into());
        assert!(p.check().unwrap_err().contains("--time"));
        let mut p = plan();
        p.extra = vec!["account=x".into()];
        assert!(p.check().unwrap_err().contains("--sbatch"));
    }

    #[test]
    fn quoting_and_job_ids() {
        assert_eq!(sh_quote("/a/b-c.toml"), "/a/b-c.toml");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(parse_job_id("1234\n"), Ok("1234".into()));
        assert_eq!(parse_job_id("1234;ci\n"), Ok("1234".into()));
        assert!(parse_job_id("Submitted batch job 12\n").is_err());
        assert!(parse_job_id("").is_err());
    }
}
