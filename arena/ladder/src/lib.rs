//! The ladder behind `arena serve`: uploads -> builds -> schedule -> leases -> verified
//! records -> ratings -> pages, on one database (SQLite or PostgreSQL).
//!
//! It is a crate of its own because it brings an HTTP server and a database driver that
//! the referee and the tournament harness never need; it builds on `arena` (the referee,
//! the sandbox, configs, ratings) and never the other way round. The `arena` binary hands
//! `arena serve` and `arena ladder ...` to the `arena-ladder` binary beside it, the way
//! cargo and git run their external subcommands.
#![warn(missing_docs)]

pub mod api;
pub mod app;
pub mod archive;
pub mod authors;
pub mod builder;
pub mod config;
pub mod db;
pub mod games;
pub mod live;
pub mod matchmaking;
pub mod play;
pub mod ratings;
pub mod standing;
pub mod token;
pub mod verify;
pub mod web;
pub mod worker;
pub mod worker_api;
pub mod workers;

#[cfg(test)]
mod layer_tests {
    /// docs/architecture.md's rule for the server: no SQL outside its
    /// database module (`db.rs` and the migrations).
    #[test]
    fn only_the_database_module_writes_sql() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        // The source files, in sub-modules' directories too (`web/`).
        let mut files = Vec::new();
        let mut dirs = vec![dir];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        assert!(files.iter().any(|p| p.ends_with("web/mod.rs")));
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name == "db.rs" || name == "lib.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for needle in ["sqlx::", "SELECT ", "UPDATE ", "INSERT INTO", "DELETE FROM"] {
                assert!(
                    !text.contains(needle),
                    "{name} names `{needle}`: SQL belongs in db.rs"
                );
            }
        }
    }
}
