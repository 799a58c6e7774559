{{/*
Objects every operator chart renders the same way. A chart's template file includes one, e.g.
templates/serviceaccount.yaml holds {{ include "bosun.serviceAccount" . }}.
*/}}

{{/*
The ServiceAccount the operator runs as (serviceAccount.create).
*/}}
{{- define "bosun.serviceAccount" -}}
{{- if .Values.serviceAccount.create }}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "bosun.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
automountServiceAccountToken: true
{{- end }}
{{- end }}

{{/*
Leader election on a Lease in the release namespace. Creating cannot be limited to one name;
reading and renewing are limited to the operator's Lease.
*/}}
{{- define "bosun.leaderElectionRole" -}}
{{- if and .Values.rbac.create .Values.leaderElection.enabled }}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ include "bosun.fullname" . }}-leader-election
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["create"]
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    resourceNames: [{{ include "bosun.leaseName" . | quote }}]
    # fabric8's LeaseLock renews with PATCH (found by the e2e suite under the chart's own RBAC).
    verbs: ["get", "update", "patch"]
{{- end }}
{{- end }}

{{/*
Binds the leader election Role to the operator's ServiceAccount.
*/}}
{{- define "bosun.leaderElectionRoleBinding" -}}
{{- if and .Values.rbac.create .Values.leaderElection.enabled }}
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ include "bosun.fullname" . }}-leader-election
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "bosun.fullname" . }}-leader-election
subjects:
  - kind: ServiceAccount
    name: {{ include "bosun.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}
{{- end }}

{{/*
The Service in front of every replica's metrics (and health) port.
*/}}
{{- define "bosun.metricsService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "bosun.fullname" . }}-metrics
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "bosun.selectorLabels" . | nindent 4 }}
  ports:
    - name: http-metrics
      port: {{ .Values.metrics.port }}
      targetPort: http-metrics
      protocol: TCP
{{- end }}

{{/*
Binds the chart's ClusterRole (named like the release) to the operator's ServiceAccount when the
operator watches every namespace (bosun.rbacScope).
*/}}
{{- define "bosun.clusterRoleBinding" -}}
{{- if and .Values.rbac.create (eq (include "bosun.rbacScope" .) "cluster") }}
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ include "bosun.fullname" . }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ include "bosun.fullname" . }}
subjects:
  - kind: ServiceAccount
    name: {{ include "bosun.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}
{{- end }}

{{/*
When the operator watches some namespaces (bosun.rbacScope): the chart's rules (its "<operator
name>.rules" template, named after the bosun.dev/operator annotation, which an alias does not
change) as a Role in each watched namespace.
*/}}
{{- define "bosun.namespacedRoles" -}}
{{- if and .Values.rbac.create (eq (include "bosun.rbacScope" .) "namespace") }}
{{- range $namespace := include "bosun.watchNamespaces" . | fromJsonArray }}
---
# The operator's rules, granted only in the watched namespace {{ $namespace }}.
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ include "bosun.fullname" $ }}
  namespace: {{ $namespace }}
  labels:
    {{- include "bosun.labels" $ | nindent 4 }}
rules:
  {{- include (printf "%s.rules" (include "bosun.operatorName" $)) $ | nindent 2 }}
{{- end }}
{{- end }}
{{- end }}

{{/*
When the operator watches some namespaces: binds each watched namespace's Role to the operator's
ServiceAccount.
*/}}
{{- define "bosun.namespacedRoleBindings" -}}
{{- if and .Values.rbac.create (eq (include "bosun.rbacScope" .) "namespace") }}
{{- range $namespace := include "bosun.watchNamespaces" . | fromJsonArray }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ include "bosun.fullname" $ }}
  namespace: {{ $namespace }}
  labels:
    {{- include "bosun.labels" $ | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "bosun.fullname" $ }}
