# PhoneWorld: `make run` and `make test` work on a fresh machine; the rest is for developers.
.DEFAULT_GOAL := help
SHELL := /bin/bash
CARGO ?= cargo
OUT ?= out

.PHONY: help setup run test test-rust lint fmt bench bench-report memory verify

help: ## Show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

setup: ## Check the toolchain (Rust via cargo); nothing else is needed yet
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust from your distribution or rustup"; exit 1; }

run: setup ## Build and run the demo: the task suite with the oracle, and the monkey (PNGs in out/demo)
	$(CARGO) build --release -p phoneworld-cli
	@mkdir -p $(OUT)/demo
	./target/release/phoneworld apps
	./target/release/phoneworld eval --suite phoneworld-v0 --agent oracle --seeds 3
	./target/release/phoneworld monkey --app Clock --seed 1 --steps 60 --out-dir $(OUT)/demo/clock --json
	./target/release/phoneworld monkey --app Settings --seed 2 --steps 60 --out-dir $(OUT)/demo/settings --json
	@echo "frames and UI trees: $(OUT)/demo/*/step_*.png, step_*.xml"

test: setup test-rust ## Run every test (Rust; optimized test profile)

test-rust:
	INSTA_UPDATE=no $(CARGO) test --workspace

lint: ## Format check and clippy with warnings as errors
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt: ## Format the code
	$(CARGO) fmt --all

bench: ## divan benchmarks (release)
	$(CARGO) bench -p phoneworld-bench

bench-report: ## Every performance target measured side by side, as a table
	$(CARGO) run --release -p phoneworld-bench --bin report

verify: ## Prove every task template with 20 seeds
	$(CARGO) run --release -p phoneworld-cli -- verify --suite phoneworld-v0 --seeds 20

memory: ## Resident memory per device with 100 devices
	$(CARGO) run --release -p phoneworld-bench --bin memory
