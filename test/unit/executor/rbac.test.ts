/**
 * infra/k8s/rbac-executor.yaml grants exactly what the kube adapter says the executor uses: no verb
 * missing (the Job would fail with 403 mid-drain) and none extra (least privilege). Since ADR 0012 that
 * includes its MaintenanceRequest: read by name, status replaced (PUT = update).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { EXECUTOR_API_VERBS } from '../../../src/adapters/kube/verbs.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Doc {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

const docs = parseAllDocuments(
  readFileSync(new URL('../../../infra/k8s/rbac-executor.yaml', import.meta.url), 'utf8'),
).map((d) => d.toJS() as Doc);

const key = (scope: string, group: string, resource: string) =>
  `${scope} ${group || 'core'} ${resource}`;

function granted(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const role of docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')) {
    const scope = role.kind === 'ClusterRole' ? 'cluster' : role.metadata.namespace!;
    for (const rule of role.rules ?? []) {
      for (const group of rule.apiGroups) {
        for (const resource of rule.resources) {
          const k = key(scope, group, resource);
          out.set(k, [...(out.get(k) ?? []), ...rule.verbs].sort());
        }
      }
    }
  }
  return out;
}

describe('executor RBAC', () => {
  it('grants exactly the verbs the adapter uses, in the right scope', () => {
    const wanted = new Map(
      EXECUTOR_API_VERBS.map((v) => [
        key(v.namespace ?? 'cluster', v.group, v.resource),
        [...v.verbs].sort(),
      ]),
    );
    assert.deepEqual(Object.fromEntries(granted()), Object.fromEntries(wanted));
  });

  it('reads its request and writes only its status: no decisions, no spec, nothing cluster-wide', () => {
    // ADR 0012: the executor reports progress on the request it was started for; deciding, creating
    // or rewriting what was asked is the control plane's (and admission narrows the status writes).
    const kubemaint = [...granted()].filter(([k]) => k.includes(' kubemaint.io '));
    assert.deepEqual(Object.fromEntries(kubemaint), {
      'kubemaint kubemaint.io maintenancerequests': ['get'],
      'kubemaint kubemaint.io maintenancerequests/status': ['update'],
    });
  });

  it('binds every role to the executor service account and nothing else', () => {
    const roles = docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role');
    const bindings = docs.filter((d) => d.kind.endsWith('Binding'));
    for (const role of roles) {
      const binding = bindings.find(
        (b) =>
          b.roleRef?.name === role.metadata.name &&
          b.metadata.namespace === role.metadata.namespace,
      );
      assert.ok(binding, `no binding for ${role.kind} ${role.metadata.name}`);
      assert.deepEqual(binding.subjects, [
        { kind: 'ServiceAccount', name: 'kubemaint-executor', namespace: 'kubemaint' },
      ]);
    }
  });

  it('grants no wildcard', () => {
    const text = JSON.stringify(docs);
    assert.ok(!text.includes('"*"'));
  });
});
