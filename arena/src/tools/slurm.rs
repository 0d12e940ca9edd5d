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
use std::process::{Command, Stdio};

use crate::store::{Manifest, StoreError};

/// Why `arena slurm` did not submit.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// What was asked cannot work (a path #SBATCH lines cannot carry, a bad
    /// option): nothing was written or submitted.
    #[error(transparent)]
    Usage(#[from] PlanError),
    /// The run directory already holds a report (not a merge left half-way
    /// by these very shards, which the new merge job does again).
    #[error("{} already holds a report ({found}); choose another --out", dir.display())]
    ReportExists {
        /// The run directory.
        dir: PathBuf,
        /// Its manifest, described.
        found: String,
    },
    /// A shard's directory holds a shard of another config or seed.
    #[error("{} holds a shard of another config or seed ({found}); choose another --out", dir.display())]
    ForeignShard {
        /// The shard's directory.
        dir: PathBuf,
        /// Its manifest, described.
        found: String,
    },
    /// A script or directory could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The manifest of the run directory or of a shard's directory could
    /// not be read, or is not one arena writes.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// sbatch could not be run, failed, or said no job id.
    #[error("{0}")]
    Sbatch(String),
}

/// What in a [`Plan`] #SBATCH lines or sbatch's argv cannot carry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `what` is "the run directory" or "the working directory".
    #[error("{what} `{path}` holds whitespace or `%`, which #SBATCH lines cannot carry; use another --out or directory")]
    Path {
        /// Which directory.
        what: &'static str,
        /// Its path.
        path: String,
    },
    /// A `--time` that is not a Slurm time limit.
    #[error("--time `{0}` is not a Slurm time limit (e.g. 30, 01:30:00, 1-00:00:00)")]
    Time(String),
    /// A `--partition` that is not one word.
    #[error("--partition `{0}` must be one word")]
    Partition(String),
    /// An `--sbatch` option that does not start with `-`, or holds a newline.
    #[error("--sbatch `{0}` is not an sbatch option (give it as --sbatch=--account=NAME)")]
    Option(String),
    /// A `--server` that is not an http(s) URL.
    #[error("--server `{0}` is not a URL (http://HOST:PORT or https://...)")]
    Server(String),
    /// A `--name` that is not one word.
    #[error("--name `{0}` must be one word of letters, digits, `.`, `_` and `-`")]
    Name(String),
    /// A `--grace` that is not shorter than `--time`.
    #[error("--grace {grace} is not shorter than --time {time}: the workers would be told to stop before they start")]
    Grace {
        /// `--grace`, in seconds.
        grace: u64,
        /// `--time`, as given.
        time: String,
    },
}

/// Everything the two batch scripts depend on. Paths are absolute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The tournament's name (job names).
    pub name: String,
    /// The arena binary the tasks run.
    pub arena: PathBuf,
    /// The tournament config each task reads.
    pub config: PathBuf,
    /// The jobs' working directory (where `arena slurm` was run).
    pub workdir: PathBuf,
    /// The run directory: the shards' directories, `slurm/` and the merged
    /// report.
    pub run_dir: PathBuf,
    /// Shards, one array task each.
    pub shards: u64,
    /// `--seed` for every task, overriding the config's (all must agree to
    /// merge).
    pub seed: Option<u64>,
    /// CPUs each task asks for; its `--concurrency` too.
    pub cpus_per_task: u64,
    /// The Slurm partition, if not the cluster's default.
    pub partition: Option<String>,
    /// The time limit of each task (`#SBATCH --time`).
    pub time: Option<String>,
    /// Extra `#SBATCH` options for both jobs.
    pub extra: Vec<String>,
}

/// The array job's script, in `RUN/slurm/`.
pub const SHARD_SCRIPT: &str = "shards.sbatch";
/// The merge job's script, in `RUN/slurm/`.
pub const MERGE_SCRIPT: &str = "merge.sbatch";

impl Plan {
    /// Where task `k` plays its shard: `RUN/shard-K-of-N`.
    pub fn shard_dir(&self, k: u64) -> PathBuf {
        self.run_dir
            .join(crate::store::shard_dir_name(k, self.shards))
    }

