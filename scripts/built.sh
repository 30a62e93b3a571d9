# Sourced by the scripts that build or run what the test command builds (test.sh, docs.sh, test-server.sh): sets
# `bin` (the build's folder) and defines the one build of the tests' product (and the `cbir` it runs).
# - build_for_tests: builds it, arguments passed on, and stamps `$bin/.built-for-tests`.
# - build_when_stale: builds it only where a source changed since that stamp. `swift test` leaves SwiftPM's plan
#   out of date (its plugins run again), so a build after the tests replans and relinks for half a minute or
#   more with nothing changed.
bin="$(swift build -c release --show-bin-path)"
build_for_tests() {
  swift build -c release --product FaceSearchPackageTests "$@" && touch "$bin/.built-for-tests"
}
build_when_stale() {
  if [[ ! -f $bin/.built-for-tests ]] \
    || [[ -n $(find Sources Kernels Plugins Package.swift -newer "$bin/.built-for-tests" -print -quit) ]]; then
    build_for_tests >/dev/null 2>&1 || build_for_tests
  fi
}
