{{/*
Names, labels and the small pieces the templates share.
*/}}

{{/* The chart's name, or nameOverride. */}}
{{- define "karpenter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The base name of every object: fullnameOverride; else the release name when it already contains
the chart's name (a release called "karpenter" gives "karpenter"); else "<release>-<name>".
*/}}
{{- define "karpenter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "karpenter.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* "karpenter-0.1.0", for the helm.sh/chart label. */}}
{{- define "karpenter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels that pick out this release's controller pods. */}}
{{- define "karpenter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "karpenter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The labels of every object. */}}
{{- define "karpenter.labels" -}}
helm.sh/chart: {{ include "karpenter.chart" . }}
{{ include "karpenter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The annotations block of an object's metadata, when additionalAnnotations has any. */}}
{{- define "karpenter.annotations" -}}
{{- with .Values.additionalAnnotations }}
{{- printf "annotations:\n%s" (toYaml . | indent 2) }}
{{- end }}
{{- end }}

{{/* The ServiceAccount the controller runs as. */}}
{{- define "karpenter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "karpenter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository[:tag][@digest]; the tag defaults to the chart's appVersion. */}}
{{- define "karpenter.controller.image" -}}
{{- $image := .Values.controller.image }}
{{- $ref := required "controller.image.repository is required" $image.repository }}
{{- $tag := default .Chart.AppVersion $image.tag | toString }}
{{- if $tag }}{{ $ref = printf "%s:%s" $ref $tag }}{{ end }}
{{- if $image.digest }}{{ $ref = printf "%s@%s" $ref $image.digest }}{{ end }}
{{- $ref }}
{{- end }}

{{/*
The leader-election Lease's name. The controller is told it (LEADER_ELECTION_NAME) and the Role
grants access to exactly that Lease, so the two cannot drift apart.
*/}}
{{- define "karpenter.leaseName" -}}
karpenter-leader-election
{{- end }}

{{/*
A value as the text of an environment variable: nothing (unset) becomes "", anything else its
text, quoted. The controller reads "" as "not set" and uses its default.
*/}}
{{- define "karpenter.envValue" -}}
{{- if kindIs "invalid" . }}""{{ else }}{{ toString . | quote }}{{ end }}
{{- end }}

{{/*
settings.featureGates as the controller reads FEATURE_GATES: "Name=bool,...", each gate named with
its default when the value is missing. Only the gates the controller knows are written: it refuses
names it does not know.
*/}}
{{- define "karpenter.featureGates" -}}
{{- $gates := .Values.settings.featureGates | default dict }}
{{- $known := list
      (list "NodeRepair" "nodeRepair" false)
      (list "ReservedCapacity" "reservedCapacity" true)
      (list "SpotToSpotConsolidation" "spotToSpotConsolidation" false)
      (list "NodeOverlay" "nodeOverlay" false)
      (list "StaticCapacity" "staticCapacity" false)
      (list "CapacityBuffer" "capacityBuffer" false)
      (list "BalancedConsolidation" "balancedConsolidation" false) }}
{{- $items := list }}
{{- range $known }}
{{- $value := index . 2 }}
{{- if hasKey $gates (index . 1) }}
{{- $given := get $gates (index . 1) }}
{{- if not (kindIs "invalid" $given) }}{{ $value = $given }}{{ end }}
{{- end }}
{{- $items = append $items (printf "%s=%v" (index . 0) $value) }}
{{- end }}
{{- join "," $items }}
{{- end }}

{{/*
Affinity with a labelSelector for this release's pods filled into every pod (anti-)affinity term
that has none, so that the default "one replica per host" needs no selector in values.
*/}}
{{- define "karpenter.affinity" -}}
{{- $affinity := deepCopy (.Values.affinity | default dict) }}
{{- $selector := dict "matchLabels" (include "karpenter.selectorLabels" . | fromYaml) }}
{{- range $kind := list "podAffinity" "podAntiAffinity" }}
{{- $rules := get $affinity $kind | default dict }}
{{- range (get $rules "requiredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- if not .labelSelector }}{{ $_ := set . "labelSelector" $selector }}{{ end }}
{{- end }}
{{- range (get $rules "preferredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- if and .podAffinityTerm (not .podAffinityTerm.labelSelector) }}
{{- $_ := set .podAffinityTerm "labelSelector" $selector }}
{{- end }}
{{- end }}
{{- end }}
{{- if $affinity }}{{ toYaml $affinity }}{{ end }}
{{- end }}

{{/* topologySpreadConstraints, each given this release's pods as its labelSelector if it has none. */}}
{{- define "karpenter.topologySpreadConstraints" -}}
{{- $constraints := deepCopy (.Values.topologySpreadConstraints | default list) }}
{{- $selector := dict "matchLabels" (include "karpenter.selectorLabels" . | fromYaml) }}
{{- range $constraints }}
{{- if not .labelSelector }}{{ $_ := set . "labelSelector" $selector }}{{ end }}
{{- end }}
{{- if $constraints }}{{ toYaml $constraints }}{{ end }}
{{- end }}

{{/* The controller container's security context: hardened defaults, controller.securityContext over them. */}}
{{- define "karpenter.controller.securityContext" -}}
{{- $defaults := dict
      "runAsNonRoot" true
      "runAsUser" 65532
      "runAsGroup" 65532
      "readOnlyRootFilesystem" true
      "allowPrivilegeEscalation" false
      "capabilities" (dict "drop" (list "ALL"))
      "seccompProfile" (dict "type" "RuntimeDefault") }}
{{- toYaml (mergeOverwrite $defaults (deepCopy (.Values.controller.securityContext | default dict))) }}
{{- end }}

{{/*
Upstream values this controller has no counterpart for yet. At their defaults they are left out of
the environment (the controller behaves as upstream does at those defaults, or as its settings
page says); any other value fails the render, naming the value, rather than being ignored.
*/}}
{{- define "karpenter.refuseUnsupported" -}}
{{- $s := .Values.settings | default dict }}
{{- $defaults := dict "eksControlPlane" false "enableZonalShift" false }}
{{- range $key, $default := $defaults }}
{{- if and (hasKey $s $key) (ne (toString (get $s $key)) (toString $default)) }}
{{- fail (printf "settings.%s=%v is not supported by karpenter-cpp yet (leave it at %v)" $key (get $s $key) $default) }}
{{- end }}
{{- end }}
{{- if ne (toJson (.Values.logOutputPaths | default (list "stdout"))) (toJson (list "stdout")) }}
{{- fail "logOutputPaths: karpenter-cpp writes its logs to stdout only (leave it at [stdout])" }}
{{- end }}
{{- if ne (toJson (.Values.logErrorOutputPaths | default (list "stderr"))) (toJson (list "stderr")) }}
{{- fail "logErrorOutputPaths: karpenter-cpp writes every log line to stdout (leave it at [stderr])" }}
{{- end }}
{{- end }}
