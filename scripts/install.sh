#!/usr/bin/env bash
# Builds the `cbir` tool (release) and copies it to $PREFIX/bin (default ~/.local/bin), so that `cbir` runs from
# any folder; says so when that folder is not on PATH. Run scripts/setup.sh first (the packages and models).
# Usage: bash scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-${PREFIX:-$HOME/.local}}"
swift build -c release --product cbir
mkdir -p "$prefix/bin"
install -m 755 "$(swift build -c release --show-bin-path)/cbir" "$prefix/bin/cbir"
echo "install: $prefix/bin/cbir ($("$prefix/bin/cbir" --version))"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "install: $prefix/bin is not on PATH: add  export PATH=\"$prefix/bin:\$PATH\"  to ~/.bashrc" ;;
esac
