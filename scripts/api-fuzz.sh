#!/usr/bin/env bash
# Fuzzes the JSON API of `cbir serve` with schemathesis (from PyPI, in a throw-away virtual environment):
# indexes real photos and a copy of one (see test-server.sh), starts the server on loopback, and sends what the
# OpenAPI document at /api/openapi.json allows and what it does not (schemathesis's generated cases, up to
# EXAMPLES per operation, default 200), failing on any answer of 500 or more. The test command runs it with
# 25 (about a minute); the default takes several. Usage: bash scripts/api-fuzz.sh [EXAMPLES]
set -euo pipefail
cd "$(dirname "$0")/.."
examples=${1:-200}
bash scripts/install-packages.sh python3-venv
venv="${API_FUZZ_VENV:-$HOME/.cache/facesearch/api-fuzz-venv}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==4.*"
fi
source scripts/test-server.sh
status=0
# From the scratch folder, where schemathesis keeps its cache.
(cd "$work" && "$venv/bin/schemathesis" run "$base/api/openapi.json" --checks not_a_server_error \
  --max-examples "$examples" --phases examples,coverage,fuzzing --workers 2 --no-color) || status=$?
if grep -q " error " "$serve_log"; then
  echo "api-fuzz: the server logged errors:"; grep " error " "$serve_log" | head -20
fi
exit $status
