# Sourced by benchmark scripts for an A/B against another revision (AB_REV): builds that
# revision's products in a detached worktree under AB_ROOT (/tmp/modeld-bench-ab; kept between
# runs and scripts: the next run only checks the build) and prints the bin directory on stdout.
#   ab_base_bin REPO REV "swift build flags" product...
ab_base_bin() {
  local repo=$1 rev=$2 flags=$3 root=${AB_ROOT:-/tmp/modeld-bench-ab}; shift 3
  local short tree p
  short=$(git -C "$repo" rev-parse --short "$rev^{commit}") || { echo "AB_REV $rev is not a commit" >&2; return 1; }
  tree=$root/ab-$short
  [[ -d $tree ]] || git -C "$repo" worktree add --detach "$tree" "$short" >&2 || return 1
  echo "== swift build $flags in $tree ($* at $short, the A/B base)" >&2
  # shellcheck disable=SC2086 # flags are words
  for p in "$@"; do (cd "$tree" && swift build $flags --product "$p" >&2) || return 1; done
  # shellcheck disable=SC2086
  (cd "$tree" && swift build $flags --show-bin-path)
}
