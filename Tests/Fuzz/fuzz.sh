#!/usr/bin/env bash
# Builds and runs RouteLog's libFuzzer targets (Tests/Fuzz/*Target.swift).
#
#   Tests/Fuzz/fuzz.sh build              build every target into .build/fuzz:
#                                          log-scanner, index-loader, codec, gpx, archive,
#                                          fit, tcx
#   Tests/Fuzz/fuzz.sh run SECONDS [T...]  run each target (default: all) for SECONDS
#   Tests/Fuzz/fuzz.sh smoke SECONDS       build and run each for SECONDS (make test);
#                                          says SKIPPED, and succeeds, when this
#                                          toolchain has no libFuzzer
#
# `smoke` runs with a fixed seed (FUZZ_SEED, default 1), so that a clean checkout's
# smoke run tries the same inputs on every machine and a failure can be replayed;
# `run` draws a new seed each time unless FUZZ_SEED is set, to explore.
#
# The library is compiled once, with -sanitize=fuzzer,address (coverage for libFuzzer,
# and AddressSanitizer to catch any out-of-bounds access), as a static library that
# each target links. Seeds come from Tests/Fuzz/corpus/<target>/ (read only); what the
# fuzzer learns goes to .build/fuzz/corpus/<target>/, crashes to .build/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/.build/fuzz
SWIFTC=${SWIFTC:-swiftc}
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
TARGETS=(log-scanner index-loader codec gpx archive fit tcx)
SANITIZE=-sanitize=fuzzer,address
# lld links the sanitizer runtime quietly; gold (the default on Linux) warns "Cannot
# export local symbol" for each of its ~140 local __asan symbols in every target.
LINKER=()
if command -v ld.lld >/dev/null 2>&1 || [ -x "$(dirname "$(command -v "$SWIFTC")")/ld.lld" ]; then LINKER=(-use-ld=lld); fi

source_of() {
    case $1 in
        log-scanner) echo Tests/Fuzz/LogScannerTarget.swift ;;
        index-loader) echo Tests/Fuzz/IndexLoaderTarget.swift ;;
        codec) echo Tests/Fuzz/CodecTarget.swift ;;
        gpx) echo Tests/Fuzz/GPXTarget.swift ;;
        archive) echo Tests/Fuzz/ArchiveTarget.swift ;;
        fit) echo Tests/Fuzz/FITTarget.swift ;;
        tcx) echo Tests/Fuzz/TCXTarget.swift ;;
        *) echo "unknown fuzz target $1" >&2; exit 2 ;;
    esac
}

# The GPX target also starts from the real tracks of Tests/Fixtures/gpx (read only;
# they keep their licences there).
extra_seeds() {
    if [ "$1" = gpx ] && [ -d Tests/Fixtures/gpx ]; then echo Tests/Fixtures/gpx; fi
}

max_len() { case $1 in gpx|tcx) echo 1048576 ;; *) echo 65536 ;; esac; }

build() {
    mkdir -p "$OUT/lib" "$OUT/modulemaps/CRouteLogSystem"
    cat > "$OUT/modulemaps/CRouteLogSystem/module.modulemap" <<MAP
module CRouteLogSystem {
    header "$ROOT/Sources/CRouteLogSystem/include/CRouteLogSystem.h"
    export *
}
MAP
    for c in Sources/CRouteLogSystem/*.c; do
        "$CLANG" -O1 -g -fPIC -fsanitize=address -I Sources/CRouteLogSystem/include -c "$c" -o "$OUT/lib/$(basename "$c" .c).o"
    done
    local flags=(-Onone -g -enable-testing -swift-version 6 -package-name routelog $SANITIZE -parse-as-library
                 -I "$OUT/lib" -Xcc -fmodule-map-file="$ROOT/Sources/CLZ4/module.modulemap"
                 -Xcc -fmodule-map-file="$OUT/modulemaps/CRouteLogSystem/module.modulemap")
    # One whole-module compile on two threads: about 47 s here, against 109 s for the
    # driver's default of one file job at a time.
    "$SWIFTC" "${flags[@]}" -wmo -num-threads 2 -module-name RouteLog -emit-module -emit-module-path "$OUT/lib/RouteLog.swiftmodule" \
        -emit-library -static -o "$OUT/lib/libRouteLog.a" $(find Sources/RouteLog -name '*.swift' | sort)
    for target in "${TARGETS[@]}"; do
        "$SWIFTC" "${flags[@]}" "${LINKER[@]}" -module-name "Fuzz_${target//-/_}" Tests/Fuzz/MemoryFileSystem.swift "$(source_of "$target")" \
            "$OUT/lib/libRouteLog.a" "$OUT"/lib/*.o -llz4 -o "$OUT/fuzz-$target"
    done
    echo "fuzz targets built in $OUT: ${TARGETS[*]}"
}

run() {
    local seconds=$1; shift
    local targets=("$@")
    [ ${#targets[@]} -eq 0 ] && targets=("${TARGETS[@]}")
    mkdir -p "$OUT/artifacts"
    for target in "${targets[@]}"; do
        mkdir -p "$OUT/corpus/$target"
        rm -f "$OUT/artifacts/$target-"*
        echo "fuzz $target for ${seconds}s: $OUT/fuzz-$target -max_total_time=$seconds $OUT/corpus/$target Tests/Fuzz/corpus/$target"
        SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$OUT/fuzz-$target" ${FUZZ_SEED:+-seed=$FUZZ_SEED} -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=256 -max_len=$(max_len "$target") \
            -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$target-" \
            "$OUT/corpus/$target" "Tests/Fuzz/corpus/$target" $(extra_seeds "$target") 2>&1 | grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written|^fuzz|INFO: seed corpus|DONE|panic|Fatal|precondition" || true
        if ls "$OUT/artifacts/$target-"* >/dev/null 2>&1; then
            echo "fuzz $target FAILED: see $OUT/artifacts/" >&2
            exit 1
        fi
    done
}

can_fuzz() {
    local probe=$OUT/probe
    mkdir -p "$probe"
    printf '@_cdecl("LLVMFuzzerTestOneInput") public func f(_ d: UnsafePointer<UInt8>, _ n: Int) -> Int32 { 0 }\n' > "$probe/probe.swift"
    "$SWIFTC" -sanitize=fuzzer,address "${LINKER[@]}" -parse-as-library "$probe/probe.swift" -o "$probe/probe" > "$probe/log" 2>&1
}

case ${1:-} in
    build) build ;;
    smoke)
        if ! can_fuzz; then
            echo "fuzz: SKIPPED: $SWIFTC cannot build libFuzzer targets here (-sanitize=fuzzer,address failed: $(head -c 300 "$OUT/probe/log"))"
            exit 0
        fi
        build
        FUZZ_SEED=${FUZZ_SEED:-1} run "$2" ;;
    run) shift; run "$@" ;;
    *) echo "usage: $0 build | run SECONDS [target...]" >&2; exit 2 ;;
esac
