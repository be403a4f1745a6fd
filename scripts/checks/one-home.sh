#!/usr/bin/env bash
# One home for each rule (issue 26): outside its module, nothing in Sources/ may format or
# parse dates with Foundation's formatters (CivilTime: RFC3339, HTTPDate), hex-encode with
# String(format: "%02x") (BinaryText: Hex), or append to a file itself (DurableFiles:
# DurableFile.appendLine). Exceptions are named with a reason in one-home.allow. A grep pass:
# well under a second. `--self-test` (run first on every call) proves each rule can fail.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# rule name, extended regex, home directory (where the rule lives and may be spelt out)
rules=(
  "dateformatter|DateFormatter\\b|Sources/CivilTime/"
  "hex-format|%0?2[xX]|Sources/BinaryText/"
  "append|O_APPEND\\b|Sources/DurableFiles/"
)

# Prints FILE:LINE: rule: text for each violation under $1 not in the allow-list $2; also an
# error for each allow-list entry that matches nothing. Exit status 1 when anything is printed.
scan() {
  local root=$1 allow=$2 found=0 name regex home hits file
  declare -A used=()
  for rule in "${rules[@]}"; do
    IFS='|' read -r name regex home <<<"$rule"
    # Matches in code only: the part of a line before `//` (a comment may name the rule).
    hits=$(cd "$root" && grep -rnE "$regex" Sources --include='*.swift' 2>/dev/null \
      | perl -ne 'my ($f, $l, $code) = split(/:/, $_, 3); $code =~ s{//.*}{}; print "$f:$l:$code" if $code =~ /'"$regex"'/' \
      | grep -v "^$home" || true)
    while IFS= read -r hit; do
      [ -n "$hit" ] || continue
      file=${hit%%:*}
      if grep -qE "^$file $name " "$allow"; then used["$file $name"]=1; continue; fi
      echo "one-home: $name outside $home: $hit"
      found=1
    done <<<"$hits"
  done
  while read -r file name _; do
    case "$file" in ''|'#'*) continue ;; esac
    if [ -z "${used["$file $name"]:-}" ]; then
      echo "one-home: stale allow-list entry (matches nothing): $file $name"
      found=1
    fi
  done <"$allow"
  return $found
}

# A scratch tree with one violation per rule and one allowed exception: each violation must be
# reported, the exception must not, and a clean tree must pass.
self_test() {
  local t; t=$(mktemp -d)
  trap 'rm -rf "$t"' RETURN
  mkdir -p "$t/Sources/A" "$t/Sources/DurableFiles"
  printf 'let d = DateFormatter()\nlet i = ISO8601DateFormatter()\nlet h = String(format: "%%02x", b)\nlet fd = open(p, O_WRONLY | O_APPEND)\n// a comment may say DateFormatter\n' >"$t/Sources/A/Bad.swift"
  printf 'let fd = open(p, O_RDWR | O_APPEND)\n' >"$t/Sources/DurableFiles/Home.swift"
  printf 'let fd = open(p, O_APPEND)\n' >"$t/Sources/A/Allowed.swift"
  printf '# reasons\nSources/A/Allowed.swift append a reason\n' >"$t/allow"
  local out; out=$(scan "$t" "$t/allow") && { echo "one-home self-test: a tree with violations passed"; return 1; }
  for expect in "dateformatter outside Sources/CivilTime/: Sources/A/Bad.swift:1:" "Sources/A/Bad.swift:2:" \
                "hex-format outside Sources/BinaryText/: Sources/A/Bad.swift:3:" "append outside Sources/DurableFiles/: Sources/A/Bad.swift:4:"; do
    grep -qF "$expect" <<<"$out" || { echo "one-home self-test: missing \"$expect\" in:"; echo "$out"; return 1; }
  done
  if grep -qE "Bad.swift:5:|Allowed.swift|DurableFiles/Home.swift" <<<"$out"; then
    echo "one-home self-test: reported a comment, an allowed file or the home:"; echo "$out"; return 1
  fi
  rm "$t/Sources/A/Bad.swift"
  out=$(scan "$t" "$t/allow") || { echo "one-home self-test: a clean tree failed:"; echo "$out"; return 1; }
  printf 'Sources/A/Gone.swift append stale\n' >>"$t/allow"
  out=$(scan "$t" "$t/allow") && { echo "one-home self-test: a stale allow-list entry passed"; return 1; }
  return 0
}

self_test
[ "${1:-}" = "--self-test" ] && { echo "one-home: self-test passed"; exit 0; }
if scan "$here/../.." "$here/one-home.allow"; then
  echo "one-home: dates, hex and appends each have one home"
else
  exit 1
fi
