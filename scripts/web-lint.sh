#!/usr/bin/env bash
# The web workspace's linter (ESLint with Nx's module boundaries, web/eslint.config.mjs)
# over every app, library and the e2e suite, then its planted violations
# (web/tools/lint.test.mjs) to prove the rule still refuses them. Part of `make lint`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/web-env.sh"

web_install
# The boundary rule reads Nx's cached project graph and, run outside nx without one (a fresh
# checkout), skips itself with a warning: compute the graph first.
web_log "nx project graph"
web_nx show projects >/dev/null
web_log "eslint (web/)"
(cd "$WEB_DIR" && NX_DAEMON=false NX_NO_CLOUD=true node_modules/.bin/eslint --max-warnings 0 .)
web_log "eslint planted violations (web/tools/lint.test.mjs)"
(cd "$WEB_DIR" && node --test tools/lint.test.mjs)
