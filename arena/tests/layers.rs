//! The layer table of docs/architecture.md, checked against the code: a module
//! of the `arena` library may not name (`crate::x`) a layer it must not import.
//!
//! The known breaches are listed in `KNOWN` (issue 30 removes them): the test
//! fails on a new breach, and also when a listed one is gone, so the list only
//! shrinks and always says what is left.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Each layer (a top-level module of `arena/src`, or one of `run/`'s files where
/// the order inside `run/` matters) and what it must not name.
const RULES: &[(&str, &[&str])] = &[
    // Helpers every layer may use; they use nothing.
    ("display", &["*"]),
    ("lanes", &["*"]),
    // The bot processes are their own crate, `arena-process` (arena/process/),
    // re-exported as `crate::process`: it knows nothing of games' scheduling,
    // ratings or run files because it can name nothing of arena (cargo
    // refuses the cycle); the modules that must not use it list it below.
    (
        "referee",
        &["rating", "standings", "store", "run", "report", "tools"],
    ),
    // Pure maths over tallies: no processes, no files.
    (
        "standings",
        &["process", "referee", "store", "run", "report", "tools"],
    ),
    // The rating maths is its own crate, `arena-rating` (arena/rating/),
    // re-exported as `crate::rating`: it names nothing of arena (cargo
    // refuses the cycle a dependency on arena would make); arena's modules
    // that must not use it are listed here.
    (
        "rating",
        &[
            "standings",
            "process",
            "referee",
            "store",
            "run",
            "report",
            "tools",
        ],
    ),
    // A run's resolved settings: data over the referee's and the processes'
    // types, below everything that reads or writes them.
    (
        "settings",
        &["standings", "rating", "store", "run", "report", "tools"],
    ),
    // The run directory stores what it is given.
    ("store", &["run", "report", "referee", "tools"]),
    // A config is validated before anything is scheduled from it.
    ("run::config", &["run::schedule", "report", "tools"]),
    ("run", &["report", "tools"]),
    ("report", &["process", "referee", "run", "tools"]),
];

/// Breaches that exist today, as (file, layer it names): none since issue 30
/// (kept so that a breach, if one must ever be allowed, is listed here).
const KNOWN: &[(&str, &str)] = &[];

/// The layer a file belongs to: the most specific entry of `RULES`.
fn layer_of(rel: &str) -> Option<&'static str> {
    let module = rel.trim_end_matches(".rs").replace('/', "::");
    RULES
        .iter()
        .map(|(layer, _)| *layer)
        .filter(|layer| module == *layer || module.starts_with(&format!("{layer}::")))
        .max_by_key(|layer| layer.len())
}

/// Every `crate::a` and `crate::a::b` a file names, outside comments.
fn named_paths(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            // `arena_core::...` and other crates' paths end in "crate" too.
            let before = &rest[..at];
            let ident_before = before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            rest = &rest[at + "crate::".len()..];
            if ident_before {
                continue;
            }
            let segs: Vec<&str> = rest
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .unwrap_or("")
                .split("::")
                .filter(|s| !s.is_empty())
                .take(2)
                .collect();
            if let Some(first) = segs.first() {
                out.insert((*first).to_string());
                if let Some(second) = segs.get(1) {
                    out.insert(format!("{first}::{second}"));
                }
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The breaches of the table in the library's sources, as (file, layer named).
fn breaches(src: &Path) -> BTreeSet<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = BTreeSet::new();
    for path in files {
        let rel = path
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(layer) = layer_of(&rel) else {
            continue;
        };
        let forbidden = RULES.iter().find(|(l, _)| *l == layer).unwrap().1;
        let text = fs::read_to_string(&path).unwrap();
        for named in named_paths(&text) {
            let top = named.split("::").next().unwrap();
            // A layer's own modules are not a breach (run::openings naming run::config).
            if top == layer.split("::").next().unwrap() && !forbidden.contains(&named.as_str()) {
                continue;
            }
            if forbidden.contains(&"*") || forbidden.contains(&named.as_str()) {
                found.insert((rel.clone(), named));
            }
        }
    }
    found
}

#[test]
fn no_layer_names_one_it_must_not_import() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = breaches(&src);
    let known: BTreeSet<(String, String)> = KNOWN
        .iter()
        .map(|(f, l)| (f.to_string(), l.to_string()))
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        new.is_empty(),
        "modules that name a layer they must not import (docs/architecture.md, the layer table): {new:?}"
    );
    assert!(
        gone.is_empty(),
        "breaches listed in KNOWN no longer exist: remove them from the list: {gone:?}"
    );
}

/// The control: the probe sees a breach planted in a copy of the sources.
#[test]
fn a_planted_breach_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("referee")).unwrap();
    fs::write(
        dir.path().join("referee/seat.rs"),
        "// crate::store in a comment is no breach\nuse arena_core::record;\nuse crate::display;\nfn f() { crate::store::x(); }\n",
    )
    .unwrap();
    fs::write(dir.path().join("display.rs"), "use crate::referee::seat;\n").unwrap();
    fs::create_dir_all(dir.path().join("run")).unwrap();
    fs::write(
        dir.path().join("run/config.rs"),
        "use crate::run::schedule::MAX;\nuse crate::run::openings;\n",
    )
    .unwrap();
    let found: Vec<(String, String)> = breaches(dir.path()).into_iter().collect();
    assert_eq!(
        found,
        vec![
            ("display.rs".to_string(), "referee".to_string()),
            ("display.rs".to_string(), "referee::seat".to_string()),
            ("referee/seat.rs".to_string(), "store".to_string()),
            ("run/config.rs".to_string(), "run::schedule".to_string()),
        ]
    );
}
