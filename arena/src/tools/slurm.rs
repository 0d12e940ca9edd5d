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
    /// The run directory holds what the jobs would refuse.
    #[error("{0}")]
    Refused(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
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
    Path { what: &'static str, path: String },
    #[error("--time `{0}` is not a Slurm time limit (e.g. 30, 01:30:00, 1-00:00:00)")]
    Time(String),
    #[error("--partition `{0}` must be one word")]
    Partition(String),
    #[error("--sbatch `{0}` is not an sbatch option (give it as --sbatch=--account=NAME)")]
    Option(String),
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
        self.run_dir
            .join(crate::store::shard_dir_name(k, self.shards))
    }

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
            return Err(SlurmError::Refused(format!(
                "{} already holds a report ({}); choose another --out",
                self.run_dir.display(),
                m.describe()
            )));
        }
        for k in 1..=self.shards {
            let dir = self.shard_dir(k);
            if let Some(m) = Manifest::read(&dir)? {
                if m.fingerprint != fingerprint {
                    return Err(SlurmError::Refused(format!(
                        "{} holds a shard of another config or seed ({}); choose another --out",
                        dir.display(),
                        m.describe()
                    )));
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
