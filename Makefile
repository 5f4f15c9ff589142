# RouteLog: `make test` and `make demo` are the two commands a newcomer needs.
SWIFT ?= swift
# Every build started here compiles the library and the sample generator with -O, in
# debug builds too (Package.swift): the tests then take well under half the time. One
# setting for every target, so that `make test` and `make build` share their build.
export ROUTELOG_OPTIMIZED_LIBRARY := 1
LZ4_HEADER := $(firstword $(wildcard /usr/include/lz4.h /usr/local/include/lz4.h))
ZSH := $(shell command -v zsh 2>/dev/null)
FISH := $(shell command -v fish 2>/dev/null)
SQLITE_HEADER := $(firstword $(wildcard /usr/include/sqlite3.h /usr/local/include/sqlite3.h /opt/homebrew/opt/sqlite/include/sqlite3.h))

.PHONY: check-arm64 kernel-digest-expected check-divide test test-fast print-slow-suites-regex pyenv demo deps build release clean bench bench-quick recording-bench crash-test fuzz fuzz-smoke test-tsan test-asan docs symbol-graphs doc-check install install-files uninstall

# Installs the system libraries the package links (liblz4, and SQLite for the
# benchmark's baselines) when their headers are missing, and zsh and fish, whose
# completion of routelog's commands the tests drive, when one is missing. Needs root
# and apt-get.
# On macOS there is nothing to install: LZ4 comes from the Compression framework and
# SQLite from the SDK.
deps:
ifeq ($(shell uname -s),Darwin)
	@true
else
ifeq ($(LZ4_HEADER),)
	@echo "liblz4 headers missing: installing liblz4-dev"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblz4-dev pkg-config
endif
ifeq ($(SQLITE_HEADER),)
	@echo "SQLite headers missing: installing libsqlite3-dev"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev
endif
ifeq ($(and $(ZSH),$(FISH)),)
	@echo "zsh or fish missing: installing them (the tests drive routelog's completions in both)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends zsh fish
endif
endif

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Python readers the tests compare against (pyarrow, DuckDB, shapely, lz4...), in a
# virtual environment of their own; skipped with a note when python3 or PyPI is missing.
PYENV := .build/pyenv
pyenv: $(PYENV)/.installed
$(PYENV)/.installed: tools/requirements-test.txt
	@if command -v python3 >/dev/null 2>&1; then \
	  (python3 -m venv $(PYENV) && $(PYENV)/bin/pip install -q --disable-pip-version-check -r tools/requirements-test.txt && touch $@) \
	  || echo "note: the Python test packages could not be installed; the tests that need them will skip"; \
	else echo "note: python3 is missing; the tests that read RouteLog's output with Python packages will skip"; fi

# The fuzz smoke run goes first so that the test runner's summary is the last line.
# Every suite uses Swift Testing; XCTest would only add an empty run.
# The doc-comment check runs first but fails the target only at the end, so that one
# missing comment does not hide the tests' results.
test: deps pyenv
	$(SWIFT) build --build-tests
	@$(MAKE) --no-print-directory doc-check; echo $$? > .build/doc-check.status
	$(MAKE) fuzz-smoke
	$(MAKE) check-arm64
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --disable-xctest
	@test "$$(cat .build/doc-check.status)" = 0 || { echo "make test: the doc-comment check failed (its list is above the fuzz run)"; exit 1; }

# Suites tagged `.slow` (Tests/RouteLogTests/Support/Tags.swift): the kill, crash-state,
# fault-injection and bit-flip suites, and any other that takes more than about ten
# seconds. `make test-fast` skips them by name; SlowSuiteListTests fails when this list
# and the tags differ.
SLOW_SUITES := \
	BackgroundIndexRewriteRaceTests \
	BitFlipTests \
	CloseDuringCompactionTests \
	CrashStateReplayTests \
	EscapeSearchCostTests \
	FollowerAcrossKilledWritersTests \
	IOFaultInjectionTests \
	KillTests \
	LogScannerCostTests \
	LZ4BlockIndependentDecoderTests \
	RecordingStartDamageCrashTests \
	RouteRecorderCrashTests \
	RouteStoreRecoveryTests \
	SegmentFileLimitTests
