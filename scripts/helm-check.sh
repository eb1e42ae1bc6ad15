#!/usr/bin/env bash
# Validates the Helm chart deploy/helm/hangar offline:
#   1. links the pinned helm and kubeconform into <repo>/bin from the machine's tool cache
#      (scripts/tool-cache.sh; built there when missing)
#   2. helm lint --strict, with the default values and with deploy/helm/ci-values.yaml
#   2b. the required Secrets and store details (store.*: no rendering without each)
#   3. checks values.schema.json rejects a misspelled values key
#   3b. checks the database connection budget refuses pools over postgresql.maxConnections
#   4. renders the chart: default values, ci-values.yaml (every option on), and default
#      values with the web component disabled
#   5. kubeconform -strict against the committed schemas in deploy/helm/schemas/ (generated
#      from the Kubernetes swagger.json, plus hand-written ServiceMonitor/PrometheusRule)
#   6. the Go checks in deploy/helm/check/: strict decoding into k8s.io/api types + policy,
#      and the pages' security headers the Ingress sets against headers.yaml
#   7. self-check: copies of the rendering with a misspelled field (containerPortt,
#      readinessProbee, honorLabelz) must fail both validators, for that field
#
# Usage: scripts/helm-check.sh [--regenerate-schemas | --tools]
#   --tools               only install the pinned helm and kubeconform (step 1), e.g. for
#                         scripts/test-cluster.sh
#   --regenerate-schemas  rewrite deploy/helm/schemas/*.json from the swagger.json of
#                         k8s.io/kubernetes@$K8S_VERSION (downloaded through the Go module
#                         proxy), then run the checks. Commit the result.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$ROOT/bin"
CHART="$ROOT/deploy/helm/hangar"
CI_VALUES="$ROOT/deploy/helm/ci-values.yaml"
# The chart requires a Secret for each key a service refuses to start without; the checks
# name test ones (a rendering without them fails, which step "required secrets" checks).
SECRETS="$ROOT/deploy/helm/test-secrets-values.yaml"
SCHEMAS="$ROOT/deploy/helm/schemas"
CHECK_MODULE="$ROOT/deploy/helm/check"

HELM_VERSION=v3.22.0
KUBECONFORM_VERSION=v0.8.0
K8S_VERSION=1.36.3 # schemas, helm's --kube-version and kubeconform's -kubernetes-version
RELEASE=hangar
NAMESPACE=store

# The check module has its own go.mod; a go.work elsewhere in the tree must not capture it.
export GOWORK=off
export CGO_ENABLED=0

regenerate=false
tools_only=false
for arg in "$@"; do
  case "$arg" in
    --regenerate-schemas) regenerate=true ;;
    --tools) tools_only=true ;;
    -h | --help)
      sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "helm-check: unknown argument $arg" >&2
      exit 2
      ;;
  esac
done

start=$SECONDS
step() { printf '\n==> %s (%ds)\n' "$*" $((SECONDS - start)); }
fail() {
  echo "helm-check: FAIL: $*" >&2
  exit 1
}

# module_version BINARY MODULE prints the version of MODULE the Go binary was built from.
module_version() {
  [[ -x "$1" ]] || return 0
  go version -m "$1" 2>/dev/null | awk -v m="$2" '$1 == "mod" && $2 == m { print $3; exit }'
}

step "tools"
# shellcheck source=scripts/tool-cache.sh
source "$ROOT/scripts/tool-cache.sh"
build_helm() {
  local minor="${K8S_VERSION#*.}"
  minor="${minor%%.*}"
  echo "installing helm $HELM_VERSION into $TOOL_CACHE (about 5 minutes on 2 cores, once per machine)"
  go_install "$1" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" -ldflags "-s -w \
    -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 \
    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 \
    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor"
}
build_kubeconform() {
  echo "installing kubeconform $KUBECONFORM_VERSION into $TOOL_CACHE"
  go_install "$1" "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" \
    -ldflags "-s -w -X main.version=$KUBECONFORM_VERSION"
}
# helm's idea of the newest Kubernetes is linked in: the key names it.
cached_tool helm "$HELM_VERSION-k8s$K8S_VERSION" build_helm
cached_tool kubeconform "$KUBECONFORM_VERSION" build_kubeconform
HELM="$BIN/helm"
KUBECONFORM="$BIN/kubeconform"
echo "helm $(module_version "$HELM" helm.sh/helm/v3), kubeconform $(module_version "$KUBECONFORM" github.com/yannh/kubeconform)"
$tools_only && exit 0

