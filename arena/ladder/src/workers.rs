//! `arena ladder worker add|revoke|suspend|resume|list`: the organiser's
//! commands on remote workers, on the same data directory and database as
//! `arena serve` (as `authors.rs` is for authors).

use std::path::Path;

use crate::api::{valid_name, NAME_RULE};
use crate::app::open;
use crate::authors::AuthorError;
use crate::db::{Worker, WorkerStats};

/// Why a worker command failed (the author commands' errors, which say
/// "author" for the name: these say "worker").
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The data directory or database.
    #[error("{0}")]
    Open(#[from] AuthorError),
    /// The database.
    #[error("{0}")]
    Db(#[from] crate::db::DbError),
    /// A name that breaks the rule.
    #[error("worker `{}` is not a valid name: {NAME_RULE}", .0.escape_debug())]
    BadName(String),
    /// A name already used.
    #[error("worker `{0}` exists already (revoke is final: add a new name)")]
    Taken(String),
    /// No such worker.
    #[error("no worker `{}`", .0.escape_debug())]
    Unknown(String),
}

async fn db(data: &Path, db: Option<&str>) -> Result<crate::db::Db, WorkerError> {
    let (_, db) = open(data, db).await.map_err(AuthorError::from)?;
    Ok(db)
}

/// Adds a worker; returns its token `wID.SECRET`, shown once.
pub async fn add(data: &Path, url: Option<&str>, name: &str) -> Result<String, WorkerError> {
    if !valid_name(name) {
        return Err(WorkerError::BadName(name.to_string()));
    }
    let db = db(data, url).await?;
    let t = crate::token::new_token();
    let id = db
        .add_worker(name, &t.salt, &t.hash)
        .await?
        .ok_or_else(|| WorkerError::Taken(name.to_string()))?;
    db.close().await;
    Ok(crate::token::format_worker(id, &t.secret))
}

/// Revokes a worker's token: its next request is refused (401) and it stops.
pub async fn revoke(data: &Path, url: Option<&str>, name: &str) -> Result<(), WorkerError> {
    let db = db(data, url).await?;
    if !db.revoke_worker(name).await? {
        return Err(WorkerError::Unknown(name.to_string()));
    }
    db.close().await;
    Ok(())
}

/// Suspends a worker (no leases, no records: 403) or lifts it.
pub async fn suspend(
    data: &Path,
    url: Option<&str>,
    name: &str,
    on: bool,
) -> Result<(), WorkerError> {
    let db = db(data, url).await?;
    if !db.suspend_worker(name, on).await? {
        return Err(WorkerError::Unknown(name.to_string()));
    }
    db.close().await;
    Ok(())
}

/// Every worker as one line: name, status, games, refused records by
/// code, forfeit rate per reason, machine (never a token).
pub async fn list(data: &Path, url: Option<&str>) -> Result<Vec<String>, WorkerError> {
    let db = db(data, url).await?;
    let stats = db.worker_stats().await?;
    let lines = db
        .workers()
        .await?
        .iter()
        .map(|w| line(w, stats.get(&w.id).cloned().unwrap_or_default()))
        .collect();
    db.close().await;
    Ok(lines)
}

/// One worker's line of `list`.
pub fn line(w: &Worker, s: WorkerStats) -> String {
    let status = if w.revoked_at.is_some() {
        "revoked"
    } else if w.suspended_at.is_some() {
        "suspended"
    } else {
        "active"
    };
    let games: i64 = s.games.values().sum();
    let forfeits: Vec<String> = s
        .games
        .iter()
        .filter(|(r, _)| !matches!(r.as_str(), "normal" | "adjudicated"))
        .map(|(r, n)| format!("{r} {:.1}%", 100.0 * *n as f64 / games.max(1) as f64))
        .collect();
    let refused: i64 = s.refusals.values().sum();
    let refusals: Vec<String> = s.refusals.iter().map(|(c, n)| format!("{c} {n}")).collect();
    format!(
        "{}\t{status}\tgames {games}\tforfeits [{}]\trefused {refused} [{}]\tmachine {}",
        w.name,
        forfeits.join(", "),
        refusals.join(", "),
        // What a worker reported reaches the organiser's terminal: escaped
        // (JSON leaves bidi overrides as they are).
        arena::display::escape(w.machine.as_deref().unwrap_or("(not reported yet)"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker's machine report is a stranger's text on the organiser's
    /// terminal: a bidi override or an escape sequence in it is shown
    /// escaped, never as itself.
    #[test]
    fn a_machine_report_reaches_the_terminal_escaped() {
        let w = Worker {
            id: 1,
            name: "lab".into(),
            revoked_at: None,
            suspended_at: None,
            machine: Some("{\"name\":\"pc\u{202e}1\u{1b}[2J\"}".into()),
            last_seen_at: None,
            created_at: 0,
        };
        let l = line(&w, WorkerStats::default());
        assert!(!l.contains('\u{202e}') && !l.contains('\u{1b}'), "{l:?}");
        assert!(
            l.ends_with("machine {\"name\":\"pc\\u{202e}1\\x1b[2J\"}"),
            "{l:?}"
        );
    }
}
