{{/*
Helpers shared by every per-component template. A "component" is one entry of
.Values.services merged over .Values.componentDefaults; templates loop over them with

  {{- range $name := keys $.Values.services | sortAlpha }}
  {{- $c := include "hangar.component" (dict "root" $ "name" $name) | fromJson }}
  {{- if $c.enabled }}
  {{- $ctx := dict "root" $ "c" $c }}
  ...

and pass $ctx (root context + resolved component) to the helpers below.
*/}}

{{- define "hangar.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "hangar.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "hangar.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
hangar.deepMerge merges .src into .dst in place: maps merge key by key, anything else
(scalars, lists, false, 0, "") replaces. Sprig's merge/mergeOverwrite cannot be used:
they treat false and 0 as "unset", so `autoscaling.enabled: false` would be lost.
*/}}
{{- define "hangar.deepMerge" -}}
{{- $dst := .dst -}}
{{- range $k, $v := .src -}}
{{- if and (kindIs "map" $v) (kindIs "map" (get $dst $k)) -}}
{{- include "hangar.deepMerge" (dict "dst" (get $dst $k) "src" $v) -}}
{{- else -}}
{{- $_ := set $dst $k $v -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
hangar.component renders, as JSON, the component .name: componentDefaults with
services.<name> merged over it, plus "name".
*/}}
{{- define "hangar.component" -}}
{{- $svc := index .root.Values.services .name -}}
{{- if not (kindIs "map" $svc) -}}
{{- fail (printf "services.%s must be a map" .name) -}}
{{- end -}}
{{- $c := deepCopy .root.Values.componentDefaults -}}
{{- include "hangar.deepMerge" (dict "dst" $c "src" (deepCopy $svc)) -}}
{{- $_ := set $c "name" .name -}}
{{- toJson $c -}}
{{- end -}}

{{/* Object name of a component: <fullname>-<component>. ctx: dict root c */}}
{{- define "hangar.componentName" -}}
{{- $n := printf "%s-%s" (include "hangar.fullname" .root) .c.name -}}
{{- if gt (len $n) 63 -}}
{{- fail (printf "object name %q is longer than 63 characters: shorten the release name or set fullnameOverride" $n) -}}
{{- end -}}
{{- $n -}}
{{- end -}}

