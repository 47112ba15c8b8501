# PhoneWorld: `make run` and `make test` work on a fresh machine; the rest is for developers.
.DEFAULT_GOAL := help
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

PHONY_PY := python test-python bench-python bench-adb bench-http bench-ray
.PHONY: help setup run test test-rust test-round-trips $(PHONY_PY) lint fmt bench bench-report bench-app-steps memory memory-idle verify verify-appearance test-appearance-layouts pixel-sweep verify-interruptions damage-sweep zoo bench-reconstruct

help: ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python

setup: ## Check the toolchain (Rust via cargo), install Debian's adb, Tesseract and Chromium if missing, make the Python virtualenv
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust from your distribution or rustup"; exit 1; }
	@command -v adb >/dev/null || { echo "installing Debian's adb (the ADB tests drive the mock phone with it)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq adb >/dev/null; }
	@test -e /usr/share/tesseract-ocr/5/tessdata/eng.traineddata || { echo "installing Debian's Tesseract (reconstruction reads screenshots whose hierarchy says too little)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq tesseract-ocr tesseract-ocr-eng >/dev/null; }
	@{ command -v chromium && command -v chromedriver; } >/dev/null || { echo "installing Debian's chromium and its driver (the eval report page is tested in a real browser)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt

# The profile the Python package is built with: release, but the tests build it with the dev
# profile (optimized too, with the test profile's settings), which reuses what `cargo test` compiled.
PY_PROFILE ?= release

python: setup ## Build the Python package (release) into the virtualenv
	$(VENV)/bin/maturin develop --profile $(PY_PROFILE) --quiet -m python/Cargo.toml

run: setup ## Build and run the demo: the task suite with the oracle, and the monkey (PNGs in out/demo)
	$(CARGO) build --release -p phoneworld-cli
	@mkdir -p $(OUT)/demo
	./target/release/phoneworld apps
	./target/release/phoneworld eval --suite phoneworld-v0 --agent oracle --seeds 3
	./target/release/phoneworld monkey --app Clock --seed 1 --steps 60 --out-dir $(OUT)/demo/clock --json
	./target/release/phoneworld monkey --app Settings --seed 2 --steps 60 --out-dir $(OUT)/demo/settings --json
	@echo "frames and UI trees: $(OUT)/demo/*/step_*.png, step_*.xml"

test: setup test-rust test-python ## Run every test (Rust, then Python)

test-rust:
	INSTA_UPDATE=no $(CARGO) test --workspace

test-python: PY_PROFILE = dev
test-python: python
	$(PY) -m pytest -q python/tests
	cd python && ../$(PY) -m mypy --config-file mypy.ini phoneworld tests/typing_check.py
	cd /tmp && $(CURDIR)/$(PY) -m mypy.stubtest phoneworld._core

bench-python: python ## Python throughput: Phone.step + screenshot, VectorEnv scaling, restore
	$(PY) python/bench/bench.py

bench-adb: python ## ADB latency of a served phone: tap + screencap and echo via adbutils, PNG encode/decode
	$(PY) python/bench/adb_latency.py

bench-ray: python ## Ray: suite eval on a 2-node local cluster vs one process, RayVectorEnv vs VectorEnv steps/s
	$(PY) python/bench/ray_bench.py

bench-http: python ## serve-http throughput: a step as upstream JSON and as PNG beside Phone.step, 8 devices vs 1
	$(PY) python/bench/http_bench.py

lint: ## Format check, clippy with warnings as errors, and no import circles between modules
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(PYTHON) tools/import_circles.py engine/ui/src engine/phone/src engine/agents/src engine/script/src engine/map/src python/src engine/reconstruct/src/generate engine/studio/src

fmt: ## Format the code
	$(CARGO) fmt --all

bench: ## divan benchmarks (release)
	$(CARGO) bench -p phoneworld-bench

test-round-trips: ## Every bundled app's reconstruction round trip (make test runs Clock's)
	INSTA_UPDATE=no $(CARGO) test -p phoneworld-reconstruct --test round_trip -- --include-ignored --skip every_app_round_trip

TRACES ?= $(PHONEWORLD_TRACES)
zoo: setup ## Rebuild every trace under TRACES (default $$PHONEWORLD_TRACES) into out/zoo: check, verify, one fidelity table, a contact sheet
	@test -n "$(TRACES)" || { echo "set TRACES=DIR (or PHONEWORLD_TRACES) to a folder of traces"; exit 2; }
	$(CARGO) build --release -p phoneworld-cli
	$(PY) tools/zoo.py "$(TRACES)" --out $(OUT)/zoo --bin target/release/phoneworld --seeds 20

bench-reconstruct: ## Reconstruct a synthetic 100,000-event DroidBot trace: time and peak memory
	$(CARGO) build --release -p phoneworld-cli
	@test -d $(OUT)/bench/trace-100k/events || $(PYTHON) tools/big_trace.py $(OUT)/bench/trace-100k --events 100000
	/usr/bin/time -f "reconstruct: %e s, peak memory %M KiB" target/release/phoneworld reconstruct $(OUT)/bench/trace-100k --out $(OUT)/bench/trace-100k-app --force >/dev/null

bench-report: ## Every performance target measured side by side, as a table
	$(CARGO) run --release -p phoneworld-bench --bin report

bench-app-steps: ## Step cost of every bundled app against the apps at BEFORE=<rev> (same binary, side by side)
	@test -n "$(BEFORE)" || { echo "say which apps to compare with: make bench-app-steps BEFORE=<git rev>"; exit 2; }
	rm -rf $(OUT)/apps-before && mkdir -p $(OUT)/apps-before
	git archive $(BEFORE) apps layouts lib verifiers assets | tar -x -C $(OUT)/apps-before
	$(CARGO) build --release -p phoneworld-cli
	$(PYTHON) tools/app_step_bench.py $(OUT)/apps-before .

damage-sweep: ## Incremental layouts and band redraws equal fresh ones over 5,000 monkey steps on every app (make test walks 500)
	PHONEWORLD_DAMAGE_STEPS=5000 $(CARGO) test --release -p phoneworld-tests --test damage_regions

verify: ## Prove every task template with 20 seeds
	$(CARGO) run --release -p phoneworld-cli -- verify --suite phoneworld-v0 --seeds 20

verify-appearance: ## The oracle scores 1.0 on the whole suite under every appearance profile
	$(CARGO) run --release -p phoneworld-cli -- eval --suite phoneworld-v0 --agent oracle --seeds 1 --appearance all --min-success 1.0

test-appearance-layouts: ## Every screen of every app laid out under every appearance profile
	INSTA_UPDATE=no $(CARGO) test -p phoneworld-tests --test appearance_layouts -- --include-ignored

verify-interruptions: ## Prove every template with seeded interruptions on (5 seeds), then oracle 1.0 / noop 0.0
	$(CARGO) run --release -p phoneworld-cli -- verify --suite phoneworld-v0 --seeds 5 --interruptions on
	$(CARGO) run --release -p phoneworld-cli -- eval --suite phoneworld-v0 --agent oracle --seeds 5 --interruptions on
	$(CARGO) run --release -p phoneworld-cli -- eval --suite phoneworld-v0 --agent noop --seeds 2 --interruptions on

memory: ## Resident memory per device with 100 devices, as they are and trimmed (idle)
	$(CARGO) run --release -p phoneworld-bench --bin memory
	$(CARGO) run --release -p phoneworld-bench --bin memory -- 100 --trim

memory-idle: ## 10,000 idle (trimmed) devices in one process, every app opened on each: RSS
	$(CARGO) run --release -p phoneworld-bench --bin memory -- 10000 --trim

# Coverage-guided fuzzing (docs/fuzzing.md): AFL++ through cargo-afl on the stable toolchain for the
# Rust targets, atheris for the Python action parsers. Neither is part of `make test`, which replays
# the saved corpora instead.
FUZZ_SECONDS ?= 300
FUZZ_JOBS ?= 2
FUZZ_ARGS ?=
.PHONY: fuzz fuzz-smoke fuzz-setup

fuzz-setup: python
	@command -v cargo-afl >/dev/null || $(CARGO) install cargo-afl --version '^0.18' --locked
	@out=$$($(CARGO) afl config --build 2>&1) || echo "$$out" | grep -q "already built" || { echo "$$out"; exit 1; }
	@$(PY) -m pip install --quiet --disable-pip-version-check --only-binary=atheris 'atheris>=2.3,<4'

fuzz: fuzz-setup ## Fuzz every target FUZZ_SECONDS each (300), FUZZ_JOBS at a time (2); report in out/fuzz
	$(PYTHON) fuzz/run.py --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) --python $(PY) $(FUZZ_ARGS)

fuzz-smoke: fuzz-setup ## Fuzz every target for 10 s: a quick check that fuzzing works
	$(PYTHON) fuzz/run.py --seconds 10 --jobs $(FUZZ_JOBS) --python $(PY) $(FUZZ_ARGS)

pixel-sweep: ## Pixel tasks: oracle 1.0, tree-only agent within chance, over 40 seeds per template
	PIXEL_SEEDS=40 $(CARGO) test --release -p phoneworld-tests --test pixel_tasks -- --nocapture
