# PCMMix: the two commands a fresh machine needs are `make demo` and `make test`.
SWIFT ?= swift
FUZZ_SECONDS ?= 60

.PHONY: all bootstrap build demo test test-fast test-release bench bench-smoke plots fuzz tsan lint docs docs-check vectors rf64-check arm64-check arm64-results apple-check clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build -c release --product pcm-mix

# Synthesizes a ReplayKit-shaped capture, mixes it, writes pcm-mix-demo.wav.
demo: build
	$(SWIFT) run -c release pcm-mix demo -o pcm-mix-demo.wav

# Every test, the formatter's lint, and a fraction of a second of the benchmark so it cannot rot.
test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) lint
	$(MAKE) bench-smoke

# The edit-test loop: the unit suites without the long scene, echo, loudness-file and replay
# suites (which `make test` runs); about 70 s on 2 cores once built.
SLOW_SUITES = EchoCancellationTests|EchoLiveCaptureTests|EchoCancellerWarpTests|DuckingTests|EchoCommandTests|LoudnessCommandTests|LoudnessMeterTests|ResamplerPresetTests|SceneTests|RecoveryTests|FuzzRegressionTests|ReplayTests|TransitionTests|InvariantTests|BandEdgeTests|WebRTCThresholdTests
test-fast: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip "$(SLOW_SUITES)"

# The tests built optimized, testing enabled (in .build/test-release), for DSP experiments: all
# of them in about 35 s once built (Debug: about 400); a minute of live echo capture in 2 s
# (Debug: 23). FILTER="..." narrows them.
# `make test` (Debug, as an adopter's Xcode builds a dependency) stays the check.
test-release: bootstrap
	$(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --scratch-path .build/test-release
	$(SWIFT) test -c release --scratch-path .build/test-release --skip-build $(if $(FILTER),--filter "$(FILTER)")

# Per-callback latency, allocations, memory, every resampler beside soxr/speexdsp/libsamplerate,
# and the CLI beside ffmpeg and sox (benchmark-only tools, installed here where missing).
# The full run writes Benchmarks/RESULTS.md (scripts/results.py); ARGS="--seconds 10 --filter
# capture" narrows it and leaves that file alone.
bench: bootstrap
	@command -v sox >/dev/null 2>&1 || scripts/bootstrap.sh sox
	@command -v ffmpeg >/dev/null 2>&1 || scripts/bootstrap.sh ffmpeg
	@python3 -c "import numpy, scipy, soundfile, pesq" 2>/dev/null \
	  || python3 -m pip install -q numpy scipy soundfile pesq
	$(SWIFT) build -c release
	$(SWIFT) run -c release --skip-build pcm-mix-bench --json .build/bench.json $(ARGS)
	@if [ -z "$(ARGS)" ]; then python3 scripts/results.py .build/bench.json > Benchmarks/RESULTS.md \
	  && echo "bench: wrote Benchmarks/RESULTS.md"; else echo "bench: ARGS given, Benchmarks/RESULTS.md left as it is"; fi

# The figures of the README and the documentation, measured on this machine and written as SVG
# into the DocC catalog's resources (a few minutes; PlotFileTests checks what is committed).
plots: bootstrap
	$(SWIFT) run -c release pcm-mix-bench --plots Sources/PCMMix/PCMMix.docc/Resources

bench-smoke: bootstrap
	SWIFT=$(SWIFT) Benchmarks/smoke.sh

# libFuzzer on the WAV reader, the other containers (RF64, BW64, RIFX, CAF), probe + decode, and
# the whole pipeline: FUZZ_SECONDS per target (default 60). Crashes land in Fuzz/Regressions/,
# which `swift test` replays.
fuzz: bootstrap
	Fuzz/run.sh $(FUZZ_SECONDS)

# The threaded stress tests (the locked front and the lock-free real-time front) under
# ThreadSanitizer (its own build directory).
tsan: bootstrap
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan --filter "SharedCapturePipeline|RealtimeCapturePipeline"

lint:
	python3 scripts/layers.py
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Fuzz/Drivers scripts Package.swift

# arm64 without arm64 hardware: the DSP core (decode, channels, every resampler path, mixer,
# limiter, meters, encoder, echo, ducking, loudness) compiled as Embedded Swift for aarch64 and
# for x86-64 from the same sources, the arm64 build run under qemu-aarch64, outputs compared bit
# for bit; then the NEON and fused arm64 kernels against AVX2 on random shapes. Installs qemu and
# the aarch64 C library where missing. About 3 minutes on 2 cores.
arm64-check: bootstrap
	scripts/arm64/arm64-check.sh

# Benchmarks/ARM64.md: arm64-check's results (emulation) and the llvm-mca cycle model of the arm64
# resampler kernels (a model of a Neoverse V2 core, not Apple hardware: scripts/arm64/model.sh).
arm64-results: bootstrap
	scripts/arm64/results.sh

# The Apple-only sources (Core Audio, Core Media) and the guide's ReplayKit code type-checked on
# Linux against stand-ins of exactly the Apple API they use (Tests/AppleStandIns).
apple-check: bootstrap
	SWIFT=$(SWIFT) scripts/apple-check.sh

# The DocC site of PCMMix in .build/docs (static; symbol graph from the build, the toolchain's
# own docc, no network). Any docc warning, such as a broken symbol link, fails it.
docs: bootstrap
	SWIFT=$(SWIFT) scripts/docs.sh

# Serves .build/docs locally and opens the landing page and the RealtimeCapturePipeline page in
# headless Chromium (installed when missing): each must render its title and abstract.
# Screenshots and DOMs land in .build/docs-check/.
docs-check: docs
	@command -v chromium >/dev/null 2>&1 || scripts/bootstrap.sh chromium
	scripts/docs-check.sh

# Regenerates TestVectors/ from numpy, soxr, libsndfile (soundfile), sox and libsamplerate
# (needs Python; not part of the tests): every file the same to the byte (`git status` stays
# clean). The echo and loudness assets have generators of their own (the guide's "Reference
# vectors").
vectors: bootstrap
	@command -v sox >/dev/null 2>&1 || scripts/bootstrap.sh sox libsox-fmt-all
	python3 -m pip install -q numpy scipy soxr samplerate soundfile
	python3 TestVectors/generate.py
	python3 TestVectors/generate_containers.py
	python3 TestVectors/generate_libsamplerate.py
	cd TestVectors/fft && python3 generate.py

# A real > 4 GiB RF64 round trip (pcm-mix convert writes it from a pipe; libsndfile, pcm-mix
# probe and pcm-mix convert read it back in full; both converts under 20 MB of RSS), then the
# files are deleted. Needs ~4.5 GB free in RF64_DIR (default $$TMPDIR or /tmp) and a few minutes.
rf64-check: bootstrap
	@python3 -c "import numpy, soundfile" 2>/dev/null || python3 -m pip install -q numpy soundfile
	SWIFT=$(SWIFT) scripts/rf64-check.sh

clean:
	rm -rf .build pcm-mix-demo.wav
