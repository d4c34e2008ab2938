{{/* Names follow Helm's conventions so that overrides work the usual way. */}}
{{- define "provider-controller.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "provider-controller.fullname" -}}
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

{{- define "provider-controller.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "provider-controller.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: provider-controller
{{- end }}

{{- define "provider-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ include "provider-controller.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "provider-controller.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "provider-controller.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The controller's own default is kube-system; the release namespace keeps the chart's Role out of it. */}}
{{- define "provider-controller.leaseNamespace" -}}
{{- default "kube-system" .Values.leaderElection.namespace }}
{{- end }}

{{/*
Missing values and contradictions, caught at render time with the value at
fault named. Included by every template, so `--show-only` of any one of them
still checks everything. Types and formats are values.schema.json's job.
*/}}
{{- define "provider-controller.validate" -}}
{{- $v := .Values }}
{{- $secret := $v.kcp.kubeconfigSecret }}
{{- $_ := required "kcp.kubeconfigSecret.name is required: the Secret (in the release namespace) holding the kubeconfig of kcp's provider workspace" $secret.name }}
{{- $_ := required "kcp.kubeconfigSecret.key is required: the key of that Secret that holds the kubeconfig" $secret.key }}
{{- if and (gt (int $v.replicas) 1) (not $v.leaderElection.enabled) (not $v.sharding.enabled) }}
{{- fail "replicas > 1 needs leaderElection.enabled or sharding.enabled: without either every replica would provision the same tenants' clusters at once" }}
{{- end }}
{{- if and $v.leaderElection.enabled $v.sharding.enabled }}
{{- fail "sharding.enabled replaces the single leader: set leaderElection.enabled=false (leaderElection.namespace and .name still place and name the shard Leases)" }}
{{- end }}
{{- if and (or $v.leaderElection.enabled $v.sharding.enabled) (not $v.leaderElection.name) }}
{{- fail "leaderElection.name must be set when leader election or sharding is enabled" }}
{{- end }}
{{- if and $v.clusterApi.templateResources (not $v.clusterApi.enabled) }}
{{- fail "clusterApi.templateResources needs clusterApi.enabled: without Cluster API the controller makes no template objects" }}
{{- end }}
{{- if eq (int $v.metrics.port) (int $v.healthProbe.port) }}
{{- fail "metrics.port and healthProbe.port must differ" }}
{{- end }}
{{- end }}

{{- define "provider-controller.kcpKubeconfigPath" -}}
/etc/kcp/kubeconfig
{{- end }}

{{/* No --infra-kubeconfig: on the infrastructure cluster the controller is the pod's ServiceAccount. */}}
{{- define "provider-controller.args" -}}
- --kcp-kubeconfig={{ include "provider-controller.kcpKubeconfigPath" . }}
- --apiexport-endpoint-slice={{ .Values.kcp.apiExportEndpointSlice }}
- --max-concurrent-reconciles={{ .Values.maxConcurrentReconciles }}
{{- range .Values.otc.allowedAuthUrls }}
- --allowed-otc-auth-url={{ . }}
{{- end }}
- --otc-concurrency-per-credentials={{ .Values.otc.concurrencyPerCredentials }}
- --otc-timeout={{ .Values.otc.timeout }}
- --credential-cache-ttl={{ .Values.credentialCacheTtl }}
- --kubeconfig-validity-days={{ .Values.kubeconfigValidityDays }}
{{- if .Values.clusterApi.enabled }}
- --cluster-api
{{- end }}
- --max-clusters-per-workspace={{ .Values.maxClustersPerWorkspace }}
- --reconcile-timeout={{ .Values.reconcileTimeout }}
- --orphan-audit-interval={{ .Values.orphanAudit.interval }}
- --orphan-teardown={{ .Values.orphanAudit.teardown }}
{{- if .Values.leaderElection.enabled }}
- --leader-elect=true
- --leader-elect-resource-namespace={{ include "provider-controller.leaseNamespace" . }}
- --leader-elect-resource-name={{ .Values.leaderElection.name }}
{{- else }}
- --leader-elect=false
{{- end }}
{{- if .Values.sharding.enabled }}
- --sharded=true
- --shard-slots={{ .Values.sharding.slots }}
- --leader-elect-resource-namespace={{ include "provider-controller.leaseNamespace" . }}
- --leader-elect-resource-name={{ .Values.leaderElection.name }}
{{- end }}
- --metrics-bind-address=:{{ .Values.metrics.port }}
- --health-probe-bind-address=:{{ .Values.healthProbe.port }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end }}
