/**
 * The invariant checker itself (test/support/invariants.ts) on hand-written audit logs: a clean run
 * passes, and each way of breaking DESIGN §5 is caught. A checker that never fails proves nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeRequest } from '../../src/adapters/kube/request-codec.js';
import { LABEL_REQUEST } from '../../src/core/names.js';
import type { MaintenanceRequest } from '../../src/core/request.js';
import type { HostAction } from '@kubemaint/kubesim';
import { R, type AuditEntry, type KObject } from '@kubemaint/kubesim';
import { approvedRequest } from '../fakes/requests.js';
import { checkInvariants, R_REQUESTS } from '../support/invariants.js';

const T0 = Date.parse('2026-11-22T02:00:00Z');
const iso = (s: number) => new Date(T0 + s * 1_000).toISOString();

const nodeObj = (name: string, unschedulable = false): KObject => ({
  metadata: { name },
  spec: unschedulable ? { unschedulable: true } : {},
});

/** The MaintenanceRequest object kubemaint stores for `request` (ADR 0012). */
const requestObj = (request: MaintenanceRequest): KObject => encodeRequest(request, 'kubemaint');

interface Step {
  /** A write of the node and, when given, of its request (the node first, as the executor cordons). */
  node?: [name: string, request: MaintenanceRequest | undefined, unschedulable?: boolean];
  job?: [node: string, requestId: string];
  host?: string;
  lease?: [slot: string, holder: string, renewTime?: string];
  /** A pod of app `web` in `shop`, Ready or not. */
  pod?: [name: string, ready: boolean];
  /** A PDB over app `web` in `shop`. */
  pdb?: [name: string, spec: Record<string, unknown>];
  /** A successful eviction of a pod (a graceful delete through pods/eviction). */
  evict?: string;
  /** The ReplicaSet `web` that controls the pods, with this many replicas. */
  workload?: number;
}

