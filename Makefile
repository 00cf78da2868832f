# PCMMix: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift

.PHONY: all bootstrap build demo test lint vectors clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build -c release --product pcm-mix

# Synthesizes a ReplayKit-shaped capture, mixes it, writes pcm-mix-demo.wav.
demo: build
	$(SWIFT) run -c release pcm-mix demo -o pcm-mix-demo.wav

# Every test, then the formatter's lint.
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) lint

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift

# Regenerates TestVectors/ from numpy and soxr (needs Python; not part of the tests).
vectors:
	python3 -m pip install -q numpy scipy soxr
	python3 TestVectors/generate.py

clean:
	rm -rf .build pcm-mix-demo.wav
