{{- define "libuser.deployment" -}}
spec:
  template:
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: {{ .Values.image }}:{{ .Chart.AppVersion }}
          ports:
            - containerPort: {{ .Values.port }}
{{- end }}
