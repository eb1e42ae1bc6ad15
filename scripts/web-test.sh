#!/usr/bin/env bash
# Web unit tests (Vitest, every project: the shell, the five remotes, the four
# libraries), type checks, and the api-client drift check: the TypeScript types
# generated from gen/openapi must match a fresh generation.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/web-env.sh"

start=$SECONDS
web_install

web_log "api-client drift check (gen/openapi -> libs/api-client/src/generated)"
(cd "$WEB_DIR" && node libs/api-client/scripts/generate.mjs --check)
# Also regenerate in place and let git judge the files it tracks (and flag new,
# untracked ones once the generated directory is committed).
(cd "$WEB_DIR" && node libs/api-client/scripts/generate.mjs >/dev/null)
if git -C "$WEB_ROOT_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$WEB_ROOT_DIR" diff --exit-code -- web/libs/api-client/src/generated
  if [[ -n "$(git -C "$WEB_ROOT_DIR" ls-files -- web/libs/api-client/src/generated)" ]]; then
    untracked="$(git -C "$WEB_ROOT_DIR" ls-files --others --exclude-standard -- web/libs/api-client/src/generated)"
    if [[ -n "$untracked" ]]; then
      echo "web-test: generated files not committed:" >&2
      echo "$untracked" >&2
      exit 1
    fi
  fi
fi

web_log "node --test web/tools (the site assembly's rules)"
(cd "$WEB_DIR" && node --test tools/*.test.mjs)

rm -rf "$WEB_DIR/test-results/unit"
web_log "nx typecheck + test (all web projects)"
status=0
web_nx run-many -t typecheck test --output-style=static || status=$?

# One summary line over every project's Vitest JSON report.
(cd "$WEB_DIR" && node -e '
  const fs = require("fs"), dir = "test-results/unit";
  let passed = 0, failed = 0, files = 0;
  for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const r = JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; files++;
  }
  console.log(`web unit tests in ${files} projects`);
  console.log(`unit: ${passed} passed, ${failed} failed`);
')
web_log "web tests done in $((SECONDS - start)) s"
exit "$status"
