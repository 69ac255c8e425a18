/**
 * infra/k8s checked as data: every YAML parses, the kustomization lists every manifest, the RBAC
 * matches a reviewed table exactly (a new verb is a deliberate edit here, in review), the agent
 * DaemonSet is unprivileged, the namespace's Pod Security level is explicit, the admission policies
 * target the right identities, and `kubectl kustomize` renders the whole thing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

const DIR = resolve(import.meta.dirname, '../../../infra/k8s');
const NS = 'kubemaint';

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

function load(file: string): Doc[] {
  const docs = parseAllDocuments(readFileSync(join(DIR, file), 'utf8'));
  return docs.map((d) => {
    assert.deepEqual(d.errors, [], `${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS() as Doc;
  });
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const all = files.flatMap((f) => load(f).map((doc) => ({ file: f, doc })));
const find = (kind: string, name: string, namespace?: string) =>
  all.find(
    ({ doc }) =>
      doc.kind === kind && doc.metadata.name === name && doc.metadata.namespace === namespace,
  )?.doc;

describe('infra/k8s manifests', () => {
  it('parse, and each document names its apiVersion, kind and metadata.name', () => {
    assert.ok(all.length >= 15);
    for (const { file, doc } of all) {
      assert.ok(
        doc.apiVersion && doc.kind && doc.metadata?.name,
        `${file}: ${JSON.stringify(doc).slice(0, 80)}`,
      );
    }
  });

  it('are all listed in kustomization.yaml, and it lists nothing else', () => {
    const [kustomization] = load('kustomization.yaml') as unknown as [{ resources: string[] }];
    assert.deepEqual([...kustomization.resources].sort(), [...files].sort());
  });
});

/** [service account, scope ('cluster' or a namespace), apiGroup, resource, verbs] — reviewed. */
type Grant = [string, string, string, string, string];
const REVIEWED: Grant[] = [
  ['kubemaint-agent', 'cluster', '', 'nodes', 'get,patch'],
  ['kubemaint-executor', 'cluster', '', 'nodes', 'get,patch'],
  ['kubemaint-executor', 'cluster', '', 'pods', 'delete,list,watch'],
  ['kubemaint-executor', 'cluster', '', 'pods/eviction', 'create'],
  ['kubemaint-executor', 'default', '', 'events', 'create'],
  ['kubemaint-executor', NS, 'coordination.k8s.io', 'leases', 'create,get,update'],
  ['kubemaint-serve', 'cluster', '', 'nodes', 'get,list,patch,watch'],
  ['kubemaint-serve', 'cluster', '', 'pods', 'list'],
  ['kubemaint-serve', 'cluster', '', 'pods/eviction', 'create'],
  ['kubemaint-serve', 'cluster', 'policy', 'poddisruptionbudgets', 'list,watch'],
  ['kubemaint-serve', 'default', '', 'events', 'create,patch'],
  ['kubemaint-serve', NS, 'batch', 'jobs', 'create,delete,get,list,watch'],
  ['kubemaint-serve', NS, 'coordination.k8s.io', 'leases', 'create,delete,get,list,update,watch'],
  ['kubemaint-serve', NS, '', 'configmaps', 'create,get,update'],
];

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Binding extends Doc {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
}

/** What the manifests actually grant, one row per (account, scope, group, resource). */
function effectiveGrants(): Grant[] {
  const rows = new Map<string, Set<string>>();
  for (const { doc } of all) {
    if (doc.kind !== 'RoleBinding' && doc.kind !== 'ClusterRoleBinding') continue;
    const binding = doc as Binding;
    const scope = doc.kind === 'RoleBinding' ? doc.metadata.namespace! : 'cluster';
    const role = find(
      binding.roleRef.kind,
      binding.roleRef.name,
      binding.roleRef.kind === 'Role' ? scope : undefined,
    );
    assert.ok(
      role,
      `${doc.metadata.name} refers to a missing ${binding.roleRef.kind} ${binding.roleRef.name}`,
    );
    for (const subject of binding.subjects) {
      assert.equal(subject.kind, 'ServiceAccount');
      assert.equal(subject.namespace, NS);
      assert.ok(
        find('ServiceAccount', subject.name, NS),
        `service account ${subject.name} is not defined`,
      );
      for (const rule of (role.rules as Rule[] | undefined) ?? []) {
        assert.equal(rule.resourceNames, undefined);
        for (const group of rule.apiGroups) {
          for (const resource of rule.resources) {
            assert.notEqual(resource, '*', 'no wildcard resources');
            const key = [subject.name, scope, group, resource].join('|');
            const verbs = rows.get(key) ?? new Set<string>();
            for (const verb of rule.verbs) verbs.add(verb);
            rows.set(key, verbs);
          }
        }
      }
    }
  }
  return [...rows].map(([key, verbs]) => [...key.split('|'), [...verbs].sort().join(',')] as Grant);
}