{{/* Labels selecting a component's pods. ctx: dict root c */}}
{{- define "hangar.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hangar.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .c.name }}
{{- end -}}

{{/* Labels selecting every pod of this release. root context */}}
{{- define "hangar.releaseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "hangar.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of objects that belong to no single component. root context */}}
{{- define "hangar.releaseLabels" -}}
helm.sh/chart: {{ include "hangar.chart" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: hangar
{{ include "hangar.releaseSelectorLabels" . }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of a component's objects. ctx: dict root c */}}
{{- define "hangar.labels" -}}
helm.sh/chart: {{ include "hangar.chart" .root }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: hangar
{{ include "hangar.selectorLabels" . }}
{{- with (include "hangar.imageTag" .) }}
app.kubernetes.io/version: {{ . | trunc 63 | trimSuffix "-" | trimSuffix "." | quote }}
{{- end }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The tag a component's image uses ("" when pulled by digest only). ctx: dict root c */}}
{{- define "hangar.imageTag" -}}
{{- if .c.image.tag -}}
{{- .c.image.tag -}}
{{- else if not .c.image.digest -}}
{{- .root.Chart.AppVersion -}}
{{- end -}}
{{- end -}}

{{/* Pinned image reference: [registry/]repository(:tag)(@digest). ctx: dict root c */}}
{{- define "hangar.image" -}}
{{- $repo := default .c.name .c.image.repository -}}
{{- with .root.Values.image.registry -}}
{{- $repo = printf "%s/%s" (trimSuffix "/" .) $repo -}}
{{- end -}}
{{- $tag := include "hangar.imageTag" . -}}
{{- if eq $tag "latest" -}}
{{- fail (printf "services.%s.image.tag: \"latest\" is not a pinned tag" .c.name) -}}
{{- end -}}
{{- if and (not $tag) (not .c.image.digest) -}}
{{- fail (printf "services.%s.image: a tag or a digest is required" .c.name) -}}
{{- end -}}
{{- $repo -}}
{{- with $tag }}:{{ . }}{{ end -}}
{{- with .c.image.digest }}@{{ . }}{{ end -}}
{{- end -}}

{{/* Seconds of termination grace; fails when it would not cover the shutdown. ctx: dict root c */}}
{{- define "hangar.terminationGrace" -}}
{{- $need := add .c.preStopSleepSeconds .c.shutdownTimeoutSeconds -}}
{{- $grace := int .c.terminationGracePeriodSeconds -}}
{{- if eq $grace 0 -}}
{{- $grace = add $need 10 -}}
{{- end -}}
{{- if le (int $grace) (int $need) -}}
{{- fail (printf "services.%s.terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds + shutdownTimeoutSeconds (%d)" .c.name (int $grace) (int $need)) -}}
{{- end -}}
{{- $grace -}}
{{- end -}}

{{/* Component ports by type: list of {name, port, appProtocol}. ctx: dict root c */}}
{{- define "hangar.ports" -}}
{{- if eq .c.type "go" -}}
- {name: http, port: 8080, appProtocol: http}
- {name: grpc, port: 9090, appProtocol: kubernetes.io/h2c}
- {name: admin, port: 9464, appProtocol: http}
{{- if eq .c.name "payments" }}
- {name: fields, port: 8081, appProtocol: http}
{{- end }}
{{- else if eq .c.type "static" -}}
- {name: http, port: 8080, appProtocol: http}
{{- else -}}
{{- fail (printf "services.%s.type must be go or static, got %q" .c.name .c.type) -}}
{{- end -}}
{{- end -}}

{{/* Port (name) serving /healthz and /readyz. ctx: dict root c */}}
{{- define "hangar.probePort" -}}
{{- if eq .c.type "go" }}admin{{ else }}http{{ end -}}
{{- end -}}

{{/* Ports of the Kafka brokers, as a JSON list of numbers. root context */}}
{{- define "hangar.kafkaPorts" -}}
{{- $ports := list -}}
{{- range .Values.kafka.brokers -}}
{{- $p := regexFind ":[0-9]+$" . | trimPrefix ":" -}}
{{- $ports = append $ports (int (default "9092" $p)) -}}
{{- end -}}
{{- toJson ($ports | uniq) -}}
{{- end -}}

{{/* Port of the OTLP endpoint (4317 when it names none). root context */}}
{{- define "hangar.otlpPort" -}}
{{- $hostport := (urlParse .Values.otel.endpoint).host | default .Values.otel.endpoint -}}
{{- regexFind ":[0-9]+$" $hostport | trimPrefix ":" | default "4317" -}}
{{- end -}}

{{/* Environment of a component's container. ctx: dict root c */}}
{{- define "hangar.env" -}}
{{- $c := .c -}}
{{- $root := .root -}}
{{- $managed := list "POD_NAME" "POD_NAMESPACE" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- if eq $c.type "go" }}
{{- $managed = concat $managed (list "LOG_LEVEL" "LOG_FORMAT" "GRPC_ADDR" "HTTP_ADDR" "ADMIN_ADDR" "SHUTDOWN_TIMEOUT" "OTEL_SERVICE_NAME" "OTEL_RESOURCE_ATTRIBUTES" "OTEL_EXPORTER_OTLP_ENDPOINT" "DATABASE_URL" "PGPASSWORD" "KAFKA_BROKERS" "DATABASE_MAX_CONNS" "DB_MIGRATE") }}
- name: LOG_LEVEL
  value: {{ $c.log.level | quote }}
- name: LOG_FORMAT
  value: {{ $c.log.format | quote }}
- name: GRPC_ADDR
  value: ":9090"
- name: HTTP_ADDR
  value: ":8080"
- name: ADMIN_ADDR
  value: ":9464"
- name: SHUTDOWN_TIMEOUT
  value: {{ printf "%ds" (int $c.shutdownTimeoutSeconds) | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ $c.name | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "service.namespace=hangar,k8s.namespace.name=$(POD_NAMESPACE),k8s.pod.name=$(POD_NAME),k8s.deployment.name=%s" (include "hangar.componentName" .) | quote }}
{{- with $root.Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- if $c.database.enabled }}
{{- if $c.database.urlSecret.name }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $c.database.urlSecret.name | quote }}
      key: {{ required (printf "services.%s.database.urlSecret.key is required with urlSecret.name" $c.name) $c.database.urlSecret.key | quote }}
{{- else }}
{{- $pg := $root.Values.postgresql }}
{{- $user := default $pg.user $c.database.user }}
{{- $db := default (printf "hangar_%s" $c.name) $c.database.name }}
{{- $host := required "postgresql.host is required by components with database.enabled (or set their database.urlSecret)" $pg.host }}
{{- $pw := $pg.passwordSecret }}
{{- if $c.database.passwordSecret.name }}{{ $pw = $c.database.passwordSecret }}{{ end }}
{{- if $pw.name }}
- name: PGPASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $pw.name | quote }}
      key: {{ required (printf "services.%s: the password Secret key is required" $c.name) $pw.key | quote }}
{{- end }}
- name: DATABASE_URL
  value: {{ printf "postgres://%s@%s:%d/%s?sslmode=%s" (urlquery $user) $host (int $pg.port) $db $pg.sslMode | quote }}
{{- end }}
{{- /* The pool the connection budget (templates/database-budget.yaml) counts. */}}
- name: DATABASE_MAX_CONNS
  value: {{ int $c.database.maxConnections | toString | quote }}
{{- /* The release's migrate Job (templates/jobs.yaml) applies the migrations once; the
     replicas only wait for the schema. */}}
- name: DB_MIGRATE
  value: {{ ternary "false" "true" $root.Values.migrations.job.enabled | quote }}
{{- end }}
{{- if $c.kafka.enabled }}
- name: KAFKA_BROKERS
  value: {{ required "kafka.brokers is required by components with kafka.enabled" (join "," $root.Values.kafka.brokers) | quote }}
{{- end }}
{{- end }}
{{- range $k := keys $c.env | sortAlpha }}
{{- if has $k $managed }}
{{- fail (printf "services.%s.env.%s is set by the chart; use the chart value that controls it" $c.name $k) }}
{{- end }}
- name: {{ $k }}
  value: {{ tpl (toString (get $c.env $k)) $root | quote }}
{{- end }}
{{- range $k := keys $c.secretEnv | sortAlpha }}
{{- if or (has $k $managed) (hasKey $c.env $k) }}
{{- fail (printf "services.%s.secretEnv.%s is already set elsewhere" $c.name $k) }}
{{- end }}
{{- $ref := get $c.secretEnv $k }}
- name: {{ $k }}
  valueFrom:
    secretKeyRef:
      name: {{ include "hangar.requiredSecretEnv" (dict "c" $c "k" $k "ref" $ref) | quote }}
      key: {{ $ref.key | quote }}
{{- end }}
{{- end -}}

{{/* The Secret of a secretEnv entry. A service has no default for its keys outside
development mode and refuses to start without them, so an entry the chart lists with an
empty name (values.yaml) must be named: rendering fails, naming the value to set.
ctx: dict c k ref */}}
{{- define "hangar.requiredSecretEnv" -}}
{{- required (printf "services.%s.secretEnv.%s.name is required: the Secret holding %s (key %q); the service refuses to start without it" .c.name .k .k .ref.key) .ref.name -}}
{{- end -}}

{{/* The card-fields origin (payments.fieldsHost), https with ingress TLS; empty without a
host. root context */}}
{{- define "hangar.fieldsOrigin" -}}
{{- with .Values.payments.fieldsHost -}}
{{ if $.Values.ingress.tls.enabled }}https{{ else }}http{{ end }}://{{ . }}
{{- end -}}
{{- end -}}
