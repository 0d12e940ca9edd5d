//! `arena-sandbox-init`: the step a sandboxed bot's bubblewrap runs before
//! the bot (see `arena::process::sandbox_init`). A binary of its own so that
//! it starts quickly: it maps only what this step needs, not all of `arena`.

fn main() {
    arena::process::sandbox_init::run()
}
