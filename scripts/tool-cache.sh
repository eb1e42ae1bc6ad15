# shellcheck shell=bash
# The project's built tools, kept once per machine and shared by every clone (sourced by
# scripts/cluster-tools.sh, helm-check.sh, test-k8s.sh and the Makefile's k6 target).
#
# Each tool is built from the Go module proxy into an entry of its own,
#   ${HANGAR_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hangar/tools}/<name>-<key>/<name>
# where <key> is the pinned version (plus a hash of the project's own build inputs where
# there are some, e.g. deploy/k8s-node/traefik), and <repo>/bin/<name> is a link to it. A
# clean clone's empty bin/ is filled with links in a second; a version bump is a new entry
# (the old one stays until the cache is removed: `rm -rf ~/.cache/hangar/tools`). As the Go
# build cache does, an entry is written once and never changed: a build goes to <entry>.tmp
# and is renamed into place when it succeeded, under a lock, so two clones building the
# same tool at once build it once and a killed build leaves no half-written entry.
#
# The Go build cache alone is not enough: linking each of the Kubernetes binaries again
# takes a minute or more on the shared 2-core machine, and a clone's bin/ starts empty.

TOOL_CACHE="${HANGAR_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hangar/tools}"

# cached_tool NAME KEY BUILD [ARGS...]: makes $BIN/NAME a link to the cache entry NAME-KEY,
# running `BUILD OUTDIR ARGS...` first when the entry is missing; BUILD writes OUTDIR/NAME
# (and may write more files beside it, e.g. data the tool reads).
cached_tool() {
  local name=$1 key=$2 build=$3
  shift 3
  local entry="$TOOL_CACHE/$name-$key" lock
  mkdir -p "$TOOL_CACHE" "$BIN"
  if [[ ! -x "$entry/$name" ]]; then
    exec {lock}>"$entry.lock"
    flock "$lock"
    if [[ ! -x "$entry/$name" ]]; then
      rm -rf "$entry.tmp"
      mkdir -p "$entry.tmp"
      "$build" "$entry.tmp" "$@"
      [[ -x "$entry.tmp/$name" ]] || {
        echo "tool-cache: building $name $key wrote no $entry.tmp/$name" >&2
        return 1
      }
      rm -rf "$entry"
      mv "$entry.tmp" "$entry"
    fi
    exec {lock}>&-
  fi
  ln -sfn "$entry/$name" "$BIN/$name"
}

# go_install OUTDIR PACKAGE@VERSION [GO-INSTALL-FLAGS...]: a cached_tool BUILD for a module
# that `go install` builds as published (no replace directives).
go_install() {
  local out=$1 pkg=$2
  shift 2
  GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOBIN="$out" go install -trimpath "$@" "$pkg"
}

# tree_hash DIR: a short hash of the files under DIR (their paths relative to it, and their
# contents), the key of a tool the project builds from a module of its own
# (deploy/k8s-node/*): the same in every clone, wherever it is.
tree_hash() {
  (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
}
