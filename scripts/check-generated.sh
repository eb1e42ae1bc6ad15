#!/usr/bin/env bash
# Fails when the committed generated code (gen/ and the web API types) differs from what
# `make generate` produces.
set -euo pipefail
cd "$(dirname "$0")/.."
GENERATED=(gen/ web/libs/api-client/src/generated)
if ! git diff --quiet -- "${GENERATED[@]}" || [[ -n "$(git ls-files --others --exclude-standard "${GENERATED[@]}")" ]]; then
  echo "check-generated: generated code has uncommitted changes before regenerating; commit or revert them first" >&2
  git status --short "${GENERATED[@]}" >&2
  exit 1
fi
make --no-print-directory generate >/dev/null
if ! git diff --quiet -- "${GENERATED[@]}" || [[ -n "$(git ls-files --others --exclude-standard "${GENERATED[@]}")" ]]; then
  echo "check-generated: regenerating changed the generated code: run 'make generate' and commit the result" >&2
  git status --short "${GENERATED[@]}" >&2
  git diff --stat -- "${GENERATED[@]}" >&2
  exit 1
fi
# The coverage map's outlines (services/catalog/data/map): generated from regions.json and
# the pinned world-atlas in web/node_modules (installed by make generate above); a second.
node services/catalog/data/map/generate.mjs --check
echo "check-generated: gen/, web API types and map outlines are up to date"
