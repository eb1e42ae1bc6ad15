#!/usr/bin/env bash
# Fails when the committed generated code differs from what `make generate` produces.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! git diff --quiet -- gen/ || [[ -n "$(git ls-files --others --exclude-standard gen/)" ]]; then
  echo "check-generated: gen/ has uncommitted changes before regenerating; commit or revert them first" >&2
  git status --short gen/ >&2
  exit 1
fi
make --no-print-directory generate >/dev/null
if ! git diff --quiet -- gen/ || [[ -n "$(git ls-files --others --exclude-standard gen/)" ]]; then
  echo "check-generated: regenerating changed gen/: run 'make generate' and commit the result" >&2
  git status --short gen/ >&2
  git diff --stat -- gen/ >&2
  exit 1
fi
echo "check-generated: gen/ is up to date"
