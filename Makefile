# Thin wrappers over cargo and scripts/: the logic lives in the scripts so each can be read
# and run on its own. `make test` runs every suite in TEST_SUITES; a new suite (test-go,
# test-python, ...) is one more word there plus its own target.

PREFIX ?= /usr/local
CARGO  ?= cargo

TEST_SUITES := test-fmt test-clippy test-rust test-header test-c test-install test-go test-cpp test-kotlin

.PHONY: all build demo test bench bench-go bench-kotlin $(TEST_SUITES) install clean

all: build

# The localising step makes target/release/libgw.a export only gw_* (see the script).
build:
	$(CARGO) build --release --workspace
	scripts/localize-static.sh

demo:
	scripts/demo.sh

# Prints figures, asserts nothing: gw through its C ABI against a load server beside a
# raw-socket floor (one table, scripts/bench.sh), then the in-process figures (SSE parsing,
# validation, round trips to gw-mock). GW_BENCH_LIB_DIR / GW_BENCH_QUICK: see README.
bench: build
	scripts/bench.sh
	$(CARGO) bench --bench gw_bench

test: $(TEST_SUITES)

test-fmt:
	$(CARGO) fmt --all -- --check

test-clippy:
	$(CARGO) clippy --workspace --all-targets -- -D warnings

test-rust:
	$(CARGO) test --workspace
	$(CARGO) test --features platform-verifier --test tls

# The build regenerates include/gw.h; the checked-in copy must already match it, and compile
# as C89, as C++ and under clang's nullability checks.
test-header: build
	scripts/test-header.sh

# The C suite, then libgw.a linked beside another Rust static library.
test-c: build
	scripts/test-c.sh
	scripts/test-static.sh

test-install: build
	scripts/test-install.sh

# bindings/go: vet, go test -race against gw-mock, builds from outside the repository.
test-go: build
	scripts/test-go.sh

# The Go binding against openai-go and go-openai on gw-mock (fetches them; not in `make test`).
bench-go: build
	scripts/bench-go.sh

test-cpp: build
	scripts/test-cpp.sh

# bindings/kotlin: JUnit 5 through Maven against gw-mock.
test-kotlin: build
	scripts/test-kotlin.sh

# The Kotlin binding against openai-java on gw-mock (prints a table; not in `make test`).
bench-kotlin: build
	scripts/bench-kotlin.sh

# No build prerequisite: `make && sudo make install` must not run cargo as root.
install:
	PREFIX="$(PREFIX)" scripts/install.sh

clean:
	$(CARGO) clean
	rm -rf build
