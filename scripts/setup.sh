#!/usr/bin/env bash
# Installs the Debian packages the project builds and runs with; does nothing when they are present.
set -euo pipefail
packages=(ocl-icd-opencl-dev pocl-opencl-icd opencl-headers clinfo libturbojpeg0-dev libpng-dev libsqlite3-dev opencv-data pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
