#!/usr/bin/env bash
# Regenerates kubesim's protobuf code from Kubernetes' own definitions, for the versions pinned in
# scripts/go/go.mod (k8s.io/api and friends, from the Go module cache or the Go proxy):
#   src/api/protobuf/gen/**_pb.ts  the .proto files of the served groups, by protoc-gen-es (buf runs
#                                  it); comments are stripped first (the reflection is all kubesim uses)
#   src/api/protobuf/fields.gen.ts what the Go types add: JSON names, pointers, omitempty, kinds
# Run from anywhere: bash packages/kubesim/scripts/generate-protobuf.sh
set -euo pipefail
package=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$package/../.." && pwd)
fields_module="$package/scripts/go"
out="$package/src/api/protobuf"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod PATH="$root/node_modules/.bin:$PATH"

for tool in go buf protoc-gen-es; do
  command -v "$tool" >/dev/null || { echo "generate-protobuf: $tool is not on PATH (go: install Go; buf, protoc-gen-es: npm install)" >&2; exit 1; }
done

module_dir() { (cd "$fields_module" && go mod download "$1" && go list -m -f '{{.Dir}}' "$1"); }
api=$(module_dir k8s.io/api)
machinery=$(module_dir k8s.io/apimachinery)
extensions=$(module_dir k8s.io/apiextensions-apiserver)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy() { # <module dir> <import path of the module> <package path>
  mkdir -p "$work/$2/$3"
  grep -v '^[[:space:]]*//' "$1/$3/generated.proto" > "$work/$2/$3/generated.proto"
}
for group in admissionregistration apps authentication authorization autoscaling batch coordination core discovery events policy rbac scheduling; do
  copy "$api" k8s.io/api "$group/v1"
done
for p in pkg/api/resource pkg/apis/meta/v1 pkg/runtime pkg/runtime/schema pkg/util/intstr; do
  copy "$machinery" k8s.io/apimachinery "$p"
done
copy "$extensions" k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1

rm -rf "$out/gen"
buf generate "$work" --template "{\"version\":\"v2\",\"plugins\":[{\"local\":\"protoc-gen-es\",\"out\":\"$out/gen\",\"opt\":[\"target=ts\",\"import_extension=js\"]}]}"
(cd "$fields_module" && go run ./proto-fields) > "$out/fields.gen.ts"
echo "generated $(find "$out/gen" -name '*.ts' | wc -l) files in $out/gen and $out/fields.gen.ts from $(basename "$api")"
