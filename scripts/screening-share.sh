#!/usr/bin/env bash
# How well stand-ins screen pairs of real photo prints (ClosePrints, PrintProjection): makes 16 variants of
# each shared real photo (crops of 45–100 %, scales, mirror images, brightness, JPEG quality) with Pillow,
# prints them with `cbir index --no-faces`, and replays the stand-ins' construction in numpy to report the
# share of pairs a search measures in full, beside random prints. Pillow and numpy live in a throw-away
# virtual environment; nothing here is needed by the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${SCREENING_VENV:-$HOME/.cache/facesearch/screening-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import PIL, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy pillow
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/python" scripts/screening_share.py variants ../shared/datasets "$work/variants"
swift run -c release cbir index "$work/variants" --db "$work/variants.sqlite" --no-faces
"$venv/bin/python" scripts/screening_share.py share "$work/variants.sqlite"
