#!/usr/bin/env bash
# Fails on an include that runs against the layers: a folder may include its own files and
# those of the folders below it, never above (docs/ARCHITECTURE.md draws the house). Also:
# the engine includes no Qt, the views no LibTorch.
# usage: check_include_layers.sh [REPO_ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$root"

# Bottom first. engine/<folder> is a layer; views/ and app/ sit on top of the engine.
layers=(compat core schema kernels profiling attention model runners distributed experiments io imports compare planner registry views app)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

layer_of() {  # path -> layer name, or nothing for files outside the layers (pch, tests)
  case "$1" in
    engine/pch/*) ;;
    engine/*/*) local rest="${1#engine/}"; echo "${rest%%/*}" ;;
    views/*) echo views ;;
    app/*) echo app ;;
  esac
}

# Includes are relative to engine/, views/ (charts/, models/, widgets/, export/) or app/.
target_layer() {  # include path -> layer name, or nothing for system and third-party headers
  local first="${1%%/*}"
  [ "$first" = "$1" ] && return 0
  if [ -n "${rank[$first]:-}" ] && [ "$first" != views ] && [ "$first" != app ]; then echo "$first"; return; fi
  case "$first" in
    charts|models|widgets|export) echo views ;;
    cli|gui|history|main) echo app ;;
  esac
}

bad=0
while IFS= read -r file; do
  from="$(layer_of "$file")"
  [ -z "$from" ] && continue
  while IFS= read -r line; do
    include="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]+)[">].*/\1/' <<<"$line")"
    case "$from:$line" in
      views:*"<torch/"*|views:*"<ATen/"*|views:*"<c10/"*)
        echo "$file: the views include no LibTorch: $include"; bad=1; continue ;;
    esac
    if [ "${file%%/*}" = engine ] && [[ "$line" == *"<Q"* ]]; then
      echo "$file: the engine includes no Qt: $include"; bad=1; continue
    fi
    [[ "$line" == *'"'* ]] || continue
    to="$(target_layer "$include")"
    [ -z "$to" ] && continue
    if [ "${rank[$to]}" -gt "${rank[$from]}" ]; then
      echo "$file: $from includes $include from $to, a layer above it"
      bad=1
    fi
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$file" || true)
done < <(git ls-files --cached --others --exclude-standard 'engine/*.h' 'engine/*.cpp' 'engine/*.cu' 'engine/*.cuh' 'views/*.h' 'views/*.cpp' 'app/*.h' 'app/*.cpp' 2>/dev/null ||
         find engine views app -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh')

if [ "$bad" -ne 0 ]; then
  echo "include layers: FAILED (order, bottom first: ${layers[*]})"
  exit 1
fi
echo "include layers: ok (${layers[*]})"
