#!/usr/bin/env bash
# The Gloo headers a CUDA build against PyTorch's wheel needs for Gloo process groups: the wheel's
# LibTorch carries Gloo compiled in but ships none of its headers. Copies the headers of a Gloo
# source tree (github.com/pytorch/gloo, a checkout or a bare clone) to DEST/gloo and writes the
# gloo/config.h its CMake would generate for a TCP-only CPU build. Configure with
#   -DSTEPSCOPE_GLOO_INCLUDE_DIR=DEST
# Usage: tests/device/gloo_headers.sh GLOO_SOURCE DEST   (run where the source is, carry DEST)
set -euo pipefail
src=$1 dest=$2
tree=$src
if [ ! -d "$src/gloo" ]; then  # a bare clone: take the newest commit's files
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' EXIT
  git --git-dir="$src" archive HEAD gloo CMakeLists.txt | tar x -C "$tree"
fi
version() { sed -n "s/^set(GLOO_VERSION_$1 \([0-9]*\))/\1/p" "$tree/CMakeLists.txt"; }
mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
(cd "$tree" && find gloo -name '*.h' -print0 | xargs -0 cp --parents -t "$dest")
cat >"$dest/gloo/config.h" <<CONFIG
#pragma once
#define GLOO_VERSION_MAJOR $(version MAJOR)
#define GLOO_VERSION_MINOR $(version MINOR)
#define GLOO_VERSION_PATCH $(version PATCH)
#define GLOO_VERSION (GLOO_VERSION_MAJOR * 10000 + GLOO_VERSION_MINOR * 100 + GLOO_VERSION_PATCH)
#define GLOO_USE_CUDA 0
#define GLOO_USE_NCCL 0
#define GLOO_USE_ROCM 0
#define GLOO_USE_RCCL 0
#define GLOO_USE_REDIS 0
#define GLOO_USE_IBVERBS 0
#define GLOO_USE_MPI 0
#define GLOO_USE_AVX 0
#define GLOO_USE_LIBUV 0
#define GLOO_HAVE_TRANSPORT_TCP 1
#define GLOO_HAVE_TRANSPORT_TCP_TLS 0
#define GLOO_HAVE_TRANSPORT_IBVERBS 0
#define GLOO_HAVE_TRANSPORT_UV 0
#define GLOO_USE_TORCH_DTYPES 0
CONFIG
echo "$(find "$dest/gloo" -name '*.h' | wc -l) headers in $dest/gloo (Gloo $(version MAJOR).$(version MINOR).$(version PATCH))"