describe('RBAC', () => {
  const grants = effectiveGrants();
  const byKey = (g: Grant) => g.slice(0, 4).join(' ');
  for (const expected of REVIEWED) {
    it(`${expected[0]} may ${expected[4]} ${expected[3]} (${expected[2] || 'core'}) in ${expected[1]}`, () => {
      const actual = grants.find((g) => byKey(g) === byKey(expected));
      assert.deepEqual(actual, expected);
    });
  }
  it('grants nothing beyond the reviewed table', () => {
    const reviewed = new Set(REVIEWED.map(byKey));
    assert.deepEqual(
      grants.filter((g) => !reviewed.has(byKey(g))),
      [],
    );
  });
  it('never grants a wildcard verb or escalation', () => {
    for (const g of grants) {
      for (const verb of g[4].split(',')) {
        assert.ok(!['*', 'escalate', 'bind', 'impersonate'].includes(verb), `${byKey(g)}: ${verb}`);
      }
    }
  });
});

interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  securityContext: Record<string, unknown>;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  serviceAccountName: string;
  hostPID?: boolean;
  hostNetwork?: boolean;
  tolerations: { operator: string; key?: string }[];
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; hostPath?: { path: string } }[];
}

describe('the agent DaemonSet', () => {
  const ds = find('DaemonSet', 'kubemaint-agent', NS) as Doc & {
    spec: { template: { spec: PodSpec } };
  };
  const pod = ds.spec.template.spec;
  const [container] = pod.containers;

  it('runs as the agent service account, on every node whatever its taints', () => {
    assert.equal(pod.serviceAccountName, 'kubemaint-agent');
    assert.deepEqual(pod.tolerations, [{ operator: 'Exists' }]);
    assert.equal(pod.containers.length, 1);
  });
  it('is unprivileged: non-root, no privilege escalation, no capabilities, read-only root', () => {
    assert.equal(pod.hostPID ?? false, false);
    assert.equal(pod.hostNetwork ?? false, false);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.deepEqual(container!.securityContext, {
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });
  it("mounts only the host's /var/run, read-only, at HOST_ROOT/var/run", () => {
    assert.deepEqual(pod.volumes, [
      { name: 'host-var-run', hostPath: { path: '/var/run', type: 'Directory' } },
    ]);
    const hostRoot = container!.env?.find((e) => e.name === 'HOST_ROOT')?.value;
    assert.deepEqual(container!.volumeMounts, [
      { name: 'host-var-run', mountPath: `${hostRoot}/var/run`, readOnly: true },
    ]);
  });
  it('learns its node from the downward API', () => {
    const node = container!.env?.find((e) => e.name === 'NODE_NAME');
    assert.equal(node?.valueFrom?.fieldRef?.fieldPath, 'spec.nodeName');
  });
  it('asks for little and is capped', () => {
    assert.deepEqual(container!.resources, {
      requests: { cpu: '5m', memory: '16Mi' },
      limits: { cpu: '50m', memory: '32Mi' },
    });
  });
});

interface ServeContainer extends Container {
  args: string[];
  envFrom: { secretRef?: { name: string } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
}

describe('the serve Deployment', () => {
  const deployment = find('Deployment', 'kubemaint-serve', NS) as Doc & {
    spec: {
      replicas: number;
      strategy: { type: string };
      template: {
        spec: Omit<PodSpec, 'volumes'> & {
          terminationGracePeriodSeconds: number;
          volumes: {
            name: string;
            hostPath?: object;
            configMap?: { name: string };
            emptyDir?: object;
          }[];
        };
      };
    };
  };
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0] as ServeContainer;

  it('runs one replica of `serve` as the serve service account, never two at once', () => {
    assert.equal(deployment.spec.replicas, 1);
    assert.equal(deployment.spec.strategy.type, 'Recreate');
    assert.equal(pod.serviceAccountName, 'kubemaint-serve');
    assert.equal(pod.containers.length, 1);
    // The pod IP is what the kubelet probes and the ingress reaches: every interface, said openly.
    assert.deepEqual(container.args, ['serve', '--ops-host=0.0.0.0', '--slack-host=0.0.0.0']);
    assert.match(container.image, /^ghcr\.io\/kubemaint\/kubemaint:/);
  });
  it('takes Slack secrets from a Secret and the config from a ConfigMap at /etc/kubemaint', () => {
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'kubemaint-slack' } }]);
    const config = container.env?.find((e) => e.name === 'KUBEMAINT_CONFIG')?.value;
    assert.equal(config, '/etc/kubemaint/kubemaint.yaml');
    const mount = container.volumeMounts.find((m) => m.mountPath === '/etc/kubemaint');
    assert.equal(mount?.readOnly, true);
    const volume = pod.volumes.find((v) => v.name === mount?.name);
    assert.deepEqual(volume?.configMap, { name: 'kubemaint-config' });
  });
  it('serves Slack on 3000 and ops on 9090, probed at /healthz and /readyz', () => {
    assert.deepEqual(
      container.ports.map((p) => [p.name, p.containerPort]),
      [
        ['slack', 3000],
        ['ops', 9090],
      ],
    );
    assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 'ops' });
    assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'ops' });
  });
  it('is unprivileged: non-root, no escalation, no capabilities, read-only root, bounded', () => {
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
    assert.equal(pod.hostPID ?? false, false);
    assert.equal(pod.hostNetwork ?? false, false);
    assert.deepEqual(container.securityContext, {
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    assert.ok(container.resources.requests.memory && container.resources.limits.memory);
    assert.ok(container.resources.requests.cpu && container.resources.limits.cpu);
    assert.ok(
      pod.volumes.every((v) => !v.hostPath),
      'no host paths',
    );
  });
  it('gives a tick in progress time to finish on shutdown', () => {
    assert.ok(pod.terminationGracePeriodSeconds >= 60, String(pod.terminationGracePeriodSeconds));
  });
});

