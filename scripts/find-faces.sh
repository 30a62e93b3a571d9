#!/usr/bin/env bash
# The main job: builds cbir, indexes a gallery folder into ./cbir.sqlite (resuming a previous run) and
# asks it for the faces nearest a probe photo's largest face, printing the matches and writing matches.png.
# By default the sample photos `scripts/setup.sh` fetches: a gallery of six photos of Obama and Biden,
# and another photo of Obama as the probe.
# Usage: bash scripts/find-faces.sh [gallery folder] [probe photo]
set -euo pipefail
samples="${FACESEARCH_SAMPLES:-$HOME/.cache/facesearch/samples}"
gallery="${1:-$samples/gallery}"
probe="${2:-$samples/probe/obama3.jpg}"
swift build -c release --product cbir
cbir="$(swift build -c release --show-bin-path)/cbir"
"$cbir" index "$gallery"
"$cbir" query "$probe" --top 5 --sheet matches.png
echo "sheet: matches.png"
