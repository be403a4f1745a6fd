# Sourced by script checks: `bin=$(newest_built modeld)` prints the newer of .build/debug/NAME and
# .build/release/NAME, or nothing when neither is built (the check then skips what needs it).
newest_built() {
  local name=$1 found= candidate
  for candidate in ".build/debug/$name" ".build/release/$name"; do
    [ -x "$candidate" ] || continue
    if [ -z "$found" ] || [ "$candidate" -nt "$found" ]; then found=$candidate; fi
  done
  echo "$found"
}