    /// Where the scripts and the jobs' output go: `RUN/slurm`.
    pub fn slurm_dir(&self) -> PathBuf {
        self.run_dir.join("slurm")
    }

    /// What `#SBATCH` lines and argv cannot carry safely.
    pub fn check(&self) -> Result<(), SlurmError> {
        Ok(self.check_words()?)
    }

    fn check_words(&self) -> Result<(), PlanError> {
        for (what, p) in [
            ("the run directory", &self.run_dir),
            ("the working directory", &self.workdir),
        ] {
            let s = p.to_string_lossy();
            if s.chars().any(|c| c.is_whitespace() || c == '%') {
                return Err(PlanError::Path {
                    what,
                    path: s.into_owned(),
                });
            }
        }
        if let Some(t) = &self.time {
            if t.is_empty()
                || !t
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == ':' || c == '-')
            {
                return Err(PlanError::Time(t.clone()));
            }
        }
        if let Some(v) = &self.partition {
            if v.is_empty() || v.chars().any(|c| c.is_whitespace()) {
                return Err(PlanError::Partition(v.clone()));
            }
        }
        for o in &self.extra {
            if !o.starts_with('-') || o.contains('\n') {
                return Err(PlanError::Option(o.clone()));
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
            format!(
                "{}/{}.out",
                self.slurm_dir().display(),
                crate::store::shard_dir_name("%a", n)
            ),
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
            "exec \"$arena\" tournament {} --shard \"$k/{n}\" --out \"$run/{}\" --resume --no-build --concurrency {}",
            sh_quote(&self.config.to_string_lossy()),
            crate::store::shard_dir_name("$k", n),
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
            .map(|k| format!("\"$run/{}\"", crate::store::shard_dir_name(k, n)))
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

/// `arena slurm --workers N --server URL --token-file F`: an array job of
/// N ladder workers, each `arena worker` for the job's wall time.
///
/// The token never appears in the script, on a command line or in Slurm's
/// job record: each task gives `arena worker` the token file's path, and
/// the worker reads it on the node (so the file must be on a file system
/// the nodes share, readable by the job's user only).
///
/// At the end of its time limit Slurm kills a job: SIGTERM, then SIGKILL
/// `KillWait` seconds later (30 by default). A worker needs a few seconds
/// for SIGTERM (it gives back the leases of its games in progress, one
/// HTTP call each, and keeps unposted records on disk), more when the
/// server is slow; so the script asks for SIGTERM `grace` seconds before
/// the limit (`#SBATCH --signal=B:TERM@grace`), whatever the cluster's
/// KillWait. Slurm may send it up to 60 s earlier than asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetPlan {
    /// Job name, and the prefix of each task's worker name:
    /// `NAME-<array job id>-<task id>`.
    pub name: String,
    /// The arena binary the tasks run (`arena worker` runs the
    /// `arena-ladder` beside it).
    pub arena: PathBuf,
    /// The jobs' working directory.
    pub workdir: PathBuf,
    /// Scripts, logs (`slurm/`) and each task's worker data (`task-K/`).
    pub out: PathBuf,
    /// Workers: array tasks, each running one `arena worker`.
    pub workers: u64,
    /// The ladder server's base URL.
    pub server: String,
    /// The worker token's file (absolute), read by each task.
    pub token_file: PathBuf,
    /// CPUs each task asks for.
    pub cpus_per_task: u64,
    /// Games at once per task [default: `cpus_per_task`].
    pub concurrency: Option<u64>,
    /// Seconds before the time limit at which the worker gets SIGTERM.
    pub grace: u64,
    /// `--sandbox none` for the workers.
    pub no_sandbox: bool,
    /// The Slurm partition, if not the cluster's default.
    pub partition: Option<String>,
    /// The time limit of each task (`#SBATCH --time`).
    pub time: Option<String>,
    /// Extra `#SBATCH` options.
    pub extra: Vec<String>,
}

/// The workers' array job script, in `OUT/slurm/`.
pub const WORKER_SCRIPT: &str = "workers.sbatch";

impl FleetPlan {
    /// The [`Plan`] fields the `#SBATCH` header shares with tournaments.
    fn as_plan(&self) -> Plan {
        Plan {
            name: self.name.clone(),
            arena: self.arena.clone(),
            config: PathBuf::new(),
            workdir: self.workdir.clone(),
            run_dir: self.out.clone(),
            shards: self.workers,
            seed: None,
            cpus_per_task: self.cpus_per_task,
            partition: self.partition.clone(),
            time: self.time.clone(),
            extra: self.extra.clone(),
        }
    }

    /// Where the script and the tasks' output go: `OUT/slurm`.
    pub fn slurm_dir(&self) -> PathBuf {
        self.out.join("slurm")
    }

    /// What the script or the cluster cannot carry: the checks of
    /// [`Plan::check`], a server that is not an http(s) URL, a name that is
    /// not one word, a grace that leaves no time to play.
    pub fn check(&self) -> Result<(), SlurmError> {
        self.as_plan().check_words()?;
        if !(self.server.starts_with("http://") || self.server.starts_with("https://"))
            || self
                .server
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
        {
            return Err(PlanError::Server(self.server.clone()).into());
        }
        if self.name.is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
        {
            return Err(PlanError::Name(self.name.clone()).into());
        }
        if let Some(t) = &self.time {
            let limit = time_limit_seconds(t).ok_or_else(|| PlanError::Time(t.clone()))?;
            if self.grace >= limit {
                return Err(PlanError::Grace {
                    grace: self.grace,
                    time: t.clone(),
                }
                .into());
            }
        }
        Ok(())
    }

    /// The array job: task K runs one worker until SIGTERM.
    pub fn script(&self) -> String {
        let n = self.workers;
        let mut l = Vec::new();
        self.as_plan().header(
            &mut l,
            self.name.clone(),
            format!("{}/worker-%A-%a.out", self.slurm_dir().display()),
        );
        l.push(format!("#SBATCH --array=1-{n}"));
        l.push(format!("#SBATCH --cpus-per-task={}", self.cpus_per_task));
        // B: the batch shell, which is the worker itself (exec below).
        l.push(format!("#SBATCH --signal=B:TERM@{}", self.grace));
        l.push(format!(
            "# Written by `arena slurm --workers`: {n} ladder workers for {}.",
            self.server
        ));
        l.push(format!(
            "# SIGTERM comes {} s (up to 60 s more) before the time limit: the worker",
            self.grace
        ));
        l.push("# gives back its games in progress and exits 0. The token is read from".into());
        l.push(
            "# --token-file on the node: it is in no command line, script or job record.".into(),
        );
        l.push("set -euo pipefail".into());
        l.push(format!("arena={}", sh_quote(&self.arena.to_string_lossy())));
        l.push(format!("out={}", sh_quote(&self.out.to_string_lossy())));
        l.push(
            "k=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch, or set SLURM_ARRAY_TASK_ID}"
                .into(),
        );
        l.push("job=${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}".into());
        // Task K keeps its cache and unposted records in task-K: a requeued
        // or later task K posts what an earlier one could not.
        let mut cmd = format!(
            "exec \"$arena\" worker --server {} --token-file {} --concurrency {} --name {}-\"$job-$k\" --data \"$out/task-$k\"",
            sh_quote(&self.server),
            sh_quote(&self.token_file.to_string_lossy()),
            self.concurrency.unwrap_or(self.cpus_per_task),
            sh_quote(&self.name),
        );
        if self.no_sandbox {
            cmd.push_str(" --sandbox none");
        }
        l.push(cmd);
        l.join("\n") + "\n"
    }

    /// Writes the script into `OUT/slurm/` and submits it; the job id.
    pub fn submit(&self) -> Result<String, SlurmError> {
        let dir = self.slurm_dir();
        let path = dir.join(WORKER_SCRIPT);
        let io = |p: &Path| {
            let path = p.to_path_buf();
            move |source| SlurmError::Io { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        std::fs::write(&path, self.script()).map_err(io(&path))?;
        sbatch(&[], &path)
    }
}

/// A Slurm time limit in seconds: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`,
/// `D-H:M:S` (sbatch's formats); `None` for anything else.
pub fn time_limit_seconds(t: &str) -> Option<u64> {
    let num = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (days, rest) = match t.split_once('-') {
        Some((d, rest)) => (Some(num(d)?), rest),
        None => (None, t),
    };
    let parts: Vec<u64> = rest.split(':').map(num).collect::<Option<_>>()?;
    let secs = match (days, parts.as_slice()) {
        (None, [m]) => m * 60,
        (None, [m, s]) => m * 60 + s,
        (None, [h, m, s]) | (Some(_), [h, m, s]) => h * 3600 + m * 60 + s,
        (Some(_), [h]) => h * 3600,
        (Some(_), [h, m]) => h * 3600 + m * 60,
        _ => return None,
    };
    Some(days.unwrap_or(0) * 86_400 + secs)
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
pub fn parse_job_id(stdout: &str) -> Result<String, SlurmError> {
    let line = stdout.lines().map(str::trim).find(|l| !l.is_empty());
    let id = line.and_then(|l| l.split(';').next()).unwrap_or("").trim();
    if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
        Ok(id.to_string())
    } else {
        Err(SlurmError::Sbatch(format!(
            "sbatch printed no job id (output: `{}`)",
            stdout.trim()
        )))
    }
}

impl Plan {
    /// Refuses what the jobs would refuse later: a run directory that holds
    /// a finished report (or one of another config), a shard directory of
    /// another config or seed. `fingerprint` is the config's.
    pub fn refuse_existing(&self, fingerprint: &str) -> Result<(), SlurmError> {
        // A merge that stopped half-way ("merging") is done again by the new merge job.
        let merged = Manifest::read(&self.run_dir)?;
        if let Some(m) = merged
            .filter(|m| m.status != crate::store::Status::Merging || m.fingerprint != fingerprint)
        {
            return Err(SlurmError::ReportExists {
                dir: self.run_dir.clone(),
                found: m.describe(),
            });
        }
        for k in 1..=self.shards {
            let dir = self.shard_dir(k);
            if let Some(m) = Manifest::read(&dir)? {
                if m.fingerprint != fingerprint {
                    return Err(SlurmError::ForeignShard {
                        dir,
                        found: m.describe(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes both batch scripts into `RUN/slurm/`; returns their paths
    /// (the shards', the merge's).
    pub fn write_scripts(&self) -> Result<(PathBuf, PathBuf), SlurmError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| SlurmError::Io { path, source }
        };
        let dir = self.slurm_dir();
        let (shards, merge) = (dir.join(SHARD_SCRIPT), dir.join(MERGE_SCRIPT));
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        std::fs::write(&shards, self.shard_script()).map_err(io(&shards))?;
        std::fs::write(&merge, self.merge_script()).map_err(io(&merge))?;
        Ok((shards, merge))
    }

    /// Submits the scripts [`Plan::write_scripts`] wrote: the array job,
    /// then the merge job depending on it. Returns both job ids.
    pub fn submit(&self) -> Result<(String, String), SlurmError> {
        let dir = self.slurm_dir();
        let array = sbatch(&[], &dir.join(SHARD_SCRIPT))?;
        match sbatch(
            &[format!("--dependency=afterok:{array}")],
            &dir.join(MERGE_SCRIPT),
        ) {
            Ok(merge) => Ok((array, merge)),
            Err(e) => {
                // Without its merge the array would run for nothing.
                let _ = Command::new("scancel").arg(&array).status();
                Err(SlurmError::Sbatch(format!(
                    "{e}; cancelled the shards' job {array}"
                )))
            }
        }
    }
}

/// `sbatch --parsable EXTRA... SCRIPT`; returns the job id.
fn sbatch(extra: &[String], script: &Path) -> Result<String, SlurmError> {
    let out = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            SlurmError::Sbatch(if e.kind() == std::io::ErrorKind::NotFound {
                "sbatch not found: run this on a Slurm submit host, or use --dry-run to see the scripts"
                    .to_string()
            } else {
                format!("cannot run sbatch: {e}")
            })
        })?;
    if !out.status.success() {
        return Err(SlurmError::Sbatch(format!(
            "sbatch {} failed ({}): {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
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

    /// A run directory with a finished report, or with a shard of another
    /// seed, is refused by what it holds, naming the directory.
    #[test]
    fn existing_reports_and_foreign_shards_are_refused_by_kind() {
        let text = "name = \"t\"\ngame = \"dakon\"\ngames = 2\nseed = 1\n[time_control]\nmovetime_ms = 100\n\
                    [[bots]]\nname = \"a\"\ncommand = [\"/bin/sh\"]\ncwd = \"/tmp\"\n\
                    [[bots]]\nname = \"b\"\ncommand = [\"/bin/sh\"]\ncwd = \"/tmp\"\n";
        let config = crate::run::config::Config::parse(Path::new("t.toml"), text).unwrap();
        let mut other = config.normalized();
        other.seed += 1;
        let tmp = tempfile::tempdir().unwrap();
        let p = Plan {
            run_dir: tmp.path().to_path_buf(),
            shards: 2,
            ..plan()
        };
        let fingerprint = config.normalized().fingerprint();
        assert!(p.refuse_existing(&fingerprint).is_ok());

        let shard = p.shard_dir(2);
        std::fs::create_dir_all(&shard).unwrap();
        Manifest::new(&other, 2, None, 1).write(&shard).unwrap();
        match p.refuse_existing(&fingerprint) {
            Err(e @ SlurmError::ForeignShard { .. }) => {
                assert!(e.to_string().contains("another config or seed"), "{e}")
            }
            other => panic!("{other:?}"),
        }

        let mut done = Manifest::new(&config.normalized(), 2, None, 2);
        done.status = crate::store::Status::Complete;
        done.write(tmp.path()).unwrap();
        match p.refuse_existing(&fingerprint) {
            Err(SlurmError::ReportExists { dir, .. }) => assert_eq!(dir, tmp.path()),
            other => panic!("{other:?}"),
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
        assert!(plan().check().is_ok());
        let mut p = plan();
        p.run_dir = "/home/u/my reports".into();
        assert!(p.check().unwrap_err().to_string().contains("whitespace"));
        let mut p = plan();
        p.time = Some("1 hour".into());
        assert!(p.check().unwrap_err().to_string().contains("--time"));
        let mut p = plan();
        p.extra = vec!["account=x".into()];
        assert!(p.check().unwrap_err().to_string().contains("--sbatch"));
    }

    fn fleet() -> FleetPlan {
        FleetPlan {
            name: "lab".into(),
            arena: "/opt/arena/bin/arena".into(),
            workdir: "/home/u/arena".into(),
            out: "/home/u/arena/workers".into(),
            workers: 4,
            server: "https://ladder.example.org:8443/".into(),
            token_file: "/home/u/.config/arena/worker's token".into(),
            cpus_per_task: 3,
            concurrency: None,
            grace: 90,
            no_sandbox: false,
            partition: Some("short".into()),
            time: Some("04:00:00".into()),
            extra: vec!["--account=proj".into()],
        }
    }

    #[test]
    fn the_worker_script_runs_one_named_worker_per_task_with_the_token_from_a_file() {
        let s = fleet().script();
        for line in [
            "#SBATCH --array=1-4",
            "#SBATCH --job-name=lab",
            "#SBATCH --output=/home/u/arena/workers/slurm/worker-%A-%a.out",
            "#SBATCH --chdir=/home/u/arena",
            "#SBATCH --partition=short",
            "#SBATCH --time=04:00:00",
            "#SBATCH --cpus-per-task=3",
            "#SBATCH --signal=B:TERM@90",
            "#SBATCH --account=proj",
            "#SBATCH --open-mode=append",
            "arena=/opt/arena/bin/arena",
            "out=/home/u/arena/workers",
        ] {
            assert!(s.lines().any(|l| l == line), "no `{line}` in:\n{s}");
        }
        let exec = s.lines().find(|l| l.starts_with("exec ")).unwrap();
        assert_eq!(
            exec,
            "exec \"$arena\" worker --server https://ladder.example.org:8443/ \
             --token-file '/home/u/.config/arena/worker'\\''s token' --concurrency 3 \
             --name lab-\"$job-$k\" --data \"$out/task-$k\""
        );
        let first_cmd = s.lines().position(|l| l.starts_with("set ")).unwrap();
        assert!(s.lines().skip(first_cmd).all(|l| !l.starts_with("#SBATCH")));
        let mut p = fleet();
        p.concurrency = Some(8);
        p.no_sandbox = true;
        let s = p.script();
        assert!(s.contains("--concurrency 8 --name"), "{s}");
        assert!(
            s.contains("--data \"$out/task-$k\" --sandbox none\n"),
            "{s}"
        );
    }

    #[test]
    fn the_worker_script_runs_under_bash_and_names_each_task() {
        // Run for real with a stand-in arena that prints its arguments: the
        // task's name and data directory come from Slurm's variables.
        let tmp = tempfile::tempdir().unwrap();
        let fake = tmp.path().join("fake arena $(touch pwned)");
        std::fs::write(
            &fake,
            "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut p = fleet();
        p.arena = fake;
        p.server = "http://10.0.0.1:8080".into();
        let out = Command::new("bash")
            .args(["-c", &p.script()])
            .current_dir(tmp.path())
            .env("SLURM_ARRAY_TASK_ID", "2")
            .env("SLURM_ARRAY_JOB_ID", "77")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let args = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            args,
            "[worker]\n[--server]\n[http://10.0.0.1:8080]\n[--token-file]\n\
             [/home/u/.config/arena/worker's token]\n[--concurrency]\n[3]\n[--name]\n\
             [lab-77-2]\n[--data]\n[/home/u/arena/workers/task-2]\n"
        );
        assert!(!tmp.path().join("pwned").exists());
        // Without Slurm's variables it says what is missing.
        let out = Command::new("bash")
            .args(["-c", &p.script()])
            .env_remove("SLURM_ARRAY_TASK_ID")
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("submit this script with sbatch"));
    }

    #[test]
    fn the_worker_plan_refuses_what_cannot_work() {
        assert!(fleet().check().is_ok());
        let refused = |f: &dyn Fn(&mut FleetPlan)| {
            let mut p = fleet();
            f(&mut p);
            p.check().unwrap_err().to_string()
        };
        assert!(refused(&|p| p.server = "ladder.example.org".into()).contains("--server"));
        assert!(refused(&|p| p.server = "http://a b".into()).contains("--server"));
        assert!(refused(&|p| p.name = "my lab".into()).contains("--name"));
        assert!(refused(&|p| p.name = "$(x)".into()).contains("--name"));
        assert!(refused(&|p| p.out = "/home/u/my workers".into()).contains("whitespace"));
        let e = refused(&|p| {
            p.time = Some("1".into());
            p.grace = 60
        });
        assert!(e.contains("--grace 60 is not shorter than --time 1"), "{e}");
        assert!(refused(&|p| p.time = Some("1:2:3:4".into())).contains("--time"));
        let mut p = fleet();
        p.time = None;
        assert!(p.check().is_ok(), "no --time: the partition's limit");
    }

    #[test]
    fn slurm_time_limits_in_seconds() {
        for (t, s) in [
            ("30", 1800),
            ("2:30", 150),
            ("01:30:00", 5400),
            ("1-0", 86_400),
            ("1-2:03", 86_400 + 7200 + 180),
            ("2-00:00:05", 172_805),
        ] {
            assert_eq!(time_limit_seconds(t), Some(s), "{t}");
        }
        for t in [
            "",
            "1:",
            "-1",
            "1-",
            "a",
            "1:2:3:4",
            "1-2:3:4:5",
            "UNLIMITED",
        ] {
            assert_eq!(time_limit_seconds(t), None, "{t}");
        }
    }

    #[test]
    fn quoting_and_job_ids() {
        assert_eq!(sh_quote("/a/b-c.toml"), "/a/b-c.toml");
        assert_eq!(sh_quote("a b"), "'a b'");
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        assert_eq!(sh_quote(""), "''");
        assert_eq!(parse_job_id("1234\n").unwrap(), "1234");
        assert_eq!(parse_job_id("1234;ci\n").unwrap(), "1234");
        assert!(parse_job_id("Submitted batch job 12\n").is_err());
        assert!(parse_job_id("").is_err());
    }
}