if $regenerate; then
  step "regenerate schemas from k8s.io/kubernetes@v$K8S_VERSION"
  dir="$(cd "$CHECK_MODULE" && go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  [[ -f "$dir/api/openapi-spec/swagger.json" ]] || fail "no swagger.json in k8s.io/kubernetes@v$K8S_VERSION ($dir)"
  (cd "$CHECK_MODULE" && go run ./cmd/genschemas -swagger "$dir/api/openapi-spec/swagger.json" -out "$SCHEMAS")
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Helm's own home directories, so nothing from the user's helm setup leaks in.
export HELM_CACHE_HOME="$WORK/helm/cache" HELM_CONFIG_HOME="$WORK/helm/config" HELM_DATA_HOME="$WORK/helm/data"

step "helm lint --strict"
"$HELM" lint --strict --kube-version "$K8S_VERSION" -f "$SECRETS" "$CHART"
"$HELM" lint --strict --kube-version "$K8S_VERSION" -f "$CI_VALUES" -f "$SECRETS" "$CHART"

render() { # render OUT [helm template args...]
  local out="$1"
  shift
  "$HELM" template "$RELEASE" "$CHART" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION" -f "$SECRETS" "$@" >"$out"
}

step "required secrets: no rendering without the services' keys"
# (the public reCAPTCHA site key given: its own requirement is the next step's)
# (the store's details given too, the last block of $SECRETS: theirs is the next step)
sed -n '/^store:/,$p' "$SECRETS" >"$WORK/store-values.yaml"
if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$WORK/store-values.yaml" --set humanVerification.siteKey=test >"$WORK/secrets.out" 2>&1; then
  fail "the chart rendered without the Secrets of CHECKOUT_QUOTE_KEY, CHECKOUT_RECEIPT_KEYS, CHECKOUT_RECAPTCHA_SECRET and PAYMENTS_FINGERPRINT_KEY"
fi
grep -q "secretEnv.*name is required" "$WORK/secrets.out" || fail "rendering failed, but not for a missing Secret: $(cat "$WORK/secrets.out")"
echo "ok: $(grep -m1 -o 'services\.[a-z]*\.secretEnv\.[A-Z_]*\.name is required' "$WORK/secrets.out")"

step "store details: required, validated, and no placeholder in the rendering"
# Customers read them (receipts, invoices, e-mails); the services have no default outside
# development mode, so neither has the chart (values.yaml store.*).
for key in url salesEmail supportEmail mailFrom seller.name seller.address seller.vatNumber; do
  if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" --set "store.$key=" >"$WORK/store.out" 2>&1; then
    fail "the chart rendered without store.$key"
  fi
  grep -q "store.$key is required" "$WORK/store.out" || fail "rendering without store.$key failed, but not naming it: $(cat "$WORK/store.out")"
done
if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" --set store.seller.vatNumber=0000000XX >"$WORK/store.out" 2>&1; then
  fail "values.schema.json accepted a seller VAT number without its EU country prefix"
