#!/usr/bin/env bash
# Installs dependencies, builds, and runs the whole test suite (what CI runs).
# Usage: tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 300
