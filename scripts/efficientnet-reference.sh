#!/usr/bin/env bash
# Writes Tests/Reference/efficientnet-lite0-reference.json (EfficientNet-Lite0's features, logits and prints)
# and Tests/Reference/perceptual-hash-reference.json (DCT hashes) from an independent numpy implementation
# (scripts/efficientnet_reference.py), for the parity tests. It runs
# in a throw-away virtual environment (numpy and Pillow; PyTorch is not needed); CI never runs this, it
# reads the committed file.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv="${EFFICIENTNET_VENV:-$HOME/.cache/facesearch/efficientnet-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import numpy, PIL" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy pillow
fi
"$venv/bin/python" scripts/efficientnet_reference.py \
  "${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}/efficientnet-lite0-57934424.pth" ../shared/datasets Tests/Reference
