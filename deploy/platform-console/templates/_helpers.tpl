{{- define "platform-console.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "platform-console.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "platform-console.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "platform-console.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: platform-console
{{- end }}

{{- define "platform-console.selectorLabels" -}}
app.kubernetes.io/name: {{ include "platform-console.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "platform-console.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "platform-console.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "platform-console.validate" -}}
{{- $secret := .Values.kcp.kubeconfigSecret }}
{{- $_ := required "kcp.kubeconfigSecret.name is required: the Secret (in the release namespace) with a kubeconfig for kcp's server URL and CA" $secret.name }}
{{- $_ := required "kcp.kubeconfigSecret.key is required: the key of that Secret that holds the kubeconfig" $secret.key }}
{{- end }}

{{/* No --infra-kubeconfig: on the infrastructure cluster the console is the pod's ServiceAccount. */}}
{{- define "platform-console.args" -}}
- --kcp-kubeconfig=/etc/kcp/kubeconfig
- --provider-workspace={{ .Values.kcp.providerWorkspace }}
- --bind-address=:{{ .Values.port }}
- --secure-cookie=true
- --controller-lease-name={{ .Values.controllerLease.name }}
- --controller-lease-namespace={{ .Values.controllerLease.namespace }}
- --max-sessions={{ .Values.sessions.max }}
- --session-lifetime={{ .Values.sessions.lifetime }}
- --session-idle={{ .Values.sessions.idle }}
- --stuck-after={{ .Values.stuckAfter }}
{{- range .Values.controllerMetricsUrls }}
- --controller-metrics-url={{ . }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end }}
