{{- define "common.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "common.fullname" . }}
  labels:
    {{- include "common.labels" . | nindent 4 }}
  annotations:
    # .Template.Name here is the including template, not this file
    rendered-from: {{ .Template.Name }}
data:
  {{- range $k, $v := .Values.config }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
  labelPrefix: {{ .Values.common.labelPrefix }}
{{- end -}}

{{- define "common.deployment.base" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "common.fullname" . }}
  labels:
    {{- include "common.labels" . | nindent 4 }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: {{ .Chart.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {{ .Chart.Name }}
{{- end -}}

{{- define "common.deployment" -}}
{{- $top := first . -}}
{{- $base := fromYaml (include "common.deployment.base" $top) -}}
{{- $override := fromYaml (include (index . 1) $top) -}}
{{- toYaml (merge $override $base) -}}
{{- end -}}
