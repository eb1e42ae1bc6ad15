#!/usr/bin/env bash
# Production build of the web store: the shell and every remote (Nx, cached), then
# one static tree at web/dist/site/ for the edge (WEB_DIST_DIR) and the Ingress:
#   /index.html, /assets/...            the shell
#   /remotes/<name>/remoteEntry.js ...  each remote
#   /config.json                        runtime config (remote locations, relative URLs, and the
#                                       outside links HANGAR_APP_STORE_URL, HANGAR_SALES_EMAIL and the
#                                       legal pages HANGAR_TERMS_URL, HANGAR_PRIVACY_URL, HANGAR_REFUND_POLICY_URL,
#                                       required unless HANGAR_DEV_MODE=true: web/tools/site-links.mjs)
# Idempotent; a second run with nothing changed takes a few seconds (Nx cache).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/web-env.sh"

start=$SECONDS
web_install
# The outside links first: a build without them would be refused only after the apps' build.
(cd "$WEB_DIR" && node --input-type=module -e "(await import('./tools/site-links.mjs')).siteLinks(process.env)")
web_log "nx build ($WEB_APPS)"
web_nx run-many -t build --projects="$WEB_APPS" --output-style=static
web_log "assemble web/dist/site"
(cd "$WEB_DIR" && node tools/assemble-site.mjs)
web_log "web build done in $((SECONDS - start)) s"
