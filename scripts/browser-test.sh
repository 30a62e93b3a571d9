#!/usr/bin/env bash
# The web page in a real browser: indexes real photos (the shared wild photos, else the sample photos; see
# test-server.sh) and a copy of one, so that duplicates show, starts `cbir serve` on loopback, and drives headless
# Chromium (Debian's chromium and chromium-driver, installed when missing) through every page with Selenium (in a
# throw-away virtual environment): names a person, merges back the face split off it and adds the face
# suggested for it in one click, cleans up the duplicates (the copy kept, the original to the trash) and undoes
# it, checking the files on disk, uploads a photo to search with, checks what each page shows
# and that the browser reports no error (a script error or a blocked resource), and saves a screenshot of each
# page in $BROWSER_TEST_OUT (default .build/browser-test). Exits non-zero on the first thing that is wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-packages.sh chromium chromium-driver python3-venv
venv="${BROWSER_TEST_VENV:-$HOME/.cache/facesearch/browser-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "selenium==4.*"
fi
out="${BROWSER_TEST_OUT:-.build/browser-test}"
mkdir -p "$out"
source scripts/test-server.sh
"$venv/bin/python" scripts/browser_test.py "$base" "$probe" "$out" "$least_people" $framed_photo "$split_person" \
  "$lone_faces" "$work" \
  || { cat "$serve_log"; exit 1; }
