#!/usr/bin/env bash
# The main job: builds cbir, indexes a gallery folder into ./cbir.sqlite (resuming a previous run) and
# asks it for the faces nearest a probe photo's largest face, printing the matches and writing matches.png.
# Usage: bash scripts/find-faces.sh [gallery folder] [probe photo]
set -euo pipefail
gallery="${1:-../shared/datasets/wild-photos/train}"
probe="${2:-../shared/datasets/wild-photos/test/obama1.jpg}"
swift build -c release --product cbir
cbir="$(swift build -c release --show-bin-path)/cbir"
"$cbir" index "$gallery"
"$cbir" query "$probe" --top 5 --sheet matches.png
echo "sheet: matches.png"