fi
grep -q "vatNumber" "$WORK/store.out" || fail "values rejected, but not for the VAT number: $(cat "$WORK/store.out")"
"$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" >"$WORK/store.out"
grep -A1 'name: CHECKOUT_SELLER_VAT' "$WORK/store.out" | grep -q '"IE1234567T"' || fail "checkout is rendered without the seller's VAT number of the values"
grep -A1 'name: MAIL_MESSAGE_ID_DOMAIN' "$WORK/store.out" | grep -q '"store.hangar-ci.ie"' || fail "MAIL_MESSAGE_ID_DOMAIN is not the host of store.url by default"
if grep -n -E 'hangar\.example|IE0000000XX' "$WORK/store.out"; then fail "a placeholder is rendered (above)"; fi
echo "ok: each of store.{url,salesEmail,supportEmail,mailFrom,seller.*} required, the VAT number's shape checked, no placeholder rendered"

step "human verification: on by default, its site key required, Google's widget in the CSP"
if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" --set humanVerification.siteKey= >"$WORK/human.out" 2>&1; then
  fail "the chart rendered human verification without humanVerification.siteKey"
fi
grep -q "humanVerification.siteKey is required" "$WORK/human.out" || fail "rendering failed, but not for the missing site key: $(cat "$WORK/human.out")"
"$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" >"$WORK/human.out"
grep -q 'name: CHECKOUT_RECAPTCHA_REQUIRED' -A1 "$WORK/human.out" || fail "checkout is rendered without CHECKOUT_RECAPTCHA_REQUIRED"
grep -A1 'name: CHECKOUT_RECAPTCHA_REQUIRED' "$WORK/human.out" | grep -q '"true"' || fail "human verification is not on by default"
grep -A3 'name: CHECKOUT_RECAPTCHA_SECRET' "$WORK/human.out" | grep -q 'secretKeyRef' || fail "CHECKOUT_RECAPTCHA_SECRET does not come from a Secret"
grep -q 'script-src [^;]*https://www.gstatic.com/recaptcha/' "$WORK/human.out" || fail "the pages' CSP does not admit reCAPTCHA's script while human verification is on"
"$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" --set services.checkout.env.CHECKOUT_RECAPTCHA_REQUIRED=false >"$WORK/human.out"
if grep -q 'gstatic.com' "$WORK/human.out"; then fail "the pages' CSP admits reCAPTCHA with human verification off"; fi
echo "ok: on by default, site key required, secret from a Secret, CSP follows it"

step "values.schema.json rejects unknown keys"
if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" \
  --set services.catalog.readinessProbee.periodSeconds=1 >"$WORK/schema.out" 2>&1; then
  fail "a misspelled values key (services.catalog.readinessProbee) was accepted"
fi
grep -q "readinessProbee" "$WORK/schema.out" || fail "values rejected, but not for the misspelled key: $(cat "$WORK/schema.out")"
echo "ok: $(grep -m1 readinessProbee "$WORK/schema.out" | sed 's/^[[:space:]-]*//')"

step "the database connection budget is enforced"
# Pools × most pods must fit the server's max_connections (templates/database-budget.yaml):
# PostgreSQL's default 100 cannot hold the default pools at their HPA maxima.
if "$HELM" template "$RELEASE" "$CHART" --kube-version "$K8S_VERSION" -f "$SECRETS" \
  --set postgresql.maxConnections=100 >"$WORK/budget.out" 2>&1; then
  fail "pools exceeding postgresql.maxConnections=100 were accepted"
fi
grep -q "database connection budget exceeded" "$WORK/budget.out" || fail "values rejected, but not for the budget: $(cat "$WORK/budget.out")"
echo "ok: $(grep -o 'database connection budget exceeded: [0-9]* connections at most' "$WORK/budget.out")"
# The template's sum is the Go budget's formula (internal/platform/db/budget.go, which make
# dev and the tests run on): both count the default release alike.
chart_total=$(grep -o 'database connection budget exceeded: [0-9]*' "$WORK/budget.out" | grep -o '[0-9]*$')
go_total=$(cd "$ROOT" && go test -count=1 -run '^TestChartPoolsAreTheBudget$' -v ./internal/platform/db | grep -o 'at most [0-9]* connections' | grep -o '[0-9]*')
[[ -n "$go_total" && "$chart_total" == "$go_total" ]] ||
  fail "the chart's budget (${chart_total:-?} connections) is not db.Connections' (${go_total:-?}) for the default release"