const podObj = (name: string, ready: boolean): KObject => ({
  metadata: {
    name,
    namespace: 'shop',
    labels: { app: 'web' },
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u', controller: true },
    ],
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

/** Who approves in these runs: the fixtures' U123. */
const APPROVERS = new Set(['U123']);

/** Builds an audit log, host log and final store from steps, one second of sim time apart. */
function run(steps: Step[], concurrency = 1) {
  const audit: AuditEntry[] = [];
  const hostLog: HostAction[] = [];
  const nodes = new Map<string, KObject>();
  const requests = new Map<string, KObject>();
  const leases = new Map<string, KObject>();
  let written = 0;
  steps.forEach((step, i) => {
    const at = iso(i);
    const rv = i + 1 + written;
    if (step.node) {
      const [name, request, unschedulable] = step.node;
      const object = nodeObj(name, unschedulable);
      nodes.set(name, object);
      audit.push({ rv, at, verb: 'update', resource: R.nodes, name, actor: 't', object });
      if (request) {
        // The request's own write, right after the node's (one more resourceVersion).
        written++;
        const stored = requestObj(request);
        requests.set(request.id, stored);
        audit.push({
          rv: rv + 1,
          at,
          verb: 'update',
          resource: R_REQUESTS,
          namespace: 'kubemaint',
          name: request.id,
          actor: 't',
          object: stored,
        });
      }
    }
    if (step.job) {
      const [node, requestId] = step.job;
      const name = `kubemaint-${requestId}-${node}`;
      const object: KObject = {
        metadata: { name, labels: { [LABEL_REQUEST]: requestId } },
        spec: { template: { spec: { nodeName: node } } },
      };
      audit.push({ rv, at, verb: 'create', resource: R.jobs, name, actor: 't', object });
    }
    if (step.host) {
      hostLog.push({
        node: step.host,
        action: 'reboot',
        issuedAt: at,
        takesEffectAt: at,
        duplicate: false,
      });
    }
    if (step.pod) {
      const [name, ready] = step.pod;
      const object = podObj(name, ready);
      audit.push({
        rv,
        at,
        verb: 'create',
        resource: R.pods,
        namespace: 'shop',
        name,
        actor: 't',
        object,
      });
    }
    if (step.workload !== undefined) {
      const object: KObject = {
        metadata: { name: 'web', namespace: 'shop' },
        spec: { replicas: step.workload },
      };
      audit.push({
        rv,
        at,
        verb: 'create',
        resource: R.replicasets,
        namespace: 'shop',
        name: 'web',
        actor: 't',
        object,
      });
    }
    if (step.pdb) {
      const [name, spec] = step.pdb;
      const object: KObject = {
        metadata: { name, namespace: 'shop' },
        spec: { ...spec, selector: { matchLabels: { app: 'web' } } },
      };
      audit.push({
        rv,
        at,
        verb: 'create',
        resource: R.pdbs,
        namespace: 'shop',
        name,
        actor: 't',
        object,
      });
    }
    if (step.evict) {
      const name = step.evict;
      const object = {
        ...podObj(name, true),
        metadata: { ...podObj(name, true).metadata, deletionTimestamp: at },
      };
      audit.push({
        rv,
        at,
        verb: 'delete',
        resource: R.pods,
        subresource: 'eviction',
        namespace: 'shop',
        name,
        actor: 't',
        object,
      });
    }
    if (step.lease) {
      const [slot, holder, renewTime] = step.lease;
      leases.set(slot, {
        metadata: { name: slot },
        spec: { holderIdentity: holder, ...(renewTime ? { renewTime } : {}) },
      });
    }
  });
  const store = {
    list: (resource: string) =>
      resource === R.nodes
        ? [...nodes.values()]
        : resource === R_REQUESTS
          ? [...requests.values()]
          : resource === R.leases
            ? [...leases.values()]
            : [],
  };
  return checkInvariants({ audit, hostLog, store, concurrency, approvers: APPROVERS });
}

const req = (node: string, patch: Partial<MaintenanceRequest> = {}) =>
  approvedRequest(node, { id: `r-${node}`, ...patch });
const proposed = (node: string) => req(node, { state: 'proposed', approvals: [] });
const cordoned = (node: string) =>
  req(node, { state: 'running', cordonedByUs: true, wasCordoned: false });

/** Failed at 10:00 after its host command: the node did not come back. */
const lostAfterHostCommand = req('a', {
  state: 'failed',
  hostCommandIssuedAt: '2026-01-01T09:50:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  failure: 'node did not come back within 15m; left cordoned for a person to look at',
});

const cleanRoll = (node: string): Step[] => [
  { node: [node, proposed(node)] },
  { node: [node, req(node)] },
  { job: [node, `r-${node}`] },
  { node: [node, cordoned(node), true] },
  { host: node },
  { node: [node, req(node, { state: 'verifying', cordonedByUs: true }), true] },
  { node: [node, req(node, { state: 'done', cordonedByUs: true }), false] },
];

describe('invariant checker', () => {
  it('passes a clean roll of two nodes, one after the other', () => {
    const report = run([...cleanRoll('a'), ...cleanRoll('b')]);
    assert.deepEqual(report.violations, []);
    assert.equal(report.maxDisrupted, 1);
    assert.equal(report.hostActions, 2);
    assert.equal(report.jobs, 2);
    assert.deepEqual(report.staleSlots, []);
  });

  const broken: { name: string; steps: Step[]; concurrency?: number; expect: RegExp }[] = [
    {
      name: 'two nodes cordoned by kubemaint with concurrency 1',
      steps: [{ node: ['a', cordoned('a'), true] }, { node: ['b', cordoned('b'), true] }],
      expect: /§5\.1 .*2 nodes disrupted at once/,
    },
    {
      name: 'a reboot with no request',
      steps: [{ node: ['a', undefined] }, { host: 'a' }],
      expect: /§5\.2: reboot of a .* without an approved request \(none\)/,
    },
    {
      name: 'a reboot of a proposed request',
      steps: [{ node: ['a', proposed('a')] }, { host: 'a' }],
      expect: /§5\.2: reboot of a .*r-a proposed/,
    },
    {
      name: 'two reboots for one request',
      steps: [{ node: ['a', req('a', { state: 'running' })] }, { host: 'a' }, { host: 'a' }],
      expect: /§5\.5: request a\/r-a issued 2 host actions/,
    },
    {
      name: 'a Job for a proposed request',
      steps: [{ node: ['a', proposed('a')] }, { job: ['a', 'r-a'] }],
      expect: /§5\.2: Job kubemaint-r-a-a .* r-a proposed/,
    },
    {
      name: 'a Job for a request approved by someone who is not an approver',
      steps: [
        { node: ['a', req('a', { approvals: [{ by: 'UMALLORY', at: iso(0) }] })] },
        { job: ['a', 'r-a'] },
      ],
      expect: /§5\.2: Job kubemaint-r-a-a .* r-a approved approved by UMALLORY/,
    },
    {
      name: 'a reboot whose approvals include a stranger’s',
      steps: [
        {
          node: [
            'a',
            req('a', {
              state: 'running',
              approvals: [
                { by: 'U123', at: iso(0) },
                { by: 'UMALLORY', at: iso(0) },
              ],
            }),
          ],
        },
        { host: 'a' },
      ],
      expect: /§5\.2: reboot of a .* approved by U123, UMALLORY/,
    },
    {
      name: 'an eviction that leaves fewer healthy pods than the PDB wants',
      steps: [
        { pdb: ['web', { minAvailable: 2 }] },
        { pod: ['web-1', true] },
        { pod: ['web-2', true] },
        { evict: 'web-1' },
      ],
      expect: /PDB at rv 4: eviction of shop\/web-1 left 1 healthy where PDB web wants 2/,
    },
    {
      name: 'a second eviction while the first pod is still terminating (maxUnavailable 1)',
      steps: [
        { workload: 3 },
        { pdb: ['web', { maxUnavailable: 1 }] },
        { pod: ['web-1', true] },
        { pod: ['web-2', true] },
        { pod: ['web-3', true] },
        { evict: 'web-1' },
        { evict: 'web-2' },
      ],
      expect: /eviction of shop\/web-2 left 1 healthy where PDB web wants 2/,
    },
    {
      name: 'an eviction under two PDBs',
      steps: [
        { pdb: ['web', { minAvailable: 1 }] },
        { pdb: ['web-too', { minAvailable: 1 }] },
        { pod: ['web-1', true] },
        { pod: ['web-2', true] },
        { evict: 'web-1' },
      ],
      expect: /eviction of shop\/web-1 succeeded under 2 PDBs/,
    },
    {
      name: 'two Jobs for one request',
      steps: [{ node: ['a', req('a')] }, { job: ['a', 'r-a'] }, { job: ['a', 'r-a'] }],
      expect: /one Job per request: r-a/,
    },
    {
      name: 'a node left cordoned by kubemaint after done',
      steps: [{ node: ['a', req('a', { state: 'done', cordonedByUs: true }), true] }],
      expect: /left cordoned by kubemaint: a \(request r-a done\)/,
    },
    {
      name: 'a node left cordoned after a failure that does not say so',
      steps: [
        { node: ['a', req('a', { state: 'failed', cordonedByUs: true, failure: 'boom' }), true] },
      ],
      expect: /left cordoned by kubemaint: a \(request r-a failed\)/,
    },
    {
      // Two serves proposed the node at once; the later proposal was cancelled as it was born and,
      // though newer, must not hide the request that ran.
      name: 'a node left cordoned by kubemaint behind a proposal that lost a creation race',
      steps: [
        { node: ['a', req('a', { state: 'done', cordonedByUs: true }), true] },
        {
          node: [
            'a',
            req('a', {
              id: 'r-a2',
              state: 'cancelled',
              approvals: [],
              createdAt: iso(1),
              history: [
                {
                  from: 'proposed',
                  to: 'cancelled',
                  at: iso(1),
                  by: 'kubemaint',
                  note: 'a already has request r-a',
                },
              ],
            }),
            true,
          ],
        },
      ],
      expect: /left cordoned by kubemaint: a \(request r-a done\)/,
    },
    {
      name: 'a slot held by a finished request',
      steps: [
        { node: ['a', req('a', { state: 'done' })] },
        { lease: ['kubemaint-slot-0', 'a/r-a'] },
      ],
      expect: /slot kubemaint-slot-0 held by a\/r-a, whose request is r-a done/,
    },
    {
      name: 'a slot renewed after its request failed past the host command',
      steps: [
        { node: ['a', lostAfterHostCommand] },
        { lease: ['kubemaint-slot-0', 'a/r-a', '2026-01-01T10:05:00.000000Z'] },
      ],
      expect: /slot kubemaint-slot-0 held by a\/r-a, whose request is r-a failed/,
    },
    {
      name: 'a slot held for a node whose request is gone',
      steps: [{ node: ['a', undefined] }, { lease: ['kubemaint-slot-0', 'a/r-a'] }],
      expect: /slot kubemaint-slot-0 held by a\/r-a, whose request is gone/,
    },
  ];
  for (const c of broken) {
    it(`catches ${c.name}`, () => {
      const report = run(c.steps, c.concurrency);
      const found = [...report.violations, ...report.staleSlots];
      assert.ok(
        found.some((v) => c.expect.test(v)),
        `expected ${String(c.expect)} in ${JSON.stringify(found)}`,
      );
    });
  }

  it('allows the slot of a request that failed after its host command, left to expire at its TTL', () => {
    const report = run([
      { node: ['a', lostAfterHostCommand] },
      { lease: ['kubemaint-slot-0', 'a/r-a', '2026-01-01T09:59:00.000000Z'] },
    ]);
    assert.deepEqual(report.staleSlots, []);
  });

  it('allows a node left cordoned after a failure whose report says so (§5.8)', () => {
    const failure = 'node did not come back; left cordoned for a person to look at';
    const report = run([
      { node: ['a', req('a', { state: 'failed', cordonedByUs: true, failure }), true] },
    ]);
    assert.deepEqual(report.violations, []);
  });

  it('allows evictions the PDB allows, and an unhealthy pod under AlwaysAllow', () => {
    const report = run([
      { pdb: ['web', { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' }] },
      { pod: ['web-1', true] },
      { pod: ['web-2', true] },
      { pod: ['web-3', false] },
      { evict: 'web-3' },
      { evict: 'web-1' },
    ]);
    assert.deepEqual(report.violations, []);
    assert.equal(report.evictions, 2);
  });

  it('keeps a node a person cordoned before out of the count (§5.4)', () => {
    const before = req('a', { state: 'running', cordonedByUs: false, wasCordoned: true });
    const report = run([{ node: ['a', before, true] }, { node: ['b', cordoned('b'), true] }]);
    assert.deepEqual(report.violations, []);
    assert.equal(report.maxDisrupted, 1);
  });
});
