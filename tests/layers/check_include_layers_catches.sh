#!/usr/bin/env bash
# The layer check fails where it must: an upward include, Qt in the engine, LibTorch in the
# views; and passes a tree that keeps to the layers.
set -euo pipefail
check="$(cd "$(dirname "$0")" && pwd)/check_include_layers.sh"
tree="$(mktemp -d)"
trap 'rm -rf "$tree"' EXIT

make_tree() {  # a small house that keeps to the layers
  rm -rf "$tree"/*
  mkdir -p "$tree"/engine/{core,model,experiments} "$tree"/views/widgets "$tree"/app/cli
  printf '#pragma once\n' > "$tree/engine/core/config_error.h"
  printf '#include "core/config_error.h"\n' > "$tree/engine/model/model_config.h"
  printf '#include "model/model_config.h"\n#include <vector>\n' > "$tree/engine/experiments/harness.h"
  printf '#include <QWidget>\n#include "experiments/harness.h"\n' > "$tree/views/widgets/form.h"
  printf '#include "widgets/form.h"\n#include "experiments/harness.h"\n' > "$tree/app/cli/main.cpp"
}

expect() {  # expect STATUS WHAT-THE-OUTPUT-SAYS
  local status=0 out
  out="$(bash "$check" "$tree" 2>&1)" || status=$?
  if [ "$status" -ne "$1" ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "expected status $1 and '$2', got $status:"; echo "$out"; exit 1
  fi
}

make_tree
expect 0 "include layers: ok"

make_tree
printf '#include "experiments/harness.h"\n' >> "$tree/engine/model/model_config.h"
expect 1 "engine/model/model_config.h: model includes experiments/harness.h from experiments, a layer above it"

make_tree
printf '#include <QString>\n' >> "$tree/engine/experiments/harness.h"
expect 1 "the engine includes no Qt"

make_tree
printf '#include <torch/torch.h>\n' >> "$tree/views/widgets/form.h"
expect 1 "the views include no LibTorch"

make_tree
printf '#include "cli/main.h"\n' >> "$tree/views/widgets/form.h"
expect 1 "views includes cli/main.h from app"
echo "the layer check catches what it must"
