{{/*
What only this chart defines; the names, labels and objects every operator chart shares come
from the bosun-library chart (charts/library), as "bosun.*".
*/}}

{{/*
The URL member Pods fetch volume snapshots from: backup.volume.operatorUrl, else the metrics
Service (service.yaml, which selects every replica) by its cluster DNS name.
*/}}
{{- define "bosun-etcd-operator.operatorUrl" -}}
{{- .Values.backup.volume.operatorUrl | default (printf "http://%s-metrics.%s.svc:%v" (include "bosun.fullname" .) .Release.Namespace .Values.metrics.port) }}
{{- end }}