empty :=
space := $(empty) $(empty)
# Test ids are `Module.Suite/test()` (and `Module.Outer/Suite/...` for nested suites).
SLOW_SUITES_REGEX := [./]($(subst $(space),|,$(strip $(SLOW_SUITES))))(/|$$)

# Everything but the slow suites, for the edit-test loop; `make test` runs everything
# (with the fuzz smoke run and the doc-comment check, which this leaves out too).
test-fast: deps pyenv
	$(SWIFT) build --build-tests
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --disable-xctest --skip '$(SLOW_SUITES_REGEX)'

print-slow-suites-regex:
	@echo '$(SLOW_SUITES_REGEX)'

# DocC. Symbol graphs of the RouteLog module come from a build of their own (its own
# scratch path, so the ordinary build keeps its flags), with the compiler's
# -emit-symbol-graph; `docc` (the toolchain's, or Xcode's through xcrun) turns them and
# Sources/RouteLog/Documentation.docc into a static site in .build/docs. No network.
DOCC ?= $(shell command -v docc 2>/dev/null || xcrun --find docc 2>/dev/null)
SYMBOL_GRAPHS := .build/symbol-graphs
symbol-graphs: deps
	mkdir -p $(SYMBOL_GRAPHS)
	$(SWIFT) build --target RouteLog --scratch-path .build/docs-build \
	  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(CURDIR)/$(SYMBOL_GRAPHS)

docs: symbol-graphs
	@test -n "$(DOCC)" || { echo "docc not found: it comes with the Swift toolchain (or Xcode)"; exit 1; }
	rm -rf .build/docs
	$(DOCC) convert Sources/RouteLog/Documentation.docc --additional-symbol-graph-dir $(SYMBOL_GRAPHS) \
	  --fallback-display-name RouteLog --fallback-bundle-identifier org.routelog.RouteLog \
	  --default-code-listing-language swift --warnings-as-errors \
	  --transform-for-static-hosting --output-path .build/docs
	@echo "documentation in .build/docs: serve the folder, open /documentation/routelog/"

