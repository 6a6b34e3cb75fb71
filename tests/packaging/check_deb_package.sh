#!/usr/bin/env bash
# The Debian package, end to end: cpack builds it from this build; then its fields and computed
# Depends, every file it must install, desktop-file-validate, appstreamcli, lintian (no errors;
# warnings listed), apt-get's simulated install, the extracted binaries running (version, a tiny
# CPU benchmark), the man pages rendering, and the bash completion completing in a scripted bash.
# Usage: check_deb_package.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
need() { command -v "$1" >/dev/null || { echo "FAIL: $1 is not installed (./dev.sh installs it)"; exit 1; }; }
for tool in cpack dpkg-deb desktop-file-validate appstreamcli lintian man apt-get; do need $tool; done
[ -f /usr/share/bash-completion/bash_completion ] || { echo "FAIL: bash-completion is not installed"; exit 1; }

id=io.github.stepscope.Stepscope
version=$(sed -n 's/^project(Stepscope VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
echo "== cpack -G DEB ($version)"
(cd "$work" && cpack -G DEB -B "$work" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1) ||
  { tail -30 "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
deb="$work/stepscope_${version}_amd64.deb"
[ -f "$deb" ] || { ls "$work"; echo "FAIL: no $deb"; exit 1; }

echo "== fields"
info=$(dpkg-deb --field "$deb")
echo "$info" | grep -v '^ ' | sed 's/^/  /'
field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = stepscope ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version)"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: $(field Architecture)"
[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^@]+@[^\>]+\>$ ]] || fail "Maintainer not 'Name <email>': $(field Maintainer)"
depends=$(field Depends)
for dep in libtorch libqt6widgets6 libqt6charts6 libqt6sql6 libqt6sql6-sqlite qt6-qpa-plugins libc6 libstdc++6; do
  [[ ", $depends," == *", $dep"* ]] || fail "Depends lacks $dep: $depends"
done

echo "== contents"
contents=$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/stepscope /usr/bin/stepscope-cli /usr/share/applications/$id.desktop \
  /usr/share/metainfo/$id.metainfo.xml /usr/share/mime/packages/$id.xml \
  /usr/share/icons/hicolor/scalable/apps/$id.svg /usr/share/man/man1/stepscope.1.gz \
  /usr/share/man/man1/stepscope-cli.1.gz /usr/share/bash-completion/completions/stepscope-cli \
  /usr/share/doc/stepscope/copyright /usr/share/doc/stepscope/changelog.gz; do
  grep -qx "$f" <<<"$contents" || fail "not in the package: $f"
done
for n in 16 24 32 48 64 128 256 512; do
  grep -qx "/usr/share/icons/hicolor/${n}x${n}/apps/$id.png" <<<"$contents" || fail "no ${n}x${n} icon"
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
echo "== desktop-file-validate, appstreamcli"
desktop-file-validate "$root/usr/share/applications/$id.desktop" || fail "desktop-file-validate"
grep -q '^Exec=stepscope %f$' "$root/usr/share/applications/$id.desktop" || fail "Exec is not 'stepscope %f'"
appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate"

echo "== lintian"
lintian --no-tag-display-limit "$deb" >"$work/lintian.log" 2>&1
errors=$(grep -c '^E:' "$work/lintian.log")
grep '^[EW]:' "$work/lintian.log" | sed 's/^/  /'
[ "$errors" -eq 0 ] || fail "lintian: $errors error(s)"

echo "== apt-get install --simulate"
apt-get install --simulate "$deb" >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log"; fail "apt-get cannot resolve the package"; }
grep -q '^Inst stepscope ' "$work/apt.log" || { tail -20 "$work/apt.log"; fail "apt-get would not install stepscope"; }

echo "== the extracted binaries"
"$root/usr/bin/stepscope-cli" version || fail "stepscope-cli version"
QT_QPA_PLATFORM=offscreen "$root/usr/bin/stepscope" --version || fail "stepscope --version"
"$root/usr/bin/stepscope-cli" bench --model tiny --context 32 --batch 2 --warmup 1 --steps 2 --quiet \
  --csv "$work/tiny.csv" || fail "a tiny CPU benchmark"
grep -q '^tiny,.*,ok,' "$work/tiny.csv" || fail "no ok row in the tiny benchmark's CSV: $(cat "$work/tiny.csv")"

echo "== man pages"
for page in stepscope stepscope-cli; do
  out=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/$page.1.gz" 2>"$work/man.err")
  [ -s "$work/man.err" ] && { cat "$work/man.err"; fail "man $page warned"; }
  grep -q "usage: $page" <<<"$out" || fail "man $page lacks its usage"
done
grep -q "COMMAND: BENCH" <<<"$(MANWIDTH=100 man -l "$root/usr/share/man/man1/stepscope-cli.1.gz")" ||
  fail "man stepscope-cli lacks the bench command's section"

echo "== bash completion"
completes() {  # WORDS... -> the completions of the last word
  bash -c 'source /usr/share/bash-completion/bash_completion
    source "$0"
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _stepscope_cli stepscope-cli "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' "$root/usr/share/bash-completion/completions/stepscope-cli" "$@"
}
[ "$(completes stepscope-cli be)" = bench ] || fail "stepscope-cli be<TAB>: $(completes stepscope-cli be)"
completes stepscope-cli bench --mo | grep -qx -- --model || fail "bench --mo<TAB>: $(completes stepscope-cli bench --mo)"
[ "$(completes stepscope-cli bench --cuda-graphs o | tr '\n' ' ')" = "on off " ] ||
  fail "bench --cuda-graphs o<TAB>: $(completes stepscope-cli bench --cuda-graphs o)"
[ "$(completes stepscope-cli precision a | tr '\n' ' ')" = "accumulate autocast " ] ||
  fail "precision a<TAB>: $(completes stepscope-cli precision a)"

if [ $failures -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "the package holds"
