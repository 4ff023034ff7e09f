{{- define "tplvalues.fullname" -}}
{{ tpl .Values.fullnameOverride . }}
{{- end }}

{{- define "tplvalues.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
