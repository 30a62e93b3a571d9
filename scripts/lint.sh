#!/usr/bin/env bash
# The code's habits, checked: swift-format's rules and layout (.swift-format: 4 spaces, 120 columns), and no
# line over 120 characters anywhere (swift-format leaves comments and string literals as they are).
# `swift format format --in-place --recursive Package.swift Sources Tests Benchmarks Plugins` fixes most of it.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Benchmarks Plugins)
swift format lint --strict --recursive "${paths[@]}"
if LC_ALL=C.UTF-8 grep -rnP --include='*.swift' '^.{121,}' "${paths[@]}"; then
    echo "lint: the lines above are longer than 120 characters" >&2
    exit 1
fi
# Foundation's NSString.deletingLastPathComponent stops the process on a one-character name ("x", "é"):
# FileSystemPath.folder(of:) finds a path's folder instead.
if grep -rn --include='*.swift' 'NSString)\.deletingLastPathComponent' "${paths[@]}"; then
    echo "lint: use FileSystemPath.folder(of:), not NSString's deletingLastPathComponent (it crashes on short names)" >&2
    exit 1
fi
