# Thin wrappers over cargo and scripts/: the logic lives in the scripts so each can be read
# and run on its own. `make test` installs what the suites need (scripts/ci/install-tools.sh),
# runs every suite in TEST_SUITES through scripts/run-suite.sh (which records passed, failed,
# or SKIPPED with the reason) and ends with one summary line; a failing suite does not stop the
# others. A new suite is one more word in TEST_SUITES plus its own target.

PREFIX ?= /usr/local
CARGO  ?= cargo

# GW_CARGO_VENDOR=<folder or .tar.xz of vendored crates>: every cargo run of this Makefile and
# its scripts builds from that copy with no network, through a CARGO_HOME of its own outside
# the source tree (scripts/lib/cargo-vendor.sh says why a CARGO_HOME).
ifneq ($(strip $(GW_CARGO_VENDOR)),)
export CARGO_HOME := $(shell scripts/lib/cargo-vendor.sh "$(GW_CARGO_VENDOR)")
ifeq ($(CARGO_HOME),)
$(error GW_CARGO_VENDOR=$(GW_CARGO_VENDOR) could not be used (see the line above))
endif
export CARGO_NET_OFFLINE := true
endif

TEST_SUITES := test-fmt test-clippy test-rust test-header test-c test-install test-go test-cpp \
               test-kotlin test-swift test-conformance test-dist test-instructions
SUITE := scripts/run-suite.sh

.PHONY: all build tools dist demo test bench bench-exchange bench-go bench-kotlin bench-swift bench-instructions $(TEST_SUITES) \
        conformance fuzz install vendor clean

all: build

# The localising step makes target/release/libgw.a export only gw_* (see the script); the
# last one writes the licenses `make install` ships (target/release/notices, see the script).
build:
	$(CARGO) build --release --workspace
	scripts/localize-static.sh
	CARGO="$(CARGO)" scripts/build-notices.sh

# target/dist/: what a release publishes (Go module as a GOPROXY folder, Maven repository
# folder, C/C++ SDK archives) for linux x86_64 and aarch64, with the size-minded `dist` cargo
# profile; installs its tools first (scripts/ci/install-dist.sh). docs/install.md.
dist:
	scripts/ci/install-dist.sh
	scripts/dist.sh

demo: tools
	scripts/demo.sh

# Debian packages and rustup components the suites and the demo need, when missing.
tools:
	scripts/ci/install-tools.sh

# target/vendor/crates.tar.xz: every crate of Cargo.lock, for GW_CARGO_VENDOR on a machine
# that reaches no crate registry.
vendor:
	scripts/vendor.sh

# Prints figures, asserts nothing: gw through its C ABI against a load server beside a
# raw-socket floor (one table, scripts/bench.sh), then the in-process figures (SSE parsing,
# validation, round trips to gw-mock). GW_BENCH_LIB_DIR / GW_BENCH_QUICK: see docs/performance.md.
bench: build
	scripts/bench.sh
	$(CARGO) bench --bench gw_bench
	scripts/bench-exchange.sh

# The exchange driven in memory as the Go binding drives it, a streamed chat one event per
# feed: instructions per event and per stream, ns per event with 2,000 streams in flight.
bench-exchange: build
	scripts/bench-exchange.sh

# User-space instructions per plain call, stream event, 1 MiB text chat and 5 MiB image chat
# (callgrind, marginal) against bench/instructions-baseline.txt: fails when a figure is more
# than 5% above its baseline (scripts/bench-instructions.sh). Also a suite of `make test`.
bench-instructions: build
	scripts/bench-instructions.sh

test-instructions: tools build
	$(SUITE) $@ scripts/bench-instructions.sh

# cargo-fuzz targets of fuzz/, then Go's FuzzAnswerDecode, each for FUZZ_SECONDS (default 60), one at a
# time (FUZZ_FORK=J: J workers) (scripts/fuzz.sh). Not part of `make test`: test-rust replays their
# corpora instead, and the Go suite FuzzAnswerDecode's seeds.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

test:
	@rm -rf build/test-results
	@status=0; $(MAKE) --no-print-directory -k $(TEST_SUITES) || status=$$?; \
	    scripts/test-summary.sh $(TEST_SUITES) && exit $$status

test-fmt: tools
	$(SUITE) $@ $(CARGO) fmt --all -- --check

test-clippy: tools
	$(SUITE) $@ $(CARGO) clippy --workspace --all-targets -- -D warnings

test-rust: tools
	$(SUITE) $@ scripts/test-rust.sh

# The build regenerates include/gw.h; the checked-in copy must already match it, and compile
# as C89, as C++ and under clang's nullability checks.
test-header: tools build
	$(SUITE) $@ scripts/test-header.sh

# The C suite, then libgw.a linked beside another Rust static library.
test-c: tools build
	$(SUITE) $@ scripts/test-c.sh

test-install: tools build
	$(SUITE) $@ scripts/test-install.sh

# bindings/go: vet, go test -race against gw-mock, builds from outside the repository.
# SKIPPED where no Go >= 1.23 can be had.
test-go: tools build
	$(SUITE) $@ scripts/test-go.sh

# The Go binding against openai-go and go-openai on gw-mock (fetches them; not in `make test`).
bench-go: build
	scripts/bench-go.sh

test-cpp: tools build
	$(SUITE) $@ scripts/test-cpp.sh

# bindings/kotlin: JUnit 5 through Maven against gw-mock. SKIPPED where Maven cannot download
# the build's plugins and dependencies.
test-kotlin: tools build
	$(SUITE) $@ scripts/test-kotlin.sh

# The Kotlin binding against openai-java on gw-mock (prints a table; not in `make test`).
bench-kotlin: build
	scripts/bench-kotlin.sh

# bindings/swift: swift test (plain, AddressSanitizer, ThreadSanitizer) against gw-mock.
# SKIPPED where there is no Swift toolchain.
test-swift: tools build
	$(SUITE) $@ scripts/test-swift.sh

# The Swift layer beside the C ABI on gw-mock (prints figures; not in `make test`).
bench-swift: build
	scripts/bench-swift.sh

# conformance/: the corpus through every binding's runner this machine can run; one line per
# language, then a table of the failures (scripts/conformance.sh).
conformance: tools build
	scripts/conformance.sh

test-conformance: tools build
	$(SUITE) $@ scripts/conformance.sh

# make dist, then each artifact installed as a user would (Go, Kotlin/Java, C/C++; aarch64
# under qemu) with no cargo or rustc on PATH, against gw-mock.
test-dist: tools build
	$(SUITE) $@ scripts/test-dist.sh

# No build prerequisite: `make && sudo make install` must not run cargo as root.
install:
	PREFIX="$(PREFIX)" scripts/install.sh

clean:
	$(CARGO) clean
	rm -rf build
