#!/usr/bin/env bash
# The web half of `make generate`: gen/openapi (Swagger 2, from protoc-gen-openapiv2) ->
# gen/openapi3 (OpenAPI 3, swagger2openapi) -> web/libs/api-client/src/generated
# (openapi-typescript; the pages call them through openapi-fetch). Pass --check to only
# compare with what is committed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/web-env.sh"
web_install
(cd "$WEB_DIR" && node libs/api-client/scripts/generate.mjs "$@")
