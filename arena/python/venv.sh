#!/usr/bin/env bash
# Builds the arena_games package into the virtual environment .venv at the repository root
# (created if missing), with NumPy, OpenSpiel, PettingZoo, Gymnasium and pytest: what the
# package's tests, its example, the Python search bots and the OpenSpiel demo tournament
# run on. Quick when nothing changed.
#
#   arena/python/venv.sh          (from anywhere)
#
# The extension is built in the workspace's target/ directory with the workspace's release
# profile, so the engines compiled by `cargo build --release` are reused, not built again.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check 'maturin>=1.5,<2' 'pytest>=7' \
  'numpy>=1.21' 'open_spiel>=1.5' 'pettingzoo>=1.24' 'gymnasium>=1.0'
CARGO_TARGET_DIR="$PWD/target" VIRTUAL_ENV="$PWD/.venv" \
  .venv/bin/maturin develop --release --quiet -m arena/python/Cargo.toml
