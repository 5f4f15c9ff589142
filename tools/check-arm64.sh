#!/bin/sh
# The library's C kernels on Apple's processors and on x86-64 against one listing
# (tools/kernel-digest.c, tools/kernel-digest.expected): a store written on one
# machine is read, compacted and summarised on another, so each kernel must give the
# same integers, doubles and bytes on all of them, to the bit.
#
# On Linux x86-64 the program is built four times, each by the toolchain's clang as
# Xcode builds the package (GCC would fuse multiplies and adds that clang keeps apart),
# and the foreign builds run under qemu:
#   x86_64          this processor, whose AVX2, BMI2 and FMA paths it takes;
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

# Runs one build and compares its listing with the expected one.
compare() {  # name, command...
    name=$1
    shift
    if ! "$@" > "$out/$name.txt"; then
        echo "check-arm64: the $name build failed its own checks (above)" >&2
        exit 1
    fi
    if ! diff -u tools/kernel-digest.expected "$out/$name.txt"; then
        echo "check-arm64: the $name build's digests differ from tools/kernel-digest.expected (listing in $out)" >&2
        exit 1
    fi
    echo "check-arm64: $name gives the expected digests for $(wc -l < "$out/$name.txt") kernels"
}

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
    "$CLANG" $flags -o "$out/kernel-digest-native" $sources -lm
    compare "$(uname -m)" "$out/kernel-digest-native"
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
compare x86_64 "$out/kernel-digest-x86_64"

# A foreign build: each file compiled by clang for the target, linked by the cross
# toolchain's driver, run under qemu.
foreign() {  # name, triple, qemu, clang flags...
    name=$1 triple=$2 qemu=$3
    shift 3
    objects=""
    for source in $sources; do
        object="$out/$name-$(basename "$source" .c).o"
        "$CLANG" --target="$triple" "$@" -isystem "/usr/$triple/include" $flags -c "$source" -o "$object"
        objects="$objects $object"
    done
    "$triple-gcc" -o "$out/kernel-digest-$name" $objects -lm
    compare "$name" "$qemu" -cpu max -L "/usr/$triple" "$out/kernel-digest-$name"
}
foreign arm64-apple-a7 aarch64-linux-gnu qemu-aarch64 -mcpu=apple-a7
foreign arm64-apple-m1 aarch64-linux-gnu qemu-aarch64 -mcpu=apple-m1
foreign armv7-ilp32 arm-linux-gnueabihf qemu-arm -march=armv7-a -mfpu=neon
