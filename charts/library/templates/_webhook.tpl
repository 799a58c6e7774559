{{/*
The validating admission webhook of every operator chart (webhook.enabled, on by default): a
Service in front of every replica's HTTPS webhook port, the ValidatingWebhookConfiguration that
sends the chart's kinds to it, RBAC to keep that configuration's caBundle (get and patch, by name
only) and the Role on the certificate Secret. Called with (dict "root" . "webhooks" <list>), each
webhook a dict of group, version, resource (plural) and path (the operator's route for it).
*/}}

{{/* The Secret in the release namespace where the operator keeps its CA and serving certificate. */}}
{{- define "bosun.tlsSecret" -}}
{{- printf "%s-tls" (include "bosun.fullname" .) }}
{{- end }}

{{/* The Service the API server calls the webhook through. */}}
{{- define "bosun.webhookService" -}}
{{- printf "%s-webhook" (include "bosun.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The ValidatingWebhookConfiguration's name: cluster-scoped, so it carries the release namespace to
keep two installs of one chart apart (helm lint renders without a namespace: no leading dash).
*/}}
{{- define "bosun.webhookConfiguration" -}}
{{- printf "%s-%s" .Release.Namespace (include "bosun.fullname" .) | trunc 253 | trimSuffix "-" | trimPrefix "-" }}
{{- end }}

{{/*
Where the operator keeps its one certificate: every HTTPS endpoint of the process (the webhook,
the etcd operator's restore route) serves it, so a chart renders this once.
*/}}
{{- define "bosun.tlsEnv" -}}
- name: BOSUN_TLS_SECRET
  value: {{ include "bosun.tlsSecret" . | quote }}
- name: BOSUN_OPERATOR_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- end }}

{{/* The webhook's environment for the operator container (WebhookSettings). */}}
{{- define "bosun.webhookEnv" -}}
{{- if .Values.webhook.enabled }}
# Every replica serves admission reviews over HTTPS with a certificate it keeps in
# BOSUN_TLS_SECRET, and keeps BOSUN_WEBHOOK_CONFIGURATION's caBundle on its CA.
- name: BOSUN_WEBHOOK_CONFIGURATION
  value: {{ include "bosun.webhookConfiguration" . | quote }}
- name: BOSUN_WEBHOOK_PORT
  value: {{ .Values.webhook.port | quote }}
- name: BOSUN_WEBHOOK_SERVICE
  value: {{ include "bosun.webhookService" . | quote }}
{{ include "bosun.tlsEnv" . }}
{{- end }}
{{- end }}

{{/* The webhook's container port. */}}
{{- define "bosun.webhookPort" -}}
{{- if .Values.webhook.enabled }}
- name: https-webhook
  containerPort: {{ .Values.webhook.port }}
  protocol: TCP
{{- end }}
{{- end }}

{{/*
The Role on the certificate Secret: created once by the first replica (create cannot be limited
by name), then read and renewed by name only.
*/}}
{{- define "bosun.tlsSecretRole" -}}
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ include "bosun.fullname" . }}-tls
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["create"]
  - apiGroups: [""]
    resources: ["secrets"]
    resourceNames: [{{ include "bosun.tlsSecret" . | quote }}]
    verbs: ["get", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ include "bosun.fullname" . }}-tls
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "bosun.labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ include "bosun.fullname" . }}-tls
subjects:
  - kind: ServiceAccount
    name: {{ include "bosun.serviceAccountName" . }}
    namespace: {{ .Release.Namespace }}
{{- end }}

{{- define "bosun.webhookObjects" -}}
{{- $root := .root }}
{{- if $root.Values.webhook.enabled }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "bosun.webhookService" $root }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "bosun.labels" $root | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "bosun.selectorLabels" $root | nindent 4 }}
  ports:
    - name: https-webhook
      port: 443
      targetPort: https-webhook
      protocol: TCP
---
# CREATE and UPDATE of the kinds only: never DELETE, and never the status subresource, so a
# webhook that cannot be reached never blocks a delete or the operator's status writes.
# Each kind has two entries, as a 1.20 API server has no matchConditions to tell a spec change
# from a metadata-only one: CREATE fails closed (failurePolicy Fail: nothing unchecked is
# stored), UPDATE fails open (Ignore), so that the operator's own metadata writes (adding and
# removing finalizers, clearing annotations) never wait on a webhook that is down. The trade-off:
# while no replica answers, a bad spec change is stored and reported as InvalidSpec in status,
# where the operator checks every spec again. The operator fills in caBundle (and helm upgrade
# leaves it, as no chart sets it).
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: {{ include "bosun.webhookConfiguration" $root }}
  labels:
    {{- include "bosun.labels" $root | nindent 4 }}
webhooks:
  {{- range .webhooks }}
  {{- $kind := . }}
  {{- range $entry := list (dict "prefix" "" "operation" "CREATE" "failurePolicy" "Fail") (dict "prefix" "updates." "operation" "UPDATE" "failurePolicy" "Ignore") }}
  - name: {{ printf "%s%s.%s" $entry.prefix $kind.resource $kind.group }}
    clientConfig:
      service:
        name: {{ include "bosun.webhookService" $root }}
        namespace: {{ $root.Release.Namespace }}
        path: {{ $kind.path }}
        port: 443
    rules:
      - apiGroups: [{{ $kind.group | quote }}]
        apiVersions: [{{ $kind.version | quote }}]
        resources: [{{ $kind.resource | quote }}]
        operations: [{{ $entry.operation | quote }}]
        scope: Namespaced
    failurePolicy: {{ $entry.failurePolicy }}
    sideEffects: None
    timeoutSeconds: {{ $root.Values.webhook.timeoutSeconds }}
    admissionReviewVersions: ["v1"]
  {{- end }}
  {{- end }}
{{- if $root.Values.rbac.create }}
---
# Only the chart's own configuration, by name: the operator keeps its caBundle current.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ include "bosun.fullname" $root }}-webhook
  labels:
    {{- include "bosun.labels" $root | nindent 4 }}
rules:
  - apiGroups: ["admissionregistration.k8s.io"]
    resources: ["validatingwebhookconfigurations"]
    resourceNames: [{{ include "bosun.webhookConfiguration" $root | quote }}]
    verbs: ["get", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ include "bosun.fullname" $root }}-webhook
  labels:
    {{- include "bosun.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ include "bosun.fullname" $root }}-webhook
subjects:
  - kind: ServiceAccount
    name: {{ include "bosun.serviceAccountName" $root }}
    namespace: {{ $root.Release.Namespace }}
---
{{ include "bosun.tlsSecretRole" $root }}
{{- end }}
{{- end }}
{{- end }}

{{/* What NOTES.txt says of the webhook: creates wait for a ready operator Pod. */}}
{{- define "bosun.webhookNote" -}}
{{- if .Values.webhook.enabled }}
Its admission webhook refuses a bad spec at kubectl apply. Until an operator Pod is ready (its
webhook answers with the CA the API server was given), creates of its kinds are refused; wait with:

kubectl --namespace {{ .Release.Namespace }} rollout status deployment/{{ include "bosun.fullname" . }}
{{- end }}
{{- end }}