echo "ok: the chart's budget is db.Connections' ($go_total connections at most)"
render "$WORK/budget-migrate.yaml" --set postgresql.maxConnections=100 --set migrations.job.enabled=false \
  --set services.payments.enabled=false --set services.catalog.autoscaling.maxReplicas=2 \
  --set services.identity.autoscaling.maxReplicas=2 --set services.checkout.autoscaling.maxReplicas=2 \
  --set services.allocation.autoscaling.maxReplicas=2 --set services.notifications.autoscaling.maxReplicas=2 ||
  fail "pools within postgresql.maxConnections=100 were refused"
echo "ok: pools within the budget render"

step "render"
render "$WORK/default.yaml"
render "$WORK/ci.yaml" -f "$CI_VALUES"
render "$WORK/no-web.yaml" --set services.web.enabled=false
for f in default ci no-web; do
  printf '%-8s %s\n' "$f" "$(grep -c '^kind:' "$WORK/$f.yaml") objects: $(grep '^kind:' "$WORK/$f.yaml" | sort | uniq -c | awk '{printf "%s %s, ", $1, $3}' | sed 's/, $//')"
done
RENDERED="$WORK/default.yaml:$WORK/ci.yaml:$WORK/no-web.yaml"

kubeconform() { # kubeconform FILE...: strict, offline, against the committed schemas only
  "$KUBECONFORM" -strict -summary -kubernetes-version "$K8S_VERSION" \
    -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
}

step "kubeconform -strict (offline schemas from $SCHEMAS)"
kubeconform "$WORK/default.yaml" "$WORK/ci.yaml" "$WORK/no-web.yaml"

step "Go checks (strict k8s.io/api decoding + policy)"
(cd "$CHECK_MODULE" && go vet ./... && go test -c -o "$WORK/check.test" .)
run_check() { # run_check RENDERED_LIST [test args]: the Go checks against renderings
  local files="$1"
  shift
  (cd "$CHECK_MODULE" && HANGAR_RENDERED="$files" HANGAR_ROUTES="$CHART/routes.yaml" HANGAR_HEADERS="$CHART/headers.yaml" "$WORK/check.test" "$@")
}
if ! run_check "$RENDERED" -test.count=1 -test.v >"$WORK/check.out" 2>&1; then
  cat "$WORK/check.out"
  fail "Go checks"
fi
grep -E '^(--- |PASS)|check_test.go' "$WORK/check.out"

step "self-check: the validators must reject a misspelled field"
negative() { # negative NAME SOURCE FIELD TYPO
  local name="$1" src="$2" field="$3" typo="$4" bad="$WORK/bad-$1.yaml"
  sed "s/\b$field:/$typo:/" "$src" >"$bad"
  grep -q "$typo:" "$bad" || fail "self-check $name: the rendering has no $field to misspell"
  if kubeconform "$bad" >"$WORK/neg.out" 2>&1; then
    fail "self-check $name: kubeconform accepted $typo"
  fi
  grep -q "$typo" "$WORK/neg.out" || fail "self-check $name: kubeconform failed, but not on $typo: $(cat "$WORK/neg.out")"
  if run_check "$bad" -test.run '^TestRendered$' -test.count=1 >"$WORK/neg.out" 2>&1; then
    fail "self-check $name: the Go checks accepted $typo"
  fi
  grep -q "$typo" "$WORK/neg.out" || fail "self-check $name: the Go checks failed, but not on $typo: $(cat "$WORK/neg.out")"
  echo "ok: $typo rejected by kubeconform and by the Go checks"
}
negative containerPort "$WORK/default.yaml" containerPort containerPortt
negative readinessProbe "$WORK/default.yaml" readinessProbe readinessProbee
negative honorLabels "$WORK/ci.yaml" honorLabels honorLabelz

step "helm-check passed in $((SECONDS - start))s"
