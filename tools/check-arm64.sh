#!/bin/sh
# The library's C kernels on Apple's processors and on x86-64 against one listing
# (tools/kernel-digest.c, tools/kernel-digest.expected): a store written on one
# machine is read, compacted and summarised on another, so each kernel must give the
# same integers, doubles and bytes on all of them, to the bit.
#
# On Linux x86-64 the program is built five times, each by the toolchain's clang as
# Xcode builds the package (GCC would fuse multiplies and adds that clang keeps apart),
# and the foreign builds run under qemu:
#   x86_64          this processor, whose AVX2, BMI2 and FMA paths it takes (and the
#                   same under AddressSanitizer and UndefinedBehaviorSanitizer);
#   arm64-apple-a7  arm64 as an iPhone build's baseline (no CRC32 instructions);
#   arm64-apple-m1  arm64 with the CRC32 instructions, as Mac and Watch builds have;
#   armv7-ilp32     32-bit size_t and pointers, as an arm64_32 Watch build has them.
# qemu-user and the arm64 and armhf C libraries are installed with apt-get when
# missing. Elsewhere (a Mac) it is built for the machine itself.
set -eu
cd "$(dirname "$0")/.."
out=.build/tools/kernel-digest
mkdir -p "$out"
CLANG=${CLANG:-$(command -v clang || echo "$(dirname "$(command -v swift)")/clang")}
sources="tools/kernel-digest.c $(ls Sources/CRouteLogSystem/*.c)"
flags="-O2 -Wall -Wextra -Werror -I Sources/CRouteLogSystem/include -I Sources/CRouteLogSystem"

[ -x "$CLANG" ] || { echo "check-arm64: no clang found (set CLANG to the toolchain's clang)" >&2; exit 1; }

# Runs one build and compares its listing with the expected one, and the wide paths it
# says it took (`paths: ...` on stderr) with those it must take, unless that is "any".
compare() {  # name, paths, command...
    name=$1 paths=$2
    shift 2
    if ! "$@" > "$out/$name.txt" 2> "$out/$name.paths"; then
        cat "$out/$name.paths" >&2
        echo "check-arm64: the $name build failed its own checks (above)" >&2
        exit 1
    fi
    if ! diff -u tools/kernel-digest.expected "$out/$name.txt"; then
        echo "check-arm64: the $name build's digests differ from tools/kernel-digest.expected (listing in $out)." >&2
        echo "check-arm64: when a kernel's output changed on purpose (a new block version), make kernel-digest-expected" >&2
        echo "check-arm64: writes the listing again from this machine's build; every other build must then give it too" >&2
        exit 1
    fi
    took=$(sed -n 's/^paths: //p' "$out/$name.paths")
    if [ "$paths" != any ] && [ "$took" != "$paths" ]; then
        echo "check-arm64: the $name build took the paths $took, where it must take $paths" >&2
        exit 1
    fi
    echo "check-arm64: $name gives the expected digests for $(wc -l < "$out/$name.txt") kernels ($took)"
}

if [ "${1:-}" = --write-expected ]; then
    "$CLANG" $flags -o "$out/kernel-digest-native" $sources -lm
    "$out/kernel-digest-native" > tools/kernel-digest.expected
    echo "check-arm64: wrote tools/kernel-digest.expected from this machine's build; run make check-arm64 to hold the others to it"
    exit 0
fi

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
    "$CLANG" $flags -o "$out/kernel-digest-native" $sources -lm
    compare "$(uname -m)" any "$out/kernel-digest-native"
    echo "check-arm64: only this machine's build was run; the arm64, 32-bit ARM and x86-64 builds run on Linux x86-64"
    exit 0
fi

if ! command -v qemu-aarch64 >/dev/null || ! command -v qemu-arm >/dev/null \
    || ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v arm-linux-gnueabihf-gcc >/dev/null \
    || [ ! -e /usr/aarch64-linux-gnu/include/stdio.h ] || [ ! -e /usr/arm-linux-gnueabihf/include/stdio.h ]; then
    echo "check-arm64: installing qemu-user and the arm64 and armhf cross C libraries"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
        gcc-arm-linux-gnueabihf libc6-dev-armhf-cross >/dev/null
fi
"$CLANG" $flags -o "$out/kernel-digest-x86_64" $sources -lm
# Where the processor has AVX2, FMA, BMI2 and SSE4.2, every wide path must be taken.
wide=any
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo \
    && grep -qw sse4_2 /proc/cpuinfo; then
    wide="crc32c=1 divide=1 multiplies=1 build_points=1 farthest=1 quantize=1 short_steps=1"
fi
compare x86_64 "$wide" "$out/kernel-digest-x86_64"
# And under AddressSanitizer and UndefinedBehaviorSanitizer: the decoders' copies end
# where a load's do, so a read past them, or an overflow, stops the run.
if ! "$CLANG" $flags -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -o "$out/kernel-digest-sanitized" \
    $sources -lm 2> "$out/sanitized-build.log"; then
    cat "$out/sanitized-build.log" >&2
    exit 1
fi
ASAN_OPTIONS=detect_leaks=1 compare x86_64-sanitized "$wide" "$out/kernel-digest-sanitized"

# A foreign build: each file compiled by clang for the target, linked by the cross
# toolchain's driver, run under qemu.
foreign() {  # name, the paths it must take, triple, qemu, clang flags...
    name=$1 paths=$2 triple=$3 qemu=$4
    shift 4
    objects=""
    for source in $sources; do
        object="$out/$name-$(basename "$source" .c).o"
        "$CLANG" --target="$triple" "$@" -isystem "/usr/$triple/include" $flags -c "$source" -o "$object"
        objects="$objects $object"
    done
    "$triple-gcc" -o "$out/kernel-digest-$name" $objects -lm
    compare "$name" "$paths" "$qemu" -cpu max -L "/usr/$triple" "$out/kernel-digest-$name"
}
none="crc32c=0 divide=0 multiplies=0 build_points=0 farthest=0 quantize=0 short_steps=0"
foreign arm64-apple-a7 "$none" aarch64-linux-gnu qemu-aarch64 -mcpu=apple-a7
foreign arm64-apple-m1 "crc32c=1 divide=0 multiplies=0 build_points=0 farthest=0 quantize=0 short_steps=0" \
    aarch64-linux-gnu qemu-aarch64 -mcpu=apple-m1
foreign armv7-ilp32 "$none" arm-linux-gnueabihf qemu-arm -march=armv7-a -mfpu=neon
