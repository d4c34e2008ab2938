{{/* Names follow Helm's conventions so that overrides work the usual way. */}}
{{- define "otc-ccm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "otc-ccm.fullname" -}}
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

{{- define "otc-ccm.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "otc-ccm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: cloud-controller-manager
{{- end }}

{{- define "otc-ccm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "otc-ccm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "otc-ccm.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "otc-ccm.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret the workload mounts. */}}
{{- define "otc-ccm.secretName" -}}
{{- $cc := .Values.cloudConfig }}
{{- if and (not $cc.create) $cc.existingSecret }}
{{- $cc.existingSecret }}
{{- else }}
{{- required "cloudConfig.secretName must not be empty" $cc.secretName }}
{{- end }}
{{- end }}

{{/*
One cloud.conf line, `key = "value"`, or nothing for an empty value. The
CCM's parser (like gcfg) ends a quoted value at the next double quote and
gcfg reads backslashes as escapes, so values with either, or with a line
break, cannot be written faithfully: rendering fails instead.
*/}}
{{- define "otc-ccm.iniLine" -}}
{{- $value := toString (default "" .value) }}
{{- if $value }}
{{- if regexMatch "[\"\\\\\\n\\r]" $value }}
{{- fail (printf "cloudConfig.%s must not contain double quotes, backslashes or line breaks (cloud.conf cannot carry them)" .name) }}
{{- end }}
{{ .key }} = "{{ $value }}"
{{- end }}
{{- end }}

{{/* cloud.conf, as the CCM parses it (packages/cloud-provider-otc/src/config/cloud-config.ts). */}}
{{- define "otc-ccm.cloudConf" -}}
{{- $cc := .Values.cloudConfig -}}
[Global]
{{- include "otc-ccm.iniLine" (dict "key" "access-key" "name" "accessKey" "value" $cc.accessKey) }}
{{- include "otc-ccm.iniLine" (dict "key" "secret-key" "name" "secretKey" "value" $cc.secretKey) }}
{{- include "otc-ccm.iniLine" (dict "key" "security-token" "name" "securityToken" "value" $cc.securityToken) }}
{{- include "otc-ccm.iniLine" (dict "key" "region" "name" "region" "value" $cc.region) }}
{{- include "otc-ccm.iniLine" (dict "key" "project-id" "name" "projectId" "value" $cc.projectId) }}
{{- include "otc-ccm.iniLine" (dict "key" "project-name" "name" "projectName" "value" $cc.projectName) }}
{{- include "otc-ccm.iniLine" (dict "key" "domain-name" "name" "domainName" "value" $cc.domainName) }}
{{- include "otc-ccm.iniLine" (dict "key" "auth-url" "name" "authUrl" "value" $cc.authUrl) }}
{{- if $cc.subnetId }}

[LoadBalancer]
{{- include "otc-ccm.iniLine" (dict "key" "subnet-id" "name" "subnetId" "value" $cc.subnetId) }}
{{- include "otc-ccm.iniLine" (dict "key" "network-id" "name" "networkId" "value" $cc.networkId) }}
{{- include "otc-ccm.iniLine" (dict "key" "bandwidth-mbit" "name" "bandwidthMbit" "value" $cc.bandwidthMbit) }}
{{- include "otc-ccm.iniLine" (dict "key" "cluster-name" "name" "clusterName" "value" $cc.clusterName) }}
{{- include "otc-ccm.iniLine" (dict "key" "availability-zones" "name" "availabilityZones" "value" (join "," (default (list) $cc.availabilityZones))) }}
{{- end }}
{{- with $cc.endpoints }}

[Endpoints]
{{- range $service := list "iam" "ecs" "vpc" "elb" }}
{{- include "otc-ccm.iniLine" (dict "key" $service "name" (printf "endpoints.%s" $service) "value" (get $cc.endpoints $service)) }}
{{- end }}
{{- end }}
{{ end }}

{{/*
Contradictions and values the CCM would reject, caught at render time with
the value at fault named. Included by every template, so `--show-only` of any
one of them still checks everything.
*/}}
{{- define "otc-ccm.validate" -}}
{{- $v := .Values }}
{{- $cc := $v.cloudConfig }}
{{- if not (has $v.kind (list "DaemonSet" "Deployment")) }}
{{- fail (printf "kind must be DaemonSet or Deployment, not %q" (toString $v.kind)) }}
{{- end }}
{{- if $cc.create }}
{{- if or (not $cc.accessKey) (not $cc.secretKey) }}
{{- fail "cloudConfig.create=true needs cloudConfig.accessKey and cloudConfig.secretKey (or set create=false and provide the Secret through cloudConfig.existingSecret)" }}
{{- end }}
{{- if not $cc.region }}
{{- fail "cloudConfig.create=true needs cloudConfig.region" }}
{{- end }}
{{- if $cc.existingSecret }}
{{- fail "cloudConfig.existingSecret is used only with cloudConfig.create=false; with create=true the chart renders cloudConfig.secretName" }}
{{- end }}
{{- end }}
{{- if and $cc.subnetId (not (regexMatch "^[1-9][0-9]*$" (toString (default "" $cc.bandwidthMbit)))) }}
{{- fail (printf "cloudConfig.bandwidthMbit must be a positive integer (Mbit/s), not %q" (toString $cc.bandwidthMbit)) }}
{{- end }}
{{- range $key, $_ := $cc.endpoints }}
{{- if not (has $key (list "iam" "ecs" "vpc" "elb")) }}
{{- fail (printf "cloudConfig.endpoints.%s is not a known service; use iam, ecs, vpc or elb" $key) }}
{{- end }}
{{- end }}
{{- if not $v.controllers }}
{{- fail "controllers must name at least one controller (\"*\" for all)" }}
{{- end }}
{{- range $v.controllers }}
{{- if not (regexMatch "^(\\*|-?(cloud-node|cloud-node-lifecycle|service))$" (toString .)) }}
{{- fail (printf "controllers: unknown controller %q; use \"*\", cloud-node, cloud-node-lifecycle or service, or -NAME to turn one off" (toString .)) }}
{{- end }}
{{- end }}
{{- if and (eq $v.kind "Deployment") (gt (int $v.replicas) 1) (not $v.leaderElection.enabled) }}
{{- fail "replicas > 1 needs leaderElection.enabled: without it every replica would act on nodes and load balancers at once" }}
{{- end }}
{{- if and (eq $v.kind "DaemonSet") (not $v.leaderElection.enabled) }}
{{- fail "kind=DaemonSet runs one CCM per selected node and needs leaderElection.enabled; use kind=Deployment with replicas=1 to run without it" }}
{{- end }}
{{- if and $v.leaderElection.enabled (or (not $v.leaderElection.namespace) (not $v.leaderElection.name)) }}
{{- fail "leaderElection.namespace and leaderElection.name must be set when leader election is enabled" }}
{{- end }}
{{- if eq (int $v.metrics.port) (int $v.healthProbe.port) }}
{{- fail "metrics.port and healthProbe.port must differ: both bind on the node's network" }}
{{- end }}
{{- end }}

{{- define "otc-ccm.args" -}}
- --cloud-provider=otc
- --cloud-config=/etc/otc/cloud.conf
{{- if and .Values.clusterName (not .Values.cloudConfig.clusterName) }}
- --cluster-name={{ .Values.clusterName }}
{{- end }}
- --controllers={{ join "," .Values.controllers }}
{{- if .Values.leaderElection.enabled }}
- --leader-elect=true
- --leader-elect-resource-namespace={{ .Values.leaderElection.namespace }}
- --leader-elect-resource-name={{ .Values.leaderElection.name }}
{{- else }}
- --leader-elect=false
{{- end }}
- --metrics-bind-address=:{{ .Values.metrics.port }}
- --health-probe-bind-address=:{{ .Values.healthProbe.port }}
{{- with .Values.nodeMonitorPeriod }}
- --node-monitor-period={{ . }}
{{- end }}
{{- with .Values.nodeStatusUpdateFrequency }}
- --node-status-update-frequency={{ . }}
{{- end }}
{{- with .Values.concurrentServiceSyncs }}
- --concurrent-service-syncs={{ . }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . }}
{{- end }}
{{- end }}

{{/* The pod, shared by the DaemonSet and the Deployment. */}}
{{- define "otc-ccm.podTemplate" -}}
metadata:
  labels:
    {{- include "otc-ccm.selectorLabels" . | nindent 4 }}
    {{- with .Values.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- if or .Values.cloudConfig.create .Values.podAnnotations }}
  annotations:
    {{- if .Values.cloudConfig.create }}
    # Pods roll when cloud.conf changes; the CCM reads it only at start.
    checksum/cloud-config: {{ include "otc-ccm.cloudConf" . | sha256sum }}
    {{- end }}
    {{- with .Values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
spec:
  serviceAccountName: {{ include "otc-ccm.serviceAccountName" . }}
  priorityClassName: {{ .Values.priorityClassName }}
  hostNetwork: {{ .Values.hostNetwork }}
  dnsPolicy: {{ .Values.dnsPolicy }}
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- range . }}
    {{- if kindIs "map" . }}
    - name: {{ .name }}
    {{- else }}
    - name: {{ . }}
    {{- end }}
    {{- end }}
  {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if or .Values.affinity (eq .Values.kind "Deployment") }}
  affinity:
    {{- if .Values.affinity }}
    {{- toYaml .Values.affinity | nindent 4 }}
    {{- else }}
    # Replicas on one node would bind the same host ports.
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "otc-ccm.selectorLabels" . | nindent 14 }}
    {{- end }}
  {{- end }}
  tolerations:
    # Nodes stay tainted until a CCM has initialised them, this one included.
    - key: node.cloudprovider.kubernetes.io/uninitialized
      operator: Equal
      value: "true"
      effect: NoSchedule
    - key: node-role.kubernetes.io/control-plane
      operator: Exists
      effect: NoSchedule
    # Nodes are not ready before the CNI runs, and the CNI may wait for the CCM.
    - key: node.kubernetes.io/not-ready
      operator: Exists
      effect: NoSchedule
    - key: node.kubernetes.io/not-ready
      operator: Exists
      effect: NoExecute
    {{- with .Values.tolerations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .Values.podSecurityContext }}
  securityContext:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: cloud-controller-manager
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      args:
        {{- include "otc-ccm.args" . | nindent 8 }}
      {{- if or .Values.apiServer.host .Values.env }}
      env:
        {{- with .Values.apiServer.host }}
        - name: KUBERNETES_SERVICE_HOST
          value: {{ . | quote }}
        - name: KUBERNETES_SERVICE_PORT
          value: {{ required "apiServer.port is required with apiServer.host" $.Values.apiServer.port | quote }}
        {{- end }}
        {{- with .Values.env }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- end }}
      ports:
        - name: metrics
          containerPort: {{ .Values.metrics.port }}
          protocol: TCP
        - name: healthz
          containerPort: {{ .Values.healthProbe.port }}
          protocol: TCP
      {{- with .Values.livenessProbe }}
      livenessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.readinessProbe }}
      readinessProbe:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.securityContext }}
      securityContext:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      volumeMounts:
        - name: cloud-config
          mountPath: /etc/otc
          readOnly: true
        # The root filesystem is read-only; Node.js and its libraries may still want a scratch directory.
        - name: tmp
          mountPath: /tmp
  volumes:
    - name: cloud-config
      secret:
        secretName: {{ include "otc-ccm.secretName" . }}
        # 0440, written in decimal: YAML 1.1 and 1.2 parsers disagree on 0440.
        defaultMode: 288
        items:
          - key: cloud.conf
            path: cloud.conf
    - name: tmp
      emptyDir:
        medium: Memory
        sizeLimit: 16Mi
{{- end }}
