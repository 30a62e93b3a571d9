#!/usr/bin/env bash
# The web page in a real browser: indexes the shared wild photos (and a copy of one, so that duplicates show),
# starts `cbir serve` on loopback, and drives headless Chromium (Debian's chromium and chromium-driver,
# installed when missing) through every page with Selenium (in a throw-away virtual environment): names a
# person, uploads a photo to search with, checks what each page shows and that the browser reports no error
# (a script error or a blocked resource), and saves a screenshot of each page in $BROWSER_TEST_OUT
# (default .build/browser-test). Exits non-zero on the first thing that is wrong.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in chromium chromium-driver python3-venv; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "browser-test: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
venv="${BROWSER_TEST_VENV:-$HOME/.cache/facesearch/browser-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "selenium==4.*"
fi
swift build -c release --product cbir >/dev/null 2>&1 || swift build -c release --product cbir
cbir="$(swift build -c release --show-bin-path)/cbir"
out="${BROWSER_TEST_OUT:-.build/browser-test}"
mkdir -p "$out"
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
mkdir "$work/photos"
cp -r ../shared/datasets/wild-photos/train ../shared/datasets/wild-photos/misc "$work/photos/"
cp ../shared/datasets/wild-photos/train/biden/biden.jpg "$work/photos/biden copy.jpg"
"$cbir" index "$work/photos" --db "$work/cbir.sqlite" >"$work/index.log" 2>&1 || { cat "$work/index.log"; exit 1; }
port=$((20000 + RANDOM % 20000))
"$cbir" serve --db "$work/cbir.sqlite" --port "$port" 2>"$work/serve.log" &
server=$!
for _ in $(seq 50); do
  curl -sf "http://127.0.0.1:$port/api/stats" >/dev/null && break
  sleep 0.2
done
"$venv/bin/python" scripts/browser_test.py "http://127.0.0.1:$port" ../shared/datasets/wild-photos/test/obama1.jpg "$out" \
  || { cat "$work/serve.log"; exit 1; }
