{{- define "child.name" -}}
{{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}
