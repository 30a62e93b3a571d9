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
# CPython before 3.11.8 and 3.12.2 can raise "SystemError: AST constructor recursion depth mismatch" from deep
# inside hypothesis (CPython gh-106905), which schemathesis reports as a flaky runtime error: take a 3.13 or
# later where the machine has one (pyenv's), else python3.
python=python3
for candidate in "$HOME"/.pyenv/versions/3.1[3-9]*/bin/python3 /usr/bin/python3.1[3-9]; do
  if [ -x "$candidate" ]; then python=$candidate; break; fi
done
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv="${API_FUZZ_VENV:-$HOME/.cache/facesearch/api-fuzz-venv-$version}"
if [ ! -x "$venv/bin/schemathesis" ]; then
  "$python" -m venv "$venv"
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
