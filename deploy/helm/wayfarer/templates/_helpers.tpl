{{/* Name of the chart, overridable. */}}
{{- define "wayfarer.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release-chart, unless the release already holds the chart's name. Kept short enough for the "-property" suffix. */}}
{{- define "wayfarer.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 54 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 54 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 54 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "wayfarer.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "wayfarer.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "wayfarer.selectorLabels" -}}
app.kubernetes.io/name: {{ include "wayfarer.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "wayfarer.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "wayfarer.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "wayfarer.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* The Secret with JWT_SECRET, PORTAL_JWT_SECRET and REALTIME_SECRET. */}}
{{- define "wayfarer.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "wayfarer.fullname" .)) }}
{{- end }}

{{/* "true" when more than one replica may run. */}}
{{- define "wayfarer.fleet" -}}
{{- if or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1) }}true{{ end }}
{{- end }}

{{/* "true" when the databases are SQLite files on the data volume. */}}
{{- define "wayfarer.sqlite" -}}
{{- if and (not .Values.database.guideURL) (not .Values.secrets.existingSecret) }}true{{ end }}
{{- end }}

{{/*
Refuses values that render a broken deployment: a fleet needs PostgreSQL and
Redis (SQLite files and per-replica rate limits are one replica's), and its
uploads in S3 or on a volume every replica can mount.
*/}}
{{- define "wayfarer.validate" -}}
{{- $v := .Values }}
{{- range $name, $url := dict "database.guideURL" $v.database.guideURL "database.propertyURL" $v.database.propertyURL }}
{{- if and $url (not (regexMatch "^postgres(ql)?://" $url)) }}
{{- fail (printf "%s must be a postgres:// URL (empty: SQLite on the data volume), not %q" $name $url) }}
{{- end }}
{{- end }}
{{- if and $v.database.guideURL (not $v.database.propertyURL) }}
{{- fail "database.propertyURL is required with database.guideURL: the two APIs keep separate databases" }}
{{- end }}
{{- if and $v.redis.url (not (regexMatch "^rediss?://" $v.redis.url)) }}
{{- fail (printf "redis.url must be a redis:// or rediss:// URL, not %q" $v.redis.url) }}
{{- end }}
{{- if include "wayfarer.fleet" . }}
{{- if not $v.secrets.existingSecret }}
{{- if not $v.database.guideURL }}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs PostgreSQL: set database.guideURL and database.propertyURL (SQLite files serve one replica)" }}
{{- end }}
{{- if not $v.redis.url }}
{{- fail "more than one replica needs redis.url, so that rate limits are shared by the replicas" }}
{{- end }}
{{- end }}
{{- if and $v.persistence.enabled (not (has "ReadWriteMany" $v.persistence.accessModes)) }}
{{- fail "more than one replica cannot share a ReadWriteOnce data volume: keep uploads in S3 (config.extra.S3_BUCKET …) with persistence.enabled=false, or use a ReadWriteMany volume" }}
{{- end }}
{{- end }}
{{- if lt (int $v.shutdown.drainSeconds) 0 }}
{{- fail "shutdown.drainSeconds must be 0 or more" }}
{{- end }}
{{- end }}
