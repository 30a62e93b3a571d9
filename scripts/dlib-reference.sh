#!/usr/bin/env bash
# Writes Tests/Reference/dlib-reference.json and Tests/Reference/dlib-chips/: dlib's own detections,
# 5-point landmarks, 150×150 face chips and 128-d descriptors for the shared wild photos and a few ORL
# faces, for the parity tests. dlib (PyPI dlib-bin) runs in a throw-away virtual environment; CI never
# runs this, it reads the committed files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
venv="${DLIB_VENV:-$HOME/.cache/facesearch/dlib-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import dlib, PIL, numpy" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet dlib-bin==20.0.1 numpy pillow
fi
"$venv/bin/python" scripts/dlib_reference.py "${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}" ../shared/datasets Tests/Reference
