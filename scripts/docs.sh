#!/usr/bin/env bash
# The library modules' API documentation, with DocC: each module's public symbols, taken from the release build's
# compiled modules (swift-symbolgraph-extract), become one documentation archive a module under OUT (default
# .build/docs), each with its static pages (`docc process-archive transform-for-static-hosting`: open
# OUT/<Module>/documentation/<module>/index.html through any web server). Fails on any warning of DocC's, a link
# to a symbol that does not exist for one. Usage: bash scripts/docs.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath -m "${1:-.build/docs}")"
modules=(ImageKernels ImageCodecs NeuralNetworks FaceDetection FaceRecognition PhotoSimilarity Catalog CatalogServer)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
source scripts/built.sh
build_when_stale
# Where the modules' C dependencies are declared: the project's own shims, the packages' module maps, and those
# SwiftPM generated for the C targets it built.
search=(-I "$bin/Modules")
for map in Sources/C*/module.modulemap $(find .build/checkouts/*/Sources -name module.modulemap -not -path "*SQLCipher*"); do
  search+=(-I "$(dirname "$map")")
done
for map in "$bin"/*.build/module.modulemap; do search+=(-Xcc "-fmodule-map-file=$map"); done
warnings=0
rm -rf "$out"
mkdir -p "$out"
for module in "${modules[@]}"; do
  mkdir -p "$work/$module"
  swift-symbolgraph-extract -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" "${search[@]}" \
    -minimum-access-level public -output-dir "$work/$module" >"$work/$module.log" 2>&1 \
    || { cat "$work/$module.log"; exit 1; }
  (cd "$work" && docc convert --fallback-display-name "$module" --fallback-bundle-identifier "facesearch.$module" \
    --fallback-bundle-version "$("$bin/cbir" --version)" --additional-symbol-graph-dir "$work/$module" \
    --output-path "$work/$module.doccarchive" >"$work/$module.docc.log" 2>&1) || { cat "$work/$module.docc.log"; exit 1; }
  count=$(grep -c "warning:" "$work/$module.docc.log" || true)
  if [ "$count" -gt 0 ]; then
    cat "$work/$module.docc.log"
    warnings=$((warnings + count))
  fi
  docc process-archive transform-for-static-hosting "$work/$module.doccarchive" --output-path "$out/$module" \
    --hosting-base-path "$module" >/dev/null
  echo "docs: $module: $out/$module/documentation/$(echo "$module" | tr '[:upper:]' '[:lower:]')/index.html"
done
if [ "$warnings" -gt 0 ]; then
  echo "docs: DocC gave $warnings warnings (above)" >&2
  exit 1
fi
