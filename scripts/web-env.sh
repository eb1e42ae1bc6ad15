# shellcheck shell=bash
# Sourced by scripts/web-*.sh: paths, Nx settings, and the one npm install step.

WEB_ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WEB_DIR="$WEB_ROOT_DIR/web"
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
export npm_config_yes=true npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

web_log() { printf '==> %s\n' "$*" >&2; }

# npm ci only when node_modules is missing or older than package-lock.json.
# npm ci writes node_modules/.package-lock.json last, so its mtime marks a complete install.
web_install() {
  local marker="$WEB_DIR/node_modules/.package-lock.json"
  if [[ -f "$marker" && ! "$WEB_DIR/package-lock.json" -nt "$marker" ]]; then
    return 0
  fi
  web_log "npm ci (web/)"
  (cd "$WEB_DIR" && npm ci --no-audit --no-fund --loglevel=error)
  touch "$marker"
}

web_nx() {
  (cd "$WEB_DIR" && node_modules/.bin/nx "$@")
}

WEB_APPS="shell,buy,gift,oneoff,allocation,marketing,account"
