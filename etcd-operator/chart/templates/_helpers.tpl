{{/*
What only this chart defines; the names, labels and objects every operator chart shares come
from the bosun-library chart (charts/library), as "bosun.*".
*/}}

{{/*
The Service of the HTTPS restore route (restore-service.yaml, which selects every replica).
*/}}
{{- define "bosun-etcd-operator.restoreService" -}}
{{- printf "%s-restore" (include "bosun.fullname" .) }}
{{- end }}

{{/*
The URL member Pods fetch volume snapshots from: backup.volume.operatorUrl, else the restore
Service by its cluster DNS name (one of the names on the operator's certificate).
*/}}
{{- define "bosun-etcd-operator.operatorUrl" -}}
{{- .Values.backup.volume.operatorUrl | default (printf "https://%s.%s.svc:%v" (include "bosun-etcd-operator.restoreService" .) .Release.Namespace .Values.backup.volume.restorePort) }}
{{- end }}

{{/*
The rules the operator needs on the objects it reconciles and creates: shared by the ClusterRole
(operator watching every namespace) and the per-namespace Roles (watchNamespaces set). No
wildcards. Secrets cannot be limited by name (the restore Secret is created, and the TLS and S3
Secrets are named by the user): with watchNamespaces these rights hold in those namespaces only.
*/}}
{{- define "bosun-etcd-operator.rules" -}}
# The operator's own kinds, and their status.
- apiGroups: ["etcd.bosun.dev"]
  resources: ["etcdclusters", "etcdbackups"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["etcd.bosun.dev"]
  resources: ["etcdclusters/status", "etcdbackups/status"]
  verbs: ["get", "patch", "update"]
# One Pod per member: created, relabelled when promoted, deleted when removed or upgraded.
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
# One volume per member: created; stamped with the cluster and member its data belongs to;
# deleted or marked retained by the retention policy. Listed and watched: the operator reads its
# volumes from an informer's cache.
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "patch", "update", "delete"]
# The headless peer Service and the client Service (read from an informer's cache).
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch", "create", "patch", "update"]
# S3 credentials of EtcdBackups (read); the restore Secret <cluster>-restore of a cluster
# restored from the backup volume (created, its token and CA replaced by a later restore, read
# when a member fetches its snapshot). The operator's own certificate Secret has its own Role in
# the release namespace (tls-secret-role.yaml).
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "create", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
# The budget that keeps a quorum through voluntary disruptions (policy/v1 from 1.21 on), read
# from an informer's cache.
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "patch"]
{{- end }}
