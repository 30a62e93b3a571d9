# Sourced by the scripts that run what the test command built (docs.sh, test-server.sh): sets `bin` (the build's
# folder) and builds the tests' product (and the `cbir` it runs) as the test command builds it, but only where a
# source changed since the last such build (`$bin/.built-for-tests`, which test.sh's build touches too). `swift
# test` leaves SwiftPM's plan out of date (its plugins run again), so a build after the tests replans and relinks
# for half a minute or more with nothing changed.
bin="$(swift build -c release --show-bin-path)"
if [[ ! -f $bin/.built-for-tests ]] || [[ -n $(find Sources Kernels Plugins Package.swift -newer "$bin/.built-for-tests" -print -quit) ]]; then
  swift build -c release --product FaceSearchPackageTests >/dev/null 2>&1 || swift build -c release --product FaceSearchPackageTests
  touch "$bin/.built-for-tests"
fi
