#!/usr/bin/env bash
# Installs the Debian packages named that are not installed yet (as root, or through sudo); does nothing
# when all are. Usage: bash scripts/install-packages.sh PACKAGE...
set -euo pipefail
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