subjects:
  - kind: ServiceAccount
    name: {{ include "bosun.serviceAccountName" $ }}
    namespace: {{ $.Release.Namespace }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A Prometheus Operator ServiceMonitor for the metrics Service (service.yaml). On a cluster that does
not serve the monitoring.coreos.com/v1 ServiceMonitor API, enabling it fails the release with a
message saying why, rather than rendering an object the API server would refuse or silently
rendering nothing the user asked for.
*/}}
{{- define "bosun.serviceMonitor" -}}
{{- $monitor := include "bosun.serviceMonitorSettings" . | fromJson }}
{{- if $monitor.enabled }}
{{- if not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor") }}
{{- fail "A ServiceMonitor (serviceMonitor.enabled, or global.serviceMonitor.enabled in the platform chart) needs the Prometheus Operator's ServiceMonitor API (monitoring.coreos.com/v1), which this cluster does not serve: install the Prometheus Operator (or its CRDs) first, or leave serviceMonitor.enabled false. With helm template, pass --api-versions monitoring.coreos.com/v1/ServiceMonitor." }}
{{- end }}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "bosun.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- mustMergeOverwrite (include "bosun.labels" . | fromYaml) $monitor.labels | toYaml | nindent 4 }}
spec:
  namespaceSelector:
    matchNames:
      - {{ .Release.Namespace }}
  selector:
    matchLabels:
      {{- include "bosun.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: http-metrics
      path: /metrics
      scheme: http
      {{- with $monitor.interval }}
      interval: {{ . }}
      {{- end }}
      {{- with $monitor.scrapeTimeout }}
      scrapeTimeout: {{ . }}
      {{- end }}
{{- end }}
{{- end }}

{{/*
The chart's CRDs (files/crds/, copied there from the repository's crds/ by the build and checked
against it in CI) as templates rather than in crds/, so that helm upgrade applies a new schema.
Kept on uninstall: deleting a CRD deletes every custom resource of its kind. crds.install=false
leaves them to whoever manages them outside the release.
*/}}
{{- define "bosun.crds" -}}
{{- if .Values.crds.install }}
{{- range $path, $_ := .Files.Glob "files/crds/*.yml" }}
{{- $crd := $.Files.Get $path | fromYaml }}
{{- if semverCompare "<1.23.0-0" $.Capabilities.KubeVersion.Version }}
{{- include "bosun.withoutCelRules" $crd }}
{{- end }}
{{- $metadata := $crd.metadata }}
{{- $_ := set $metadata "annotations" (merge (dict "helm.sh/resource-policy" "keep") ($metadata.annotations | default dict)) }}
{{- $_ := set $metadata "labels" (merge (include "bosun.labels" $ | fromYaml) ($metadata.labels | default dict)) }}
---
{{ toYaml $crd }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Removes every x-kubernetes-validations (CEL rules) from a parsed CRD, in place. API servers before
1.23 do not know the field: they would drop it anyway, but Helm validates templated objects
against the server's OpenAPI schema first and refuses the unknown field. Renders nothing.
*/}}
{{- define "bosun.withoutCelRules" -}}
{{- if kindIs "map" . }}
{{- $_ := unset . "x-kubernetes-validations" }}
{{- range $key, $value := . }}
{{- include "bosun.withoutCelRules" $value }}
{{- end }}
{{- else if kindIs "slice" . }}
{{- range . }}
{{- include "bosun.withoutCelRules" . }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The operator's backup volume, the same values in every operator chart: backup.volume.enabled
mounts backup.volume.existingClaim, or the claim this template creates (size and storageClassName)
when that is empty. Kept on uninstall: it holds the backups. Renders nothing without one.
*/}}
{{- define "bosun.backupClaim" -}}
{{- if and .Values.backup.volume.enabled (not .Values.backup.volume.existingClaim) }}
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ include "bosun.fullname" . }}-backups
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
  annotations:
    helm.sh/resource-policy: keep
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: {{ .Values.backup.volume.size }}
  {{- with .Values.backup.volume.storageClassName }}
  storageClassName: {{ . }}
  {{- end }}
{{- end }}
{{- end }}

{{/*
The name of the claim mounted as the backup volume (backup.volume), empty without one.
*/}}
{{- define "bosun.backupClaimName" -}}
{{- if .Values.backup.volume.enabled -}}
{{- .Values.backup.volume.existingClaim | default (printf "%s-backups" (include "bosun.fullname" .)) -}}
{{- end -}}
{{- end }}
