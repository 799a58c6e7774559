{{/*
What only this chart defines; the names, labels and objects every operator chart shares come
from the bosun-library chart (charts/library), as "bosun.*".
*/}}

{{/*
The rules the operator needs on namespaced objects: shared by the ClusterRole (operator watching
every namespace) and the per-namespace Roles (watchNamespaces set). No wildcards.
*/}}
{{- define "bosun-configsync-operator.rules" -}}
# The operator's own kinds, and their status.
- apiGroups: ["config.bosun.dev"]
  resources: ["configmapsyncs", "secretsyncs", "configmonitors"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["config.bosun.dev"]
  resources: ["configmapsyncs/status", "secretsyncs/status", "configmonitors/status"]
  verbs: ["get", "patch", "update"]
# Sources are read, copies are written and deleted, monitored objects are labelled.
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
# Bare pods a ConfigMonitor selects are restarted by deleting them.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
# Workloads a ConfigMonitor selects are rolled by patching their pod template.
- apiGroups: ["apps"]
  resources: ["deployments", "statefulsets", "daemonsets"]
  verbs: ["get", "list", "patch"]
{{- end }}

{{/*
The one cluster-scoped read the operator needs in either scope: Namespace objects, whose
config.bosun.dev/accept-sync-from annotation is the destination's consent and whose labels a
namespaceSelector matches. A Role cannot grant list or watch on Namespaces.
*/}}
{{- define "bosun-configsync-operator.namespaceRules" -}}
- apiGroups: [""]
  resources: ["namespaces"]
  verbs: ["get", "list", "watch"]
{{- end }}
