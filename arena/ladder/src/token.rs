//! API tokens: `ID.SECRET`, where SECRET is 32 random bytes in hex. The
//! database keeps only a random salt and sha256(salt || secret); a token is
//! checked by recomputing that hash and comparing in constant time. The ID
//! finds the author's row, so checking costs one hash, not one per author.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A new token's parts: what the author is shown once, and what is stored.
pub struct NewToken {
    /// Shown once, never stored.
    pub secret: String,
    /// Stored: hex of 16 random bytes.
    pub salt: String,
    /// Stored: hex of sha256(salt || secret).
    pub hash: String,
}

fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    hex::encode(bytes)
}

/// sha256(salt || secret), in hex.
pub fn hash(salt: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(salt.as_bytes());
    h.update(secret.as_bytes());
    hex::encode(h.finalize())
}

/// A fresh secret (32 random bytes) with its salt and hash.
pub fn new_token() -> NewToken {
    let secret = random_hex(32);
    let salt = random_hex(16);
    let hash = hash(&salt, &secret);
    NewToken { secret, salt, hash }
}

/// The token an author is given: their id and the secret.
pub fn format(author: i64, secret: &str) -> String {
    format!("{author}.{secret}")
}

/// Splits a presented token into (author id, secret); `None` if malformed.
pub fn parse(token: &str) -> Option<(i64, &str)> {
    let (id, secret) = token.split_once('.')?;
    if secret.len() != 64 || !secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((id.parse().ok()?, secret))
}

/// Whether `secret` matches the stored salt and hash, in constant time.
pub fn verify(salt: &str, stored_hash: &str, secret: &str) -> bool {
    hash(salt, secret)
        .as_bytes()
        .ct_eq(stored_hash.as_bytes())
        .into()
}

/// The token a remote worker is given: `w`, its id, and the secret. The
/// prefix keeps the two kinds apart: [`parse`] refuses a worker's token
/// and [`parse_worker`] an author's, so neither can act as the other.
pub fn format_worker(worker: i64, secret: &str) -> String {
    format!("w{worker}.{secret}")
}

/// Splits a presented worker token into (worker id, secret); `None` if
/// malformed or an author's.
pub fn parse_worker(token: &str) -> Option<(i64, &str)> {
    parse(token.strip_prefix('w')?)
}

/// A random lease or worker id (not a credential of an author).
pub fn lease_token() -> String {
    random_hex(16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_against_its_own_hash_only() {
        let t = new_token();
        let text = format(7, &t.secret);
        let (id, secret) = parse(&text).unwrap();
        assert_eq!(id, 7);
        assert!(verify(&t.salt, &t.hash, secret));
        let other = new_token();
        assert!(!verify(&t.salt, &t.hash, &other.secret));
        assert!(!verify(&other.salt, &t.hash, secret));
        assert_ne!(t.salt, other.salt);
        assert_eq!(parse("7.short"), None);
        assert_eq!(parse("x"), None);
        assert!(!t.hash.contains(&t.secret));
    }

    #[test]
    fn worker_and_author_tokens_never_pass_for_each_other() {
        let t = new_token();
        let author = format(7, &t.secret);
        let worker = format_worker(7, &t.secret);
        assert_eq!(parse_worker(&worker), Some((7, t.secret.as_str())));
        assert_eq!(parse(&worker), None);
        assert_eq!(parse_worker(&author), None);
        assert_eq!(parse_worker("ww7.x"), None);
    }
}
