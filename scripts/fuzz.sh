#!/usr/bin/env bash
# Builds and runs one libFuzzer target: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
# Targets (Fuzz/Targets/*.swift): request-parser chunked-decoder ranges event-batch gzip zip-reader chunk-list
# pack-reader patch-reader.
# The module sources are compiled straight from Sources/ with -sanitize=fuzzer,address (and
# -enable-testing, so a target may check internals) into .build-fuzz/ (gitignored): the normal
# `swift build` never sees the fuzzer flags.
# The corpus grows in .build-fuzz/corpus/TARGET, seeded from Fuzz/corpus/TARGET; a crash input is
# written to .build-fuzz/crashes/TARGET/ and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
[[ -f Fuzz/Targets/$target.swift ]] || { echo "fuzz.sh: unknown target '$target' (see Fuzz/Targets/)" >&2; exit 2; }
[[ $seconds =~ ^[0-9]+$ ]] || { echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2; }

out=.build-fuzz
mkdir -p "$out/modules" "$out/objects" "$out/bin"
flags=(-sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -enable-testing -I "$out/modules" -I Sources/CZlib)

# module NAME FILES...: one instrumented object and .swiftmodule, rebuilt when a source or a
# module built before it (a possible dependency) is newer; appended to `objects`.
objects=()
module() {
    local name=$1; shift
    local object=$out/objects/$name.o
    objects+=("$object")
    if [[ -f $object ]] && [[ -z $(find "$@" "${objects[@]:0:${#objects[@]}-1}" -newer "$object" 2>/dev/null) ]]; then return; fi
    echo "fuzz.sh: compiling $name" >&2
    # The compiler leaves an unchanged output untouched: stamp it, so it counts as fresh.
    swiftc "${flags[@]}" -module-name "$name" -wmo -emit-module -emit-module-path "$out/modules/$name.swiftmodule" \
        -c "$@" -o "$object" && touch "$object" || { echo "fuzz.sh: $name failed to compile" >&2; exit 1; }
}

module BinaryText Sources/BinaryText/*.swift
module CivilTime Sources/CivilTime/*.swift
module JSONSupport Sources/JSONSupport/*.swift
module HTTPWire Sources/HTTPWire/*.swift
module ZipArchive Sources/ZipArchive/*.swift
libs=(-lz)
# SHA-256 (the event-batch dedup key, MDPACK1's block digests): CryptoPrimitives over the
# system's libcrypto, compiled here like the other modules.
use_crypto() {
    flags+=(-I Sources/CLibcrypto)
    libs+=(-lcrypto)
    module CryptoPrimitives Sources/CryptoPrimitives/*.swift
}
if [[ $target == event-batch ]]; then
    # The batch parser's files only: the rest of EventStore is disk I/O, not input parsing.
    use_crypto
    module EventStore Sources/EventStore/{BatchParser,EventBatch,EventBatchError,DedupKey,EventTime}.swift
fi
if [[ $target == pack-reader || $target == patch-reader ]]; then
    # All of TensorPack: the reader, and the encoder for the round trip (its file I/O is TensorPackFiles).
    use_crypto
    module TensorPack Sources/TensorPack/*.swift
fi

if [[ $target == chunk-list ]]; then
    # The `.chunks` reader and what it validates against; the builder (SHA-256) is not input parsing.
    module ChunkList Sources/ChunkList/{GearTable,ContentDefinedChunker,ChunkDigest,ChunkList}.swift
fi

binary=$out/bin/$target
sources=(Fuzz/Check.swift "Fuzz/Targets/$target.swift")
if [[ ! -x $binary ]] || [[ -n $(find "${sources[@]}" "${objects[@]}" -newer "$binary") ]]; then
    echo "fuzz.sh: linking $target" >&2
    # ld.gold warns about ASan's local symbols on every link: noise, filtered.
    { swiftc "${flags[@]}" "${sources[@]}" "${objects[@]}" "${libs[@]}" -o "$binary" 2>&1 && touch "$binary"; } \
        | { grep -v "Cannot export local symbol" >&2 || true; }
    [[ -x $binary ]] && [[ -z $(find "${sources[@]}" "${objects[@]}" -newer "$binary") ]] || { echo "fuzz.sh: $target failed to link" >&2; exit 1; }
fi

corpus=$out/corpus/$target
crashes=$out/crashes/$target
mkdir -p "$corpus" "$crashes"
seeds=()
[[ -d Fuzz/corpus/$target ]] && seeds=("Fuzz/corpus/$target")
dict=()
[[ -f Fuzz/dictionaries/$target.dict ]] && dict=("-dict=Fuzz/dictionaries/$target.dict")
# -rss_limit_mb: the inflater's limit is 1 MiB, so anything near 2 GiB is a leak or a bomb.
# Swift's own crash backtracer would fight ASan's handler; libFuzzer reports the trap instead.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
exec "$binary" "$corpus" "${seeds[@]}" -max_total_time="$seconds" -artifact_prefix="$crashes/" \
    -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 "${dict[@]}" "$@"
