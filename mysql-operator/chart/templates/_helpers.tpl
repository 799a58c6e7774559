{{/*
What only this chart defines; the names, labels and objects every operator chart shares come
from the bosun-library chart (charts/library), as "bosun.*".
*/}}

{{/* The Service restore Jobs reach the operator's restore route through. */}}
{{- define "bosun-mysql-operator.restoreService" -}}
{{- printf "%s-restore" (include "bosun.fullname" .) }}
{{- end }}

{{/*
The URL restore Jobs fetch checked dumps from: restore.operatorUrl, else the restore Service by its
cluster DNS name (one of the names on the operator's certificate).
*/}}
{{- define "bosun-mysql-operator.operatorUrl" -}}
{{- .Values.restore.operatorUrl | default (printf "https://%s.%s.svc:%v" (include "bosun-mysql-operator.restoreService" .) .Release.Namespace .Values.restore.port) }}
{{- end }}

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
  # delete: the restore Secret (token, CA, client options) of a finished or repeated restore, and
  # the rebuild Secret (the copy's account) once its copy ended.
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: ["batch"]
  # The Jobs that load a cluster's bootstrap.fromBackup and copy a member into a rebuilt one, in
  # the cluster's own namespace.
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "delete"]
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

{{/*
The claim mounted as the backup volume: backup.volume (the same values as every operator chart), or
the deprecated backupVolume.claimName, which still works; empty without a backup volume.
*/}}
{{- define "bosun-mysql-operator.backupClaim" -}}
{{- .Values.backupVolume.claimName | default (include "bosun.backupClaimName" .) -}}
{{- end }}
