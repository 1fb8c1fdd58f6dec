# Two commands on a fresh Debian 12 machine:
#   make        install what is missing (apt, .venv, reveal.js), then build the whole lecture
#   make test   the same setup, then the test suite, in a workspace of its own (it neither reads nor changes what
#               `make` built): every scene checked, a sample deck of two scenes rendered for real at preview
# A second `make` on a built tree installs nothing and rebuilds nothing.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMPS := .stamps
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Cairo/Pango headers build manimpango; TeX Live + dvisvgm render MathTex; ffmpeg/ffprobe for videos and
# chapters; chromium drives the offline-deck browser test.
# The Qt presenter (`seqanim present`): what PySide6's xcb platform plugin, libQt6XcbQpa, the xcb GL
# integrations and the FFmpeg multimedia plugin link against (`ldd` on each; the wheel does not carry them):
# the xcb-util family (icccm, keysyms, image, render-util, cursor: Qt 6.5+), xkbcommon, X11/GL/EGL, fonts,
# D-Bus, GLib and PulseAudio. xvfb + xauth (for xvfb-run), xdotool and x11-apps (xwd) drive the presenter
# test in a real X window. espeak-ng is the fallback offline voice of the narrated video (hibari-tts, from PyPI,
# is the default: `[publish] voice`).
APT_PACKAGES := libcairo2-dev libpango1.0-dev pkg-config texlive-latex-base texlive-latex-extra \
	texlive-fonts-recommended dvisvgm ffmpeg chromium fonts-dejavu-core \
	libxcb1 libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 \
	libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 \
	libxcb-xkb1 libxkbcommon0 libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxext6 libxrandr2 libgl1 libegl1 \
	libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0 libpulse0 libbrotli1 libgssapi-krb5-2 libdrm2 \
	xvfb xauth xdotool x11-apps espeak-ng

.PHONY: all setup build test clean bench present variant
all: build

setup: $(STAMPS)/apt $(STAMPS)/venv $(STAMPS)/npm

# Re-checked whenever this file changes (a new package in the list), which costs one dpkg query per package.
$(STAMPS)/apt: Makefile
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing system packages:" $$missing; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@mkdir -p $(STAMPS) && touch $@

# torch is pinned to the CPU build that lies on disk (pyproject.toml says why).
$(STAMPS)/venv: pyproject.toml $(STAMPS)/apt
	@[ -x $(PY) ] || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/npm: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@mkdir -p $(STAMPS) && touch $@

build: setup
	$(VENV)/bin/seqanim build

# Lint first: it takes a second and names the line to fix. The tests mostly render (CPU-bound): two workers
# (one test file each at a time; the first builds the suite's lecture, the other waits for it) keep both cores busy,
# and four were no faster (93 % busy, 10 min 38 s against 9 min 55 s). TEST_WORKERS=0 runs them in this process.
# No bytecode is written (the checkout keeps no __pycache__; the libraries' own, compiled by pip, are read: a
# PYTHONPYCACHEPREFIX would make every process compile manim and torch again, 3-5 s each); ruff's cache goes
# under pytest's. The files go out in tests/conftest.py's order, slowest first (xdist's own puts the files with
# the most tests first, and so the slow ones, which have few, last). The 25 slowest tests are listed at the end.
TEST_WORKERS ?= 2
test: setup
	RUFF_CACHE_DIR=$(CURDIR)/.pytest_cache/ruff $(PY) -m ruff check .
	RUFF_CACHE_DIR=$(CURDIR)/.pytest_cache/ruff $(PY) -m ruff format --check .
	PYTHONDONTWRITEBYTECODE=1 $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

# Every benchmark, one after the other; what each prints goes to docs/measurements.md with the date and the machine.
bench: build
	$(PY) bench/record.py

# The suite on a copy whose lecture.toml has other values (bench/variant.py): tests must read the parameters in force.
variant: build
	$(PY) bench/variant.py

present: setup
	$(VENV)/bin/seqanim present

clean:
	$(VENV)/bin/seqanim clean