describe('the namespace and the admission policies', () => {
  it('declares the Pod Security level the executor needs (privileged) explicitly', () => {
    const ns = find('Namespace', NS);
    assert.equal(ns?.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'privileged');
  });

  interface Policy extends Doc {
    spec: {
      failurePolicy: string;
      matchConstraints: { resourceRules: { resources: string[]; operations: string[] }[] };
      matchConditions: { expression: string }[];
      validations: { expression: string }[];
      variables?: { name: string; expression: string }[];
    };
  }
  const agentPolicy = find('ValidatingAdmissionPolicy', 'kubemaint-agent-own-node-only') as Policy;
  const servePolicy = find(
    'ValidatingAdmissionPolicy',
    'kubemaint-serve-dry-run-evictions-only',
  ) as Policy;

  it('bind each policy with Deny', () => {
    for (const policy of [agentPolicy, servePolicy]) {
      const binding = find('ValidatingAdmissionPolicyBinding', policy.metadata.name) as Doc & {
        spec: { policyName: string; validationActions: string[] };
      };
      assert.equal(binding.spec.policyName, policy.metadata.name);
      assert.deepEqual(binding.spec.validationActions, ['Deny']);
      assert.equal(policy.apiVersion, 'admissionregistration.k8s.io/v1');
      assert.equal(policy.spec.failurePolicy, 'Fail');
    }
  });
  it('hold the agent to its own node and to kubemaint.io/ keys', () => {
    assert.deepEqual(agentPolicy.spec.matchConstraints.resourceRules[0]!.resources, [
      'nodes',
      'nodes/status',
    ]);
    assert.match(
      agentPolicy.spec.matchConditions[0]!.expression,
      /system:serviceaccount:kubemaint:kubemaint-agent'$/,
    );
    const cel = JSON.stringify(agentPolicy.spec);
    assert.match(
      cel,
      /request\.userInfo\.extra\['authentication\.kubernetes\.io\/node-name'\]\[0\]/,
    );
    assert.match(cel, /request\.name == variables\.nodeName/);
    for (const part of ['Labels', 'Annotations']) {
      assert.match(
        cel,
        new RegExp(`variables\\.old${part}\\.all\\(k, k\\.startsWith\\('kubemaint\\.io/'\\)`),
      );
    }
    assert.match(cel, /object\.spec == oldObject\.spec/);
  });
  it('let serve send only dry-run evictions', () => {
    assert.deepEqual(servePolicy.spec.matchConstraints.resourceRules[0]!.resources, [
      'pods/eviction',
    ]);
    assert.match(servePolicy.spec.matchConditions[0]!.expression, /kubemaint:kubemaint-serve'$/);
    assert.deepEqual(
      servePolicy.spec.validations.map((v) => v.expression),
      ['request.dryRun == true'],
    );
  });
});

// kubectl is part of these machines (the sim is tested against it too): a missing one fails here.
describe('kubectl kustomize infra/k8s', () => {
  it('renders every manifest', () => {
    const out = spawnSync('kubectl', ['kustomize', DIR], { encoding: 'utf8' });
    assert.equal(out.error, undefined, 'kubectl must be installed to render the manifests');
    assert.equal(out.status, 0, out.stderr);
    const rendered = parseAllDocuments(out.stdout).map((d) => d.toJS() as Doc);
    assert.equal(rendered.length, all.length);
    const image = rendered
      .filter((d) => d.kind === 'DaemonSet')
      .map(
        (d) =>
          (d as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec
            .containers[0]!.image,
      );
    assert.deepEqual(image, ['kubemaint-agent:0.1.0']);
    const serve = rendered.filter((d) => d.kind === 'Deployment').map((d) => d.metadata.name);
    assert.deepEqual(serve, ['kubemaint-serve']);
  });
});
