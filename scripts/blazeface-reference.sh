#!/usr/bin/env bash
# Writes Tests/Reference/blazeface-reference.json: MediaPipe's BlazeFace models run by the TFLite
# interpreter (PyPI ai-edge-litert) on exactly built inputs, and MediaPipe's own face detection (PyPI
# mediapipe) on the shared wild photos, for the parity tests. Both run in a throw-away virtual
# environment; CI never runs this, it reads the committed file.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv="${BLAZEFACE_VENV:-$HOME/.cache/facesearch/blazeface-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import ai_edge_litert, mediapipe, PIL, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet ai-edge-litert==2.3.0 mediapipe==0.10.14 numpy pillow
fi
"$venv/bin/python" scripts/blazeface_reference.py "${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}" ../shared/datasets Tests/Reference
