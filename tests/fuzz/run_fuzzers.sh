#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build the codec fuzzers with clang (standalone, no MPI) and run every
# fuzzer on every codec for SECONDS seconds each (the library codecs half of
# it), seeded from the data sets.
# Exit status is non-zero if any fuzzer crashes, leaks or hangs (one input
# over 30 s: generous because CI machines are shared); crash
# inputs land in build/fuzz/artifacts/.
#   tests/fuzz/run_fuzzers.sh 10
set -euo pipefail
SECONDS_PER_TARGET=${1:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${COMPI_FUZZ_BUILD:-$ROOT/build/fuzz}
CC_BIN=${COMPI_FUZZ_CC:-clang}

mkdir -p "$BUILD"
cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -DCMAKE_C_COMPILER="$CC_BIN" >"$BUILD/cmake.log" 2>&1 \
  || { cat "$BUILD/cmake.log"; exit 1; }
cmake --build "$BUILD" -j"$(nproc)" >"$BUILD/build.log" 2>&1 \
  || { tail -50 "$BUILD/build.log"; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$BUILD/artifacts" "$BUILD/logs"
failed=0
total=0
max_jobs=$(nproc)
results=()
# run_target NAME LABEL SECONDS MAX_LEN WHY CORPUS...: runs $BUILD/fuzz_NAME on
# the corpora (the first one grows) in the background, at most one fuzzer per
# core at a time, logging to logs/NAME-LABEL.log; its outcome line (and on
# failure the log lines matching the regex WHY) lands in logs/NAME-LABEL.result,
# printed in launch order at the end. The codec comes from COMPI_FUZZ_CODEC.
run_target() {
  local name=$1 label=$2 secs=$3 maxlen=$4 why=$5
  local log="$BUILD/logs/$1-$2.log" res="$BUILD/logs/$1-$2.result"
  shift 5
  while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do wait -n || true; done
  results+=("$res")
  (
    if "$BUILD/fuzz_$name" -max_total_time="$secs" -timeout=30 -max_len="$maxlen" -print_final_stats=1 \
         -artifact_prefix="$BUILD/artifacts/$name-$label-" "$@" >"$log" 2>&1; then
      runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
      printf 'ok    %-10s %-11s %s runs\n' "$name" "$label" "$runs" >"$res"
    else
      { printf 'FAIL  %-10s %-11s see %s\n' "$name" "$label" "$log"
        grep -m5 -E "$why" "$log" || tail -20 "$log"; } >"$res"
    fi
  ) &
}
for codec in $("$BUILD/fuzz_tool" list); do
  # compi's hand-written codecs (and poly-lz4's predictor) get the full time; the library codecs (fuzzed
  # upstream; here compi's thin wrappers and their size checks) half of it
  case $codec in rle | huffman | rice | fpc | dfcm | poly-lz4) secs=$SECONDS_PER_TARGET ;;
    *) secs=$(((SECONDS_PER_TARGET + 1) / 2)) ;; esac
  dec="$BUILD/corpus/decode-$codec"
  rt="$BUILD/corpus/roundtrip-$codec"
  mkdir -p "$dec" "$rt"
  "$BUILD/fuzz_tool" seed "$codec" "$dec" "$rt"
  COMPI_FUZZ_CODEC=$codec run_target decode "$codec" "$secs" 16384 \
    'ERROR|SUMMARY|runtime error|returned|failed' "$dec"
  COMPI_FUZZ_CODEC=$codec run_target roundtrip "$codec" "$secs" 16384 \
    'ERROR|SUMMARY|runtime error|returned|failed' "$rt"
done
# chunks of pipelined messages (lib/frame/frame.c): one binary, every codec
chunk_corpus="$BUILD/corpus/chunk"
mkdir -p "$chunk_corpus"
run_target chunk all "$((2 * SECONDS_PER_TARGET))" 16384 'ERROR|SUMMARY|runtime error|returned|failed|decoded' \
  "$chunk_corpus" "$BUILD/corpus/roundtrip-lz4"
# whole frames in memory (collective blocks, stashed messages) and escapes
# (lib/frame/frame.c): one binary each, seeded with valid frames of every codec
for target in frame escape; do
  corpus="$BUILD/corpus/$target"
  mkdir -p "$corpus"
  "$BUILD/fuzz_tool" "${target}s" "$corpus"
  run_target "$target" all "$((2 * SECONDS_PER_TARGET))" 16384 \
    'ERROR|SUMMARY|runtime error|failed|decoded|accepted|wrote|refused' "$corpus"
done
# collective block metadata and the broadcast header (lib/frame/coll_meta.c)
meta_corpus="$BUILD/corpus/collmeta"
mkdir -p "$meta_corpus"
# seeds: a bytes block and a pipelined block as received, a round trip of
# each kind, a raw and an lz4 broadcast header round trip
printf '\x00\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$meta_corpus/bytes"
printf '\x00\x01\x00\x00\x03\x0c\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00' >"$meta_corpus/chunked"
for k in 0 1 2 3; do
  printf "\\x02\\x0$k\\x0c\\x01\\x00\\x40\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x80\\x00\\x00\\x00\\x00\\x00\\x00\\x07" >"$meta_corpus/rt$k"
done
printf '\x03\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00' >"$meta_corpus/hdr-raw"
printf '\x03\x01\x00\x10\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00' >"$meta_corpus/hdr-lz4"
run_target collmeta coll "$SECONDS_PER_TARGET" 4096 'ERROR|SUMMARY|runtime error|abort|read|accepted|pieces' \
  "$meta_corpus"
# compact piece lists of collective I/O (lib/io/plist.c)
if [[ -x "$BUILD/fuzz_plist" ]]; then
  plist_corpus="$BUILD/corpus/plist"
  mkdir -p "$plist_corpus"
  # seeds: a strided list and an irregular one, as parse inputs, and a build input
  printf '\x00\xff\x00\x01\x03\x18\x04\x04\x03\x08\x08' >"$plist_corpus/strided"
  printf '\x00\xff\xff\x00\x02\xad\x02\x07\x00\x01\xac\x02\x00\x01\x01' >"$plist_corpus/two"
  printf '\x01\x00\x00\x00\x00\x07\x03\x07\x03\x07\x00\x01' >"$plist_corpus/build"
  run_target plist io "$SECONDS_PER_TARGET" 4096 'ERROR|SUMMARY|runtime error|failed|outside' "$plist_corpus"
fi
wait
for res in "${results[@]}"; do
  total=$((total + 1))
  [ -s "$res" ] || echo "FAIL  no outcome for $res" >"$res"
  grep -q '^FAIL' "$res" && failed=$((failed + 1))
  cat "$res"
done
echo "$((total - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
