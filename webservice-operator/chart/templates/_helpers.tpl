{{/*
The chart's name, or nameOverride.
*/}}
{{- define "bosun-webservice-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The release's full name: fullnameOverride, else the release name when it already contains the
chart name, else "<release>-<chart>"; truncated to 63 characters (the DNS label limit).
*/}}
{{- define "bosun-webservice-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "bosun-webservice-operator.name" . }}
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
{{- define "bosun-webservice-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels of every object of the chart.
*/}}
{{- define "bosun-webservice-operator.labels" -}}
helm.sh/chart: {{ include "bosun-webservice-operator.chart" . }}
{{ include "bosun-webservice-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: bosun
app.kubernetes.io/component: operator
{{- end }}

{{/*
Labels that select the operator pods (immutable in the Deployment's selector: keep them stable).
*/}}
{{- define "bosun-webservice-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "bosun-webservice-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
The ServiceAccount the operator runs as.
*/}}
{{- define "bosun-webservice-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "bosun-webservice-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The operator image reference. An umbrella chart's global.image.registry prefixes the repository;
the tag is image.tag, else global.image.tag, else the chart's appVersion.
*/}}
{{- define "bosun-webservice-operator.image" -}}
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
{{- define "bosun-webservice-operator.resources" -}}
{{- (.Values.global | default dict).resources | default .Values.resources | toYaml }}
{{- end }}

{{/*
Name of the Lease the operator takes: "<operator name>-leader", fixed by the operator
(OperatorSettings.leaseName()), not by the release.
*/}}
{{- define "bosun-webservice-operator.leaseName" -}}
bosun-webservice-operator-leader
{{- end }}

{{/*
The rules the operator needs on the objects it reconciles and creates: shared by the ClusterRole
(rbac.scope=cluster) and the per-namespace Roles (rbac.scope=namespace). No wildcards.
*/}}
{{- define "bosun-webservice-operator.rules" -}}
- apiGroups: ["web.bosun.dev"]
  resources: ["webservices"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["web.bosun.dev"]
  resources: ["webservices/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: ["autoscaling"]
  resources: ["horizontalpodautoscalers"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: ["networking.k8s.io"]
  resources: ["ingresses"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
{{- end }}

{{/*
Cross-field rules, also stated in values.schema.json; checked here as well so that they hold when
schema validation is skipped (--skip-schema-validation).
*/}}
{{- define "bosun-webservice-operator.validate" -}}
{{- if and (eq .Values.rbac.scope "namespace") (empty (include "bosun-webservice-operator.watchNamespaces" . | fromJsonArray)) }}
{{- fail "rbac.scope=namespace needs watchNamespaces: the namespaces to create a Role in" }}
{{- end }}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicaCount) 1) }}
{{- fail "replicaCount > 1 needs leaderElection.enabled=true: only one replica may reconcile" }}
{{- end }}
{{- end }}

{{/*
The watched namespaces as a JSON list: watchNamespaces, else an umbrella chart's
global.watchNamespaces. Read it with: include "bosun-webservice-operator.watchNamespaces" . | fromJsonArray
*/}}
{{- define "bosun-webservice-operator.watchNamespaces" -}}
{{- .Values.watchNamespaces | default (.Values.global | default dict).watchNamespaces | default list | toJson }}
{{- end }}

{{/*
The ServiceMonitor settings as JSON: serviceMonitor, where an umbrella chart's
global.serviceMonitor fills in what is not set here (enabled if either enables it; labels merged,
these winning). Read it with: include "bosun-webservice-operator.serviceMonitor" . | fromJson
*/}}
{{- define "bosun-webservice-operator.serviceMonitor" -}}
{{- $global := (.Values.global | default dict).serviceMonitor | default dict }}
{{- $own := .Values.serviceMonitor }}
{{- $labels := merge (deepCopy ($own.labels | default dict)) ($global.labels | default dict) }}
{{- dict "enabled" (or $own.enabled $global.enabled) "interval" ($own.interval | default $global.interval | default "") "scrapeTimeout" ($own.scrapeTimeout | default $global.scrapeTimeout | default "") "labels" $labels | toJson }}
{{- end }}