# Every public symbol has a /// doc comment, and every throwing one a `- Throws:` line
# (tools/doc-comment-check.swift). Part of `make test`. The symbol graphs come from the
# RouteLog module the ordinary debug build compiled (swift-symbolgraph-extract reads the
# built module in under a second; `make symbol-graphs` would compile the module again).
DOC_CHECK_GRAPHS := .build/doc-check-graphs
TARGET_TRIPLE = $(shell $(SWIFT)c -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
doc-check: deps
	$(SWIFT) build --target RouteLog
	rm -rf $(DOC_CHECK_GRAPHS) && mkdir -p $(DOC_CHECK_GRAPHS)
	bin=$$($(SWIFT) build --show-bin-path) && $(SWIFT) symbolgraph-extract -module-name RouteLog \
	  -target $(TARGET_TRIPLE) -minimum-access-level public -output-dir $(DOC_CHECK_GRAPHS) \
	  -I $$bin/Modules -I $$bin -Xcc -fmodule-map-file=$$bin/CRouteLogSystem.build/module.modulemap \
	  -Xcc -fmodule-map-file=$(CURDIR)/Sources/CLZ4/module.modulemap
	$(SWIFT) tools/doc-comment-check.swift $(DOC_CHECK_GRAPHS) $(CURDIR)

# Every latitude and longitude (and the other scales around their common values) through
# routelog_divide_integers against the processor's division (tools/check-divide.c): the
# exhaustive check of its multiply-add path. A minute or two; not part of `make test`,
# whose DivideIntegersTests sample the same ranges.
check-divide:
	mkdir -p .build/tools
	cc -O2 -I Sources/CRouteLogSystem/include -I Sources/CRouteLogSystem -o .build/tools/check-divide \
	  tools/check-divide.c Sources/CRouteLogSystem/divide.c Sources/CRouteLogSystem/processor_features.c
	.build/tools/check-divide

# The C kernels built for arm64 (the processor of every iPhone, Watch and Apple silicon
# Mac) and run under qemu, and built for this processor, each against the digests in
# tools/kernel-digest.expected (tools/check-arm64.sh): the same integers, doubles and
# bytes on both, to the bit. Installs qemu-user and an arm64 C library when missing.
# Part of `make test`; about half a minute once installed.
check-arm64:
	sh tools/check-arm64.sh

# Writes tools/kernel-digest.expected again from this machine's build, for a kernel
# whose output changed on purpose; `make check-arm64` then holds every build to it.
kernel-digest-expected:
	sh tools/check-arm64.sh --write-expected

# The kill test alone, for as many kill cycles as asked (the seed is printed;
# ROUTELOG_CRASH_SEED=N replays a run): make crash-test CYCLES=1000
CYCLES ?= 200
crash-test: deps
	$(SWIFT) build --build-tests
	SWIFT_BACKTRACE=enable=no ROUTELOG_CRASH_CYCLES=$(CYCLES) $(SWIFT) test --filter KillTests

# libFuzzer targets (Tests/Fuzz): the record reader, the index loader, the codec's
# decoder and the GPX importer, FUZZ_SECONDS each. `make test` runs each for a few seconds.
FUZZ_SECONDS ?= 300
fuzz: deps
	Tests/Fuzz/fuzz.sh build
	Tests/Fuzz/fuzz.sh run $(FUZZ_SECONDS)

fuzz-smoke: deps
	Tests/Fuzz/fuzz.sh smoke 5

# The whole suite under ThreadSanitizer and AddressSanitizer (their own build folders),
# with fewer kill cycles and random crash states: the sanitizers make each one slower.
test-tsan: deps
	SWIFT_BACKTRACE=enable=no ROUTELOG_CRASH_CYCLES=10 ROUTELOG_CRASH_RANDOM=1 $(SWIFT) test --sanitize=thread --scratch-path .build/tsan

test-asan: deps
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 ROUTELOG_CRASH_CYCLES=10 ROUTELOG_CRASH_RANDOM=1 $(SWIFT) test --sanitize=address --scratch-path .build/asan

# `make demo`: 1,000 walks and the real tracks into ./demo.routelog, then the inspector
# on it (the last 12 weeks), a picture of one real route (the id the demo prints last)
# and a chart of the weeks; the demo's own summary comes last, so that it stays on screen.
demo: release
	rm -rf demo.routelog
	@out=$$(.build/release/routelog-demo demo.routelog) && \
	  id=$$(echo "$$out" | sed -n 's/^route to render *//p') && \
	  .build/release/routelog inspect demo.routelog && echo && \
	  .build/release/routelog weeks demo.routelog --limit 12 && echo && \
	  .build/release/routelog render demo.routelog $$id -o demo-route.svg && \
	  .build/release/routelog chart demo.routelog --by week -o demo-weeks.svg && echo && \
	  echo "$$out"

# `make install PREFIX=/usr/local` (DESTDIR for staging): the routelog binary, its
# manual page, and completions for bash, zsh and fish where those shells look.
PREFIX ?= /usr/local
BIN ?= .build/release/routelog
install: deps
	$(SWIFT) build -c release --product routelog
	$(MAKE) install-files BIN=.build/release/routelog

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/routelog
	install -m 644 man/routelog.1 $(DESTDIR)$(PREFIX)/share/man/man1/routelog.1
	$(BIN) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/routelog
	$(BIN) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_routelog
	$(BIN) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/routelog.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/routelog $(DESTDIR)$(PREFIX)/share/man/man1/routelog.1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/routelog $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_routelog \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/routelog.fish

# The benchmark against the baselines (see README: Benchmarks). Writes bench-results/.
bench: deps
	$(SWIFT) run -c release routelog-bench

bench-quick: deps
	$(SWIFT) run -c release routelog-bench --quick

# Live recording: one durable flush of 10 and 60 points, and the bytes of a recorded
# 3,600-point walk against the same walk saved in one go, before and after compaction.
recording-bench: deps
	$(SWIFT) run -c release routelog-recording-bench

clean:
	rm -rf .build demo.routelog demo-route.svg demo-weeks.svg bench-results
