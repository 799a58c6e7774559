{{/*
What only this chart defines; the names, labels and objects every operator chart shares come
from the bosun-library chart (charts/library), as "bosun.*".
*/}}

{{/*
The rules the operator needs on the objects it reconciles and creates: shared by the ClusterRole
(operator watching every namespace) and the per-namespace Roles (watchNamespaces set). No wildcards.
*/}}
{{- define "bosun-mysql-operator.rules" -}}
- apiGroups: ["mysql.bosun.dev"]
  resources: ["mysqlclusters", "mysqlbackups"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["mysql.bosun.dev"]
  resources: ["mysqlclusters/status", "mysqlbackups/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["apps"]
  resources: ["statefulsets"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["services", "configmaps"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch", "create"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "patch", "update", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch", "update"]
{{- end }}
