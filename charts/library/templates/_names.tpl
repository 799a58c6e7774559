{{/*
Names, labels and references every operator chart shares. They read the including chart's own
context: .Chart.Name is the operator chart's name, never this library's.
*/}}

{{/*
The chart's name, or nameOverride.
*/}}
{{- define "bosun.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's full name: fullnameOverride, else the release name when it already contains the
chart name, else "<release>-<chart>"; truncated to 63 characters (the DNS label limit).
*/}}
{{- define "bosun.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "bosun.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Chart name and version, for the helm.sh/chart label.
*/}}
{{- define "bosun.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every object of the chart.
*/}}
{{- define "bosun.labels" -}}
helm.sh/chart: {{ include "bosun.chart" . }}
{{ include "bosun.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: bosun
app.kubernetes.io/component: operator
{{- end }}

{{/*
Labels that select the operator pods (immutable in the Deployment's selector: keep them stable).
*/}}
{{- define "bosun.selectorLabels" -}}
app.kubernetes.io/name: {{ include "bosun.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The ServiceAccount the operator runs as.
*/}}
{{- define "bosun.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "bosun.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The operator image reference. An umbrella chart's global.image.registry prefixes the repository;
the tag is image.tag, else global.image.tag, else the chart's appVersion.
*/}}
{{- define "bosun.image" -}}
{{- $global := (.Values.global | default dict).image | default dict }}
{{- $repository := .Values.image.repository }}
{{- with $global.registry }}
{{- $repository = printf "%s/%s" (trimSuffix "/" .) $repository }}
{{- end }}
{{- printf "%s:%s" $repository (.Values.image.tag | default $global.tag | default .Chart.AppVersion) }}
{{- end }}

{{/*
The operator container's resources: an umbrella chart's global.resources when set, else resources.
*/}}
{{- define "bosun.resources" -}}
{{- (.Values.global | default dict).resources | default .Values.resources | toYaml }}
{{- end }}

{{/*
The operator's own name, from the chart's bosun.dev/operator annotation: an umbrella chart's alias
replaces .Chart.Name, never the annotations.
*/}}
{{- define "bosun.operatorName" -}}
{{- $name := index (.Chart.Annotations | default dict) "bosun.dev/operator" }}
{{- if not $name }}
{{- fail (printf "chart %s lacks the bosun.dev/operator annotation naming its operator" .Chart.Name) }}
{{- end }}
{{- $name }}
{{- end }}

{{/*
Name of the Lease the operator takes: "<operator name>-leader", fixed by the operator
(OperatorSettings.leaseName()), not by the release or an alias.
*/}}
{{- define "bosun.leaseName" -}}
{{- printf "%s-leader" (include "bosun.operatorName" .) }}
{{- end }}

{{/*
The watched namespaces as a JSON list: watchNamespaces, else an umbrella chart's
global.watchNamespaces. Read it with: include "bosun.watchNamespaces" . | fromJsonArray
*/}}
{{- define "bosun.watchNamespaces" -}}
{{- .Values.watchNamespaces | default (.Values.global | default dict).watchNamespaces | default list | toJson }}
{{- end }}

{{/*
Where the chart grants the operator's rules: "namespace" (a Role in each watched namespace) when
the operator watches some namespaces, "cluster" (one ClusterRole) when it watches all of them. The
watched namespaces alone decide: an operator confined to some namespaces never holds rights
outside them, and one watching everything has the rights it needs everywhere.
*/}}
{{- define "bosun.rbacScope" -}}
{{- ternary "cluster" "namespace" (empty (include "bosun.watchNamespaces" . | fromJsonArray)) }}
{{- end }}

{{/*
Cross-field rules, also stated in each chart's values.schema.json; checked here as well so that
they hold when schema validation is skipped (--skip-schema-validation).
*/}}
{{- define "bosun.validate" -}}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicaCount) 1) }}
{{- fail "replicaCount > 1 needs leaderElection.enabled=true: only one replica may reconcile" }}
{{- end }}
{{- end }}

{{/*
The ServiceMonitor settings as JSON: serviceMonitor, where an umbrella chart's
global.serviceMonitor fills in what is not set here (enabled if either enables it; labels merged,
these winning). Read it with: include "bosun.serviceMonitorSettings" . | fromJson
*/}}
{{- define "bosun.serviceMonitorSettings" -}}
{{- $global := (.Values.global | default dict).serviceMonitor | default dict }}
{{- $own := .Values.serviceMonitor }}
{{- $labels := merge (deepCopy ($own.labels | default dict)) ($global.labels | default dict) }}
{{- dict "enabled" (or $own.enabled $global.enabled) "interval" ($own.interval | default $global.interval | default "") "scrapeTimeout" ($own.scrapeTimeout | default $global.scrapeTimeout | default "") "labels" $labels | toJson }}
{{- end }}
