{{/*
Helpers shared by the templates. Every object name is fixed (kubemaint-serve, kubemaint-agent, …) and
everything lives in the kubemaint namespace, as in infra/k8s: the admission policies name the service
accounts by their full user names (system:serviceaccount:kubemaint:…), and the CLI and the executor
find the slots, Jobs and requests there.
*/}}

{{/* serve's image; the executor Jobs run the same one unless config.executor.image says otherwise. */}}
{{- define "kubemaint.serveImage" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end }}

{{- define "kubemaint.agentImage" -}}
{{- printf "%s:%s" .Values.agent.image.repository (.Values.agent.image.tag | default .Chart.AppVersion) -}}
{{- end }}

{{/*
kubemaint.yaml as serve reads it: `config` from values (a map, or the file's text from
`--set-file config=kubemaint.yaml`), with executor.image set to serve's image when it names none, so a
mirrored or pinned serve image is also the executor's.
*/}}
{{- define "kubemaint.configData" -}}
{{- $config := dict -}}
{{- if kindIs "string" .Values.config -}}
{{- $config = fromYaml .Values.config -}}
{{- if hasKey $config "Error" -}}
{{- fail (printf "config: the text given is not a YAML map (%s); pass a kubemaint.yaml with --set-file config=kubemaint.yaml" (get $config "Error")) -}}
{{- end -}}
{{- else -}}
{{- $config = deepCopy (.Values.config | default dict) -}}
{{- end -}}
{{- if not (dig "executor" "image" "" $config) -}}
{{- $executor := get $config "executor" | default dict -}}
{{- $_ := set $executor "image" (include "kubemaint.serveImage" .) -}}
{{- $_ := set $config "executor" $executor -}}
{{- end -}}
{{- toYaml $config -}}
{{- end }}

{{/*
The image repositories the executor-Job admission policy accepts, as a CEL list literal: serve's, the
one config.executor.image names (its tag or digest cut off), and executor.extraImageRepositories.
*/}}
{{- define "kubemaint.executorRepositories" -}}
{{- $repos := list .Values.image.repository -}}
{{- $configured := "" -}}
{{- if kindIs "map" .Values.config -}}
{{- $configured = dig "executor" "image" "" .Values.config -}}
{{- else -}}
{{- $configured = dig "executor" "image" "" (fromYaml .Values.config) -}}
{{- end -}}
{{- with $configured -}}
{{- $repos = append $repos (regexReplaceAll ":[^:/]*$" (regexReplaceAll "@.*$" . "") "") -}}
{{- end -}}
{{- range .Values.executor.extraImageRepositories -}}
{{- $repos = append $repos . -}}
{{- end -}}
{{- include "kubemaint.celList" (uniq $repos) -}}
{{- end }}

{{/*
The priority classes the executor-Job policy accepts: the config's default, system-node-critical, and
whatever config.executor.priorityClassName names ("" runs without one, which the policy allows).
*/}}
{{- define "kubemaint.executorPriorityClasses" -}}
{{- $config := .Values.config -}}
{{- if kindIs "string" $config }}{{ $config = fromYaml $config }}{{ end -}}
{{- $classes := list "system-node-critical" -}}
{{- with dig "executor" "priorityClassName" "" $config -}}
{{- $classes = append $classes . -}}
{{- end -}}
{{- include "kubemaint.celList" (uniq $classes) -}}
{{- end }}

{{/* A list of strings as a CEL list literal: ['a', 'b'] (the schema keeps quotes out of them). */}}
{{- define "kubemaint.celList" -}}
{{- $quoted := list -}}
{{- range . -}}
{{- $quoted = append $quoted (printf "'%s'" .) -}}
{{- end -}}
{{- printf "[%s]" (join ", " $quoted) -}}
{{- end }}

{{/* people.users and people.groups as RBAC subjects. */}}
{{- define "kubemaint.peopleSubjects" -}}
{{- range .Values.people.users }}
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: {{ . | quote }}
{{- end }}
{{- range .Values.people.groups }}
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: {{ . | quote }}
{{- end }}
{{- end }}
