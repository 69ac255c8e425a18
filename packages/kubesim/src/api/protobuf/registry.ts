/**
 * Kubernetes' protobuf messages for the groups kubesim serves, from the code protoc-gen-es generated
 * out of their `.proto` files (gen/, by scripts/generate-protobuf.sh), and which message an
 * apiVersion/kind is (fields.gen.ts, from the Go scheme).
 */
import { createRegistry, type DescMessage } from '@bufbuild/protobuf';
import { file_k8s_io_api_admissionregistration_v1_generated } from './gen/k8s.io/api/admissionregistration/v1/generated_pb.js';
import { file_k8s_io_api_apps_v1_generated } from './gen/k8s.io/api/apps/v1/generated_pb.js';
import { file_k8s_io_api_authentication_v1_generated } from './gen/k8s.io/api/authentication/v1/generated_pb.js';
import { file_k8s_io_api_authorization_v1_generated } from './gen/k8s.io/api/authorization/v1/generated_pb.js';
import { file_k8s_io_api_autoscaling_v1_generated } from './gen/k8s.io/api/autoscaling/v1/generated_pb.js';
import { file_k8s_io_api_batch_v1_generated } from './gen/k8s.io/api/batch/v1/generated_pb.js';
import { file_k8s_io_api_coordination_v1_generated } from './gen/k8s.io/api/coordination/v1/generated_pb.js';
import { file_k8s_io_api_core_v1_generated } from './gen/k8s.io/api/core/v1/generated_pb.js';
import { file_k8s_io_api_discovery_v1_generated } from './gen/k8s.io/api/discovery/v1/generated_pb.js';
import { file_k8s_io_api_events_v1_generated } from './gen/k8s.io/api/events/v1/generated_pb.js';
import { file_k8s_io_api_policy_v1_generated } from './gen/k8s.io/api/policy/v1/generated_pb.js';
import { file_k8s_io_api_rbac_v1_generated } from './gen/k8s.io/api/rbac/v1/generated_pb.js';
import { file_k8s_io_api_scheduling_v1_generated } from './gen/k8s.io/api/scheduling/v1/generated_pb.js';
import { file_k8s_io_apiextensions_apiserver_pkg_apis_apiextensions_v1_generated } from './gen/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated_pb.js';
import { file_k8s_io_apimachinery_pkg_api_resource_generated } from './gen/k8s.io/apimachinery/pkg/api/resource/generated_pb.js';
import { file_k8s_io_apimachinery_pkg_apis_meta_v1_generated } from './gen/k8s.io/apimachinery/pkg/apis/meta/v1/generated_pb.js';
import { file_k8s_io_apimachinery_pkg_runtime_generated } from './gen/k8s.io/apimachinery/pkg/runtime/generated_pb.js';
import { file_k8s_io_apimachinery_pkg_util_intstr_generated } from './gen/k8s.io/apimachinery/pkg/util/intstr/generated_pb.js';
import { KIND_MESSAGES } from './fields.gen.js';

const registry = createRegistry(
  file_k8s_io_api_admissionregistration_v1_generated,
  file_k8s_io_api_apps_v1_generated,
  file_k8s_io_api_authentication_v1_generated,
  file_k8s_io_api_authorization_v1_generated,
  file_k8s_io_api_autoscaling_v1_generated,
  file_k8s_io_api_batch_v1_generated,
  file_k8s_io_api_coordination_v1_generated,
  file_k8s_io_api_core_v1_generated,
  file_k8s_io_api_discovery_v1_generated,
  file_k8s_io_api_events_v1_generated,
  file_k8s_io_api_policy_v1_generated,
  file_k8s_io_api_rbac_v1_generated,
  file_k8s_io_api_scheduling_v1_generated,
  file_k8s_io_apiextensions_apiserver_pkg_apis_apiextensions_v1_generated,
  file_k8s_io_apimachinery_pkg_api_resource_generated,
  file_k8s_io_apimachinery_pkg_apis_meta_v1_generated,
  file_k8s_io_apimachinery_pkg_runtime_generated,
  file_k8s_io_apimachinery_pkg_util_intstr_generated,
);

export const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const RUNTIME = 'k8s.io.apimachinery.pkg.runtime';

export function messageNamed(typeName: string): DescMessage {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`kubesim's protobuf registry has no message ${typeName}`);
  return desc;
}

/** meta/v1 kinds that upstream registers in every group version (DeleteOptions, WatchEvent, …). */
const META_KINDS = /^(Status|WatchEvent|[A-Za-z]+Options)$/;

/** The message of an apiVersion/kind, or undefined for kinds without one (custom resources). */
export function messageOfKind(apiVersion: string, kind: string): DescMessage | undefined {
  const name = KIND_MESSAGES[`${apiVersion}/${kind}`];
  if (name) return registry.getMessage(name);
  return META_KINDS.test(kind) ? registry.getMessage(`${META}.${kind}`) : undefined;
}
