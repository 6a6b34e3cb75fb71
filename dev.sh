#!/usr/bin/env bash
# Stepscope's whole set-up in one command:
#   ./dev.sh run [options]   install what is missing, build, start the application
#   ./dev.sh test            install what is missing, build, run every test (GPU tests skip without a GPU)
# On a Debian/Ubuntu machine with root (or sudo) the missing Debian packages are installed.
# Where nothing can be installed (offline GPU machines), Debian packages unpacked from
# .deps-debs/*.deb (made by `apt-get download` on a connected machine) are used instead.
# LibTorch comes from Torch_DIR/CMAKE_PREFIX_PATH if set, else python3's torch, else libtorch-dev.
set -euo pipefail
root="$(cd "$(dirname "$0")" && pwd)"
build="${STEPSCOPE_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
tools=(g++:g++ cmake:cmake ninja:ninja-build)   # command:package
libraries=(libtorch-dev libgloo-dev libgtest-dev nlohmann-json3-dev libsqlite3-dev)
# The desktop application and its end-to-end test; without them only the command line builds.
# The rest check its Debian package (tests/packaging/check_deb_package.sh).
gui_packages=(qt6-base-dev qt6-charts-dev libqt6sql6-sqlite xvfb xauth
  dpkg-dev lintian desktop-file-utils appstream man-db bash-completion)

say() { echo "dev.sh: $*" >&2; }

python_torch_has_cmake() {
  local prefix
  prefix="$(python3 -c 'import torch,sys;sys.stdout.write(torch.utils.cmake_prefix_path)' 2>/dev/null)" || return 1
  [ -f "$prefix/Torch/TorchConfig.cmake" ]
}

missing_packages() {
  for t in "${tools[@]}"; do
    command -v "${t%%:*}" >/dev/null || echo "${t#*:}"
  done
  command -v dpkg-query >/dev/null || return 0
  for p in "${libraries[@]}"; do
    if [ "$p" = libtorch-dev ] && { [ -n "${Torch_DIR:-}${CMAKE_PREFIX_PATH:-}" ] || python_torch_has_cmake; }; then
      continue  # another LibTorch is used
    fi
    ls "$root"/.deps-debs/"${p}"_*.deb >/dev/null 2>&1 && continue  # in the offline bundle
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
  done
}

missing_gui_packages() {
  command -v dpkg-query >/dev/null || return 0
  for p in "${gui_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
  done
}

install_missing() {
  local missing gui_missing
  missing="$(missing_packages | tr '\n' ' ')"
  gui_missing="$(missing_gui_packages | tr '\n' ' ')"
  # GUI packages ride along when something can be installed; alone, they are worth a try
  # only where apt works (offline machines build the command line).
  if [ -n "${gui_missing// /}" ] && command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; }; then
    missing="$missing $gui_missing"
  fi
  [ -z "${missing// /}" ] && return 0
  command -v ccache >/dev/null || missing="$missing ccache"  # optional: faster rebuilds
  local sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo="sudo"
  if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
    say "installing missing Debian packages: $missing"
    if timeout 300 $sudo apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive timeout 1800 $sudo apt-get install -y -qq $missing >/dev/null; then
      return 0
    fi
    say "could not install $missing; trying the offline bundle"
    missing="$(missing_packages | tr '\n' ' ')"
    [ -z "${missing// /}" ] && return 0  # only GUI packages failed: the command line still builds
  fi
  [ -d "$root/.deps-debs" ] || { say "missing packages: $missing (install them, or put their .debs in .deps-debs/)"; exit 1; }
}

# Unpacks an offline bundle of Debian packages (headers, static libraries, CMake configs).
offline_prefix() {
  [ -d "$root/.deps-debs" ] || return 0
  local prefix="$build/deps"
  if [ ! -f "$prefix/.unpacked" ]; then
    mkdir -p "$prefix"
    for deb in "$root"/.deps-debs/*.deb; do dpkg -x "$deb" "$prefix"; done
    touch "$prefix/.unpacked"
  fi
  echo "-DSTEPSCOPE_DEPS_PREFIX=$prefix/usr"
}

configure_and_build() {
  install_missing
  local extra
  extra="$(offline_prefix)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release $extra >/dev/null
  cmake --build "$build" -j "$jobs" "$@"
}

case "${1:-}" in
  run)
    shift
    configure_and_build
    if [ -x "$build/bin/stepscope" ]; then
      exec "$build/bin/stepscope" "$@"
    fi
    say "Qt 6 was not found, so the desktop application was not built; running the command line instead"
    exec "$build/bin/stepscope-cli" bench --model tiny "$@"
    ;;
  test)
    configure_and_build
    cd "$build"
    exec ctest --output-on-failure -j "$jobs" --timeout 900
    ;;
  *)
    echo "usage: ./dev.sh run [options]   build and start the application"
    echo "       ./dev.sh test            build and run every test"
    exit 2
    ;;
esac
