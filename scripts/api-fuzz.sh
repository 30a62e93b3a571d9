#!/usr/bin/env bash
# Fuzzes the JSON API of `cbir serve` with schemathesis (from PyPI, in a throw-away virtual environment):
# indexes the shared wild photos (and a copy of one), starts the server on loopback, and sends what the
# OpenAPI document at /api/openapi.json allows and what it does not (schemathesis's generated cases, up to
# EXAMPLES per operation, default 200), failing on any answer of 500 or more. Not part of the tests: it takes
# minutes. Usage: bash scripts/api-fuzz.sh [EXAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-200}
venv="${API_FUZZ_VENV:-$HOME/.cache/facesearch/api-fuzz-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==4.*"
fi
swift build -c release --product cbir >/dev/null 2>&1 || swift build -c release --product cbir
cbir="$(swift build -c release --show-bin-path)/cbir"
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
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/api/stats" >/dev/null && break; sleep 0.2; done
status=0
# From the scratch folder, where schemathesis keeps its cache.
(cd "$work" && "$venv/bin/schemathesis" run "http://127.0.0.1:$port/api/openapi.json" --checks not_a_server_error \
  --max-examples "$examples" --phases examples,coverage,fuzzing --workers 2 --no-color) || status=$?
if grep -q " error " "$work/serve.log"; then
  echo "api-fuzz: the server logged errors:"; grep " error " "$work/serve.log" | head -20
fi
exit $status
