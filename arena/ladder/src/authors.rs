//! `arena ladder author add|revoke|list`: the organiser's commands on the
//! same data directory and database as `arena serve`.

use std::path::Path;

use crate::api::{valid_name, NAME_RULE};
use crate::app::{open, ServeError};

/// Why an author command failed.
#[derive(Debug, thiserror::Error)]
pub enum AuthorError {
    /// The data directory or database.
    #[error("{0}")]
    Open(#[from] ServeError),
    /// The database.
    #[error("{0}")]
    Db(#[from] crate::db::DbError),
    /// A name that breaks the rule.
    #[error("author `{}` is not a valid name: {NAME_RULE}", .0.escape_debug())]
    BadName(String),
    /// A name already used.
    #[error("author `{0}` exists already (revoke is final: add a new name)")]
    Taken(String),
    /// No such author.
    #[error("no author `{}`", .0.escape_debug())]
    Unknown(String),
}

/// Adds an author; returns the token, shown once (the caller prints it
/// alone on the last line).
pub async fn add(
    data: &Path,
    db: Option<&str>,
    name: &str,
    admin: bool,
) -> Result<String, AuthorError> {
    if !valid_name(name) {
        return Err(AuthorError::BadName(name.to_string()));
    }
    let (_, db) = open(data, db).await?;
    let t = crate::token::new_token();
    let id = db
        .add_author(name, &t.salt, &t.hash, admin)
        .await?
        .ok_or_else(|| AuthorError::Taken(name.to_string()))?;
    db.close().await;
    Ok(crate::token::format(id, &t.secret))
}

/// Revokes an author's token.
pub async fn revoke(data: &Path, db: Option<&str>, name: &str) -> Result<(), AuthorError> {
    let (_, db) = open(data, db).await?;
    if !db.revoke_author(name).await? {
        return Err(AuthorError::Unknown(name.to_string()));
    }
    db.close().await;
    Ok(())
}

/// Every author as lines `NAME ROLE STATUS` (never a token).
pub async fn list(data: &Path, db: Option<&str>) -> Result<Vec<String>, AuthorError> {
    let (_, db) = open(data, db).await?;
    let lines = db
        .authors()
        .await?
        .iter()
        .map(|a| {
            format!(
                "{}\t{}\t{}",
                a.name,
                if a.is_admin { "admin" } else { "author" },
                if a.revoked_at.is_some() {
                    "revoked"
                } else {
                    "active"
                }
            )
        })
        .collect();
    db.close().await;
    Ok(lines)
}
