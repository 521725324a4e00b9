{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "grid-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: the release name, with the chart name unless the release name holds it. */}}
{{- define "grid-gateway.fullname" -}}
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

{{- define "grid-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "grid-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "grid-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Labels of the pod template: the selector labels and podLabels, nothing that changes with the chart's version, so
that an upgrade which changes nothing else in the pods does not roll them (each replica's prefix memory is kept).
*/}}
{{- define "grid-gateway.podLabels" -}}
{{ include "grid-gateway.selectorLabels" . }}
{{- with .Values.podLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The image: [registry/]repository, then @digest when set, else :tag (default: the chart's appVersion). */}}
{{- define "grid-gateway.image" -}}
{{- $image := .Values.image }}
{{- $repository := $image.repository }}
{{- if $image.registry }}
{{- $repository = printf "%s/%s" (trimSuffix "/" $image.registry) $image.repository }}
{{- end }}
{{- if $image.digest }}
{{- printf "%s@%s" $repository $image.digest }}
{{- else }}
{{- printf "%s:%s" $repository ($image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
-XX:ActiveProcessorCount: jvm.activeProcessorCount when it is a number (0: not set), else resources.requests.cpu
rounded up to whole CPUs, at least 2 (empty when there is no CPU request).
*/}}
{{- define "grid-gateway.activeProcessorCount" -}}
{{- $set := .Values.jvm.activeProcessorCount }}
{{- if not (kindIs "invalid" $set) }}
{{- if gt (int $set) 0 }}{{ int $set }}{{ end }}
{{- else }}
{{- $cpu := "" }}
{{- with .Values.resources.requests }}{{ with .cpu }}{{ $cpu = toString . }}{{ end }}{{ end }}
{{- if $cpu }}
{{- $millis := 0 }}
{{- if hasSuffix "m" $cpu }}
{{- $millis = atoi (trimSuffix "m" $cpu) }}
{{- else }}
{{- $millis = int (ceil (mulf (float64 $cpu) 1000)) }}
{{- end }}
{{- max 2 (div (add $millis 999) 1000) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
server.max_connections, checked against openFileLimit: auto as is; a number at most (openFileLimit - 512) / 2, the
connections that limit leaves room for (the gateway's formula, docs/configuration.md); 0 (no limit) only without
openFileLimit.
*/}}
{{- define "grid-gateway.maxConnections" -}}
{{- $set := .Values.server.maxConnections }}
{{- $limit := int .Values.openFileLimit }}
{{- if kindIs "string" $set }}
{{- $set | toJson }}
{{- else }}
{{- $room := max 16 (div (sub $limit 512) 2) }}
{{- if and (gt $limit 0) (eq (int $set) 0) }}
{{- fail (printf "server.maxConnections: 0 (no limit) with openFileLimit %d (expected: auto, or at most %d; or openFileLimit 0)" $limit $room) }}
{{- end }}
{{- if and (gt $limit 0) (gt (int $set) $room) }}
{{- fail (printf "server.maxConnections: %d (expected: auto, or at most %d, what openFileLimit %d leaves room for: (limit - 512) / 2)" (int $set) $room $limit) }}
{{- end }}
{{- $set | toJson }}
{{- end }}
{{- end }}

{{/* server.route_explain.token_file: the token file inside the mounted Secret directory. */}}
{{- define "grid-gateway.routeExplainTokenFile" -}}
{{- $explain := .Values.server.routeExplain }}
{{- if not $explain.tokenSecret }}
{{- fail "server.routeExplain.enabled is true but server.routeExplain.tokenSecret is empty (expected: an existing Secret holding the bearer tokens, one a line)" }}
{{- end }}
{{- printf "%s/%s" (trimSuffix "/" $explain.mountPath) $explain.secretKey }}
{{- end }}

{{/*
The image's entrypoint, run under the open-file limit: /bin/sh sets "ulimit -n" (soft and hard; lowering needs no
privilege) and then execs the same java command as the Dockerfile's ENTRYPOINT, which a test compares.
*/}}
{{- define "grid-gateway.entrypoint" -}}
java -jar /opt/grid-gateway/grid-gateway.jar
{{- end }}

{{/* JAVA_TOOL_OPTIONS: jvm.options, -XX:ActiveProcessorCount, then extraJavaOptions (appended: later flags win). */}}
{{- define "grid-gateway.javaToolOptions" -}}
{{- $options := list }}
{{- with .Values.jvm.options }}{{ $options = append $options . }}{{ end }}
{{- with include "grid-gateway.activeProcessorCount" . }}{{ $options = append $options (printf "-XX:ActiveProcessorCount=%s" .) }}{{ end }}
{{- with .Values.extraJavaOptions }}{{ $options = append $options . }}{{ end }}
{{- join " " $options }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the gateway's shutdown delay (the preStop window) plus its drain grace, rounded up
to seconds, plus terminationGraceMarginSeconds, so that Kubernetes never kills a gateway still draining.
*/}}
{{- define "grid-gateway.terminationGracePeriodSeconds" -}}
{{- $millis := add (int .Values.server.shutdownDelayMs) (int .Values.server.shutdownGraceMs) }}
{{- add (div (add $millis 999) 1000) (int .Values.terminationGraceMarginSeconds) }}
{{- end }}

{{- define "grid-gateway.labels" -}}
helm.sh/chart: {{ include "grid-gateway.chart" . }}
{{ include "grid-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
grid.gateway/site: {{ .Values.gridServing.site | quote }}
{{- end }}

{{- define "grid-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "grid-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The Secret holding the tag key file: tagKey.existingSecret, or the one this chart creates (tagKey.create), or
empty when tags are unsigned. Both at once is refused, so that an operator never wonders which key signs.
*/}}
{{- define "grid-gateway.tagKeySecret" -}}
{{- $key := .Values.tagKey }}
{{- if and $key.existingSecret $key.create }}
{{- fail "tagKey: set either existingSecret (use that Secret) or create (make one from tagKey.value), not both" }}
{{- end }}
{{- if $key.existingSecret }}
{{- $key.existingSecret }}
{{- else if $key.create }}
{{- if not $key.value }}
{{- fail "tagKey.create is true but tagKey.value is empty (expected: one key of at least 16 bytes a line)" }}
{{- end }}
{{- printf "%s-tag-key" (include "grid-gateway.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* gateway.tag_key_path: the key file inside the mounted Secret directory. */}}
{{- define "grid-gateway.tagKeyPath" -}}
{{- printf "%s/%s" (trimSuffix "/" .Values.tagKey.mountPath) .Values.tagKey.secretKey }}
{{- end }}

{{/* Directory the ConfigMap is mounted on, and the config file in it (the image's GRID_GATEWAY_CONFIG). */}}
{{- define "grid-gateway.configDir" -}}
/etc/grid-gateway
{{- end }}
{{- define "grid-gateway.configPath" -}}
{{ include "grid-gateway.configDir" . }}/config.yaml
{{- end }}

{{/*
Fails on a key of `map` that is not in `allowed`, naming it: a misspelt value (ttl_secs for ttlSecs) would
otherwise vanish from the rendered config and the gateway's default would apply unnoticed.
Call with (list "path.of.map" map (list "allowed" "keys")).
*/}}
{{- define "grid-gateway.onlyKeys" -}}
{{- $path := index . 0 }}
{{- $map := index . 1 }}
{{- $allowed := index . 2 }}
{{- range $k, $v := $map }}
{{- if not (has $k $allowed) }}
{{- fail (printf "%s.%s: unknown key (expected one of: %s)" $path $k (join ", " $allowed)) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The gateway's serving config (docs/design.md §7), snake_case keys. Scalars go through toJson so that each keeps its YAML
type (a number stays a number, a string stays quoted) and the gateway's own strict parser judges it.
*/}}
{{- define "grid-gateway.config" -}}
{{- $gs := .Values.gridServing -}}
{{- include "grid-gateway.onlyKeys" (list "gridServing" $gs (list "site" "role" "allowedPaths" "configPollMs" "accessLog" "upstream" "sites" "siteRoute")) -}}
{{- include "grid-gateway.onlyKeys" (list "gridServing.upstream" $gs.upstream (list "connectTimeoutMs" "firstByteTimeoutMs" "idleTimeoutMs" "maxConnectionsPerCluster" "maxConnectionAgeMs")) -}}
{{- include "grid-gateway.onlyKeys" (list "gridServing.siteRoute" $gs.siteRoute (list "load" "prefixAffinity")) -}}
{{- include "grid-gateway.onlyKeys" (list "gridServing.siteRoute.load" $gs.siteRoute.load (list "pollIntervalMs" "windowSecs" "queueMetric" "countSentSinceScrape" "orderBy" "dnsRefreshSecs")) -}}
{{- $server := .Values.server -}}
server:
  port: {{ $server.port | toJson }}
  admin_port: {{ $server.adminPort | toJson }}
  max_body_bytes: {{ $server.maxBodyBytes | toJson }}
  header_timeout_ms: {{ $server.headerTimeoutMs | toJson }}
  body_timeout_ms: {{ $server.bodyTimeoutMs | toJson }}
  send_timeout_ms: {{ $server.sendTimeoutMs | toJson }}
  shutdown_grace_ms: {{ $server.shutdownGraceMs | toJson }}
  shutdown_delay_ms: {{ $server.shutdownDelayMs | toJson }}
  {{- /* null leaves these to the gateway's defaults. */}}
  {{- if not (kindIs "invalid" $server.maxInflightBodyBytes) }}
  max_inflight_body_bytes: {{ $server.maxInflightBodyBytes | toJson }}
  {{- end }}
  {{- if not (kindIs "invalid" $server.maxConnections) }}
  max_connections: {{ include "grid-gateway.maxConnections" . }}
  {{- end }}
  {{- if not (kindIs "invalid" $server.host) }}
  host: {{ $server.host | toJson }}
  {{- end }}
  {{- if $server.adminHost }}
  admin_host: {{ $server.adminHost | toJson }}
  {{- else }}
  # The gateway's default; the pod sets GRID_GATEWAY_ADMIN_HOST to its IP, which wins (a ConfigMap shared by the
  # pods cannot hold each one's address).
  admin_host: "127.0.0.1"
  {{- end }}
  route_explain:
    {{- if $server.routeExplain.enabled }}
    enabled: true
    token_file: {{ include "grid-gateway.routeExplainTokenFile" . | toJson }}
    {{- else }}
    enabled: false
    {{- end }}
  {{- include "grid-gateway.listenerTls" (list "tls" .Values.tls.server .Values.tls.mountPath) }}
  {{- include "grid-gateway.listenerTls" (list "admin_tls" .Values.tls.admin .Values.tls.mountPath) }}
gateway:
  site: {{ $gs.site | toJson }}
  role: {{ $gs.role | toJson }}
  {{- with $gs.allowedPaths }}
  allowed_paths:
    {{- range . }}
    - {{ . | toJson }}
    {{- end }}
  {{- end }}
  {{- if include "grid-gateway.tagKeySecret" . }}
  tag_key_path: {{ include "grid-gateway.tagKeyPath" . | toJson }}
  {{- end }}
  config_poll_ms: {{ $gs.configPollMs | toJson }}
  access_log: {{ $gs.accessLog | toJson }}
  upstream:
    connect_timeout_ms: {{ $gs.upstream.connectTimeoutMs | toJson }}
    first_byte_timeout_ms: {{ $gs.upstream.firstByteTimeoutMs | toJson }}
    idle_timeout_ms: {{ $gs.upstream.idleTimeoutMs | toJson }}
    max_connections_per_cluster: {{ $gs.upstream.maxConnectionsPerCluster | toJson }}
    {{- if hasKey $gs.upstream "maxConnectionAgeMs" }}
    max_connection_age_ms: {{ $gs.upstream.maxConnectionAgeMs | toJson }}
    {{- end }}
    {{- if .Values.tls.upstream.secretName }}
    {{- include "grid-gateway.upstreamTls" (list .Values.tls.upstream .Values.tls.mountPath) | nindent 4 }}
    {{- end }}
sites:
  {{- range $i, $site := $gs.sites }}
  {{- include "grid-gateway.onlyKeys" (list (printf "gridServing.sites[%d]" $i) $site (list "name" "clusters")) }}
  - name: {{ $site.name | toJson }}
    clusters:
      {{- range $j, $c := $site.clusters }}
      {{- include "grid-gateway.onlyKeys" (list (printf "gridServing.sites[%d].clusters[%d]" $i $j) $c (list "name" "url" "models" "metricsUrl" "metricsUrls" "metricsDns" "maxQueueDepth" "maxRunning" "draining" "tls")) }}
      - name: {{ $c.name | toJson }}
        url: {{ $c.url | toJson }}
        models: {{ $c.models | toJson }}
        {{- if hasKey $c "metricsUrl" }}
        metrics_url: {{ $c.metricsUrl | toJson }}
        {{- end }}
        {{- if hasKey $c "metricsUrls" }}
        metrics_urls: {{ $c.metricsUrls | toJson }}
        {{- end }}
        {{- if hasKey $c "metricsDns" }}
        metrics_dns: {{ $c.metricsDns | toJson }}
        {{- end }}
        {{- if hasKey $c "maxQueueDepth" }}
        max_queue_depth: {{ $c.maxQueueDepth | toJson }}
        {{- end }}
        {{- if hasKey $c "maxRunning" }}
        max_running: {{ $c.maxRunning | toJson }}
        {{- end }}
        {{- if hasKey $c "draining" }}
        draining: {{ $c.draining | toJson }}
        {{- end }}
        {{- with $c.tls }}
        {{- include "grid-gateway.upstreamTls" (list . $.Values.tls.mountPath) | nindent 8 }}
        {{- end }}
      {{- end }}
  {{- end }}
plugins:
  grid_site_route:
    load:
      poll_interval_ms: {{ $gs.siteRoute.load.pollIntervalMs | toJson }}
      window_secs: {{ $gs.siteRoute.load.windowSecs | toJson }}
      queue_metric: {{ $gs.siteRoute.load.queueMetric | toJson }}
      {{- if hasKey $gs.siteRoute.load "countSentSinceScrape" }}
      count_sent_since_scrape: {{ $gs.siteRoute.load.countSentSinceScrape | toJson }}
      {{- end }}
      {{- if hasKey $gs.siteRoute.load "orderBy" }}
      order_by: {{ $gs.siteRoute.load.orderBy | toJson }}
      {{- end }}
      {{- if hasKey $gs.siteRoute.load "dnsRefreshSecs" }}
      dns_refresh_secs: {{ $gs.siteRoute.load.dnsRefreshSecs | toJson }}
      {{- end }}
    {{- $sharing := .Values.prefixSharing }}
    {{- if or $gs.siteRoute.prefixAffinity $sharing.redisUrl }}
    {{- with $gs.siteRoute.prefixAffinity }}
    {{- include "grid-gateway.onlyKeys" (list "gridServing.siteRoute.prefixAffinity" . (list "capacity" "ttlSecs" "prefillTokensPerSecond" "queuedRequestSeconds" "learnFromUsage")) }}
    {{- end }}
    {{- $pa := $gs.siteRoute.prefixAffinity | default dict }}
    prefix_affinity:
      {{- if hasKey $pa "capacity" }}
      capacity: {{ $pa.capacity | toJson }}
      {{- end }}
      {{- if hasKey $pa "ttlSecs" }}
      ttl_secs: {{ $pa.ttlSecs | toJson }}
      {{- end }}
      {{- if hasKey $pa "prefillTokensPerSecond" }}
      prefill_tokens_per_second: {{ $pa.prefillTokensPerSecond | toJson }}
      {{- end }}
      {{- if hasKey $pa "queuedRequestSeconds" }}
      queued_request_seconds: {{ $pa.queuedRequestSeconds | toJson }}
      {{- end }}
      {{- if hasKey $pa "learnFromUsage" }}
      learn_from_usage: {{ $pa.learnFromUsage | toJson }}
      {{- end }}
      {{- if $sharing.redisUrl }}
      sharing:
        redis_url: {{ $sharing.redisUrl | toJson }}
        stream: {{ $sharing.stream | toJson }}
        warm_start_ms: {{ $sharing.warmStartMs | toJson }}
        {{- if $sharing.shareBacklog }}
        share_backlog: true
        {{- end }}
        {{- if $sharing.confirmWaitMs }}
        confirm_wait_ms: {{ $sharing.confirmWaitMs | toJson }}
        {{- end }}
        {{- if $sharing.password.existingSecret }}
        password_file: {{ printf "%s/%s" (trimSuffix "/" $sharing.password.mountPath) $sharing.password.secretKey | toJson }}
        {{- end }}
      {{- end }}
    {{- end }}
{{- with .Values.tracing }}
{{- if .otlpEndpoint }}
tracing:
  otlp_endpoint: {{ .otlpEndpoint | toJson }}
  service_name: {{ .serviceName | toJson }}
  sample_ratio: {{ .sampleRatio | toJson }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Checksum of the settings the gateway reads only at start (listeners, header deadline, shutdown delay and grace,
gateway.upstream, prefix sharing, tracing) and of tls (gateway.upstream.tls, and the listeners' TLS, whose turning on
or off or client_auth a reload refuses): a change to them must roll the pods. server.max_body_bytes, body_timeout_ms
and send_timeout_ms are applied live, so they are left out.
*/}}
{{- define "grid-gateway.startOnlyChecksum" -}}
{{- $s := .Values.server }}
{{- $ports := dict "port" $s.port "adminPort" $s.adminPort "headerTimeoutMs" $s.headerTimeoutMs "shutdownGraceMs" $s.shutdownGraceMs "shutdownDelayMs" $s.shutdownDelayMs "host" $s.host "adminHost" $s.adminHost "maxConnections" $s.maxConnections }}
{{- dict "server" $ports "upstream" .Values.gridServing.upstream "prefixSharing" .Values.prefixSharing "tracing" .Values.tracing "tls" .Values.tls | toJson | sha256sum }}
{{- end }}

{{/* The TCP ports of every cluster url, metricsUrl, metricsUrls and metricsDns, sorted and unique, as a JSON array of numbers. */}}
{{- define "grid-gateway.enginePorts" -}}
{{- $ports := list }}
{{- range .Values.gridServing.sites }}
{{- range .clusters }}
{{- $urls := list .url }}
{{- with .metricsUrl }}{{ $urls = append $urls . }}{{ end }}
{{- with .metricsUrls }}{{ $urls = concat $urls . }}{{ end }}
{{- with .metricsDns }}{{ $urls = append $urls . }}{{ end }}
{{- range $urls }}
{{- $u := urlParse . }}
{{- $hostPort := splitList ":" $u.host }}
{{- if gt (len $hostPort) 1 }}
{{- $ports = append $ports (atoi (last $hostPort)) }}
{{- else if eq $u.scheme "https" }}
{{- $ports = append $ports 443 }}
{{- else }}
{{- $ports = append $ports 80 }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- $ports | uniq | sortAlpha | toJson }}
{{- end }}

{{/*
A listener's TLS block (server.tls or server.admin_tls) from its values: (list key values mountPath). Nothing when
the values name no Secret.
*/}}
{{- define "grid-gateway.listenerTls" -}}
{{- $key := index . 0 -}}{{- $v := index . 1 -}}{{- $dir := printf "%s/%s" (index . 2) $v.secretName -}}
{{- if $v.secretName }}
  {{ $key }}:
    cert_file: {{ printf "%s/tls.crt" $dir | toJson }}
    key_file: {{ printf "%s/tls.key" $dir | toJson }}
    {{- if $v.clientAuth }}
    client_ca_file: {{ printf "%s/ca.crt" $dir | toJson }}
    client_auth: {{ $v.clientAuth | toJson }}
    {{- end }}
{{- end }}
{{- end -}}

{{/*
An upstream TLS block (gateway.upstream.tls or a cluster's tls), at column 0: (list values mountPath).
*/}}
{{- define "grid-gateway.upstreamTls" -}}
{{- $v := index . 0 -}}{{- $dir := printf "%s/%s" (index . 1) $v.secretName -}}
tls:
  ca_file: {{ printf "%s/ca.crt" $dir | toJson }}
  {{- if $v.clientCertificate }}
  cert_file: {{ printf "%s/tls.crt" $dir | toJson }}
  key_file: {{ printf "%s/tls.key" $dir | toJson }}
  {{- end }}
  {{- if $v.serverName }}
  server_name: {{ $v.serverName | toJson }}
  {{- end }}
{{- end -}}

{{/*
Every Secret the TLS values name, once each, sorted: each is mounted at <tls.mountPath>/<name>.
*/}}
{{- define "grid-gateway.tlsSecrets" -}}
{{- $names := dict -}}
{{- range $block := list .Values.tls.server .Values.tls.admin .Values.tls.upstream -}}
{{- with $block.secretName }}{{ $_ := set $names . true }}{{ end -}}
{{- end -}}
{{- range $site := .Values.gridServing.sites -}}
{{- range $c := $site.clusters -}}
{{- with $c.tls }}{{ with .secretName }}{{ $_ := set $names . true }}{{ end }}{{ end -}}
{{- end -}}
{{- end -}}
{{- keys $names | sortAlpha | join "," -}}
{{- end -}}
