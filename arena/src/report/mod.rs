//! Report writers: files from game records and ratings.

pub mod ratings;
