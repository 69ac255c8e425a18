/**
 * Requests in every state, a preview and events, shared by the Slack template tests: fixed instants
 * so the golden files are stable.
 */
import type { Preview } from '../../../src/app/control/preview.js';
import type { MaintenanceEvent } from '../../../src/core/events.js';
import type { MaintenanceRequest, RequestState } from '../../../src/core/request.js';
import type { PromptContext } from '../../../templates/slack/index.js';

export const NOW = new Date('2026-11-22T02:00:00Z');

export const proposed: MaintenanceRequest = {
  id: 'r-7f3a9c',
  node: 'node-2',
  action: 'reboot',
  state: 'proposed',
  reason: 'reboot-required label since 2026-11-21T20:00:00Z (linux-image <6.8> & co)',
  requestedBy: 'detector',
  createdAt: '2026-11-22T01:00:00Z',
  updatedAt: '2026-11-22T01:00:00Z',
  approvals: [],
  history: [{ from: null, to: 'proposed', at: '2026-11-22T01:00:00Z', by: 'detector' }],
};

export const preview: Preview = {
  node: 'node-2',
  at: NOW.toISOString(),
  kubeletVersion: 'v1.30.2',
  rebootRequiredSince: '2026-11-21T20:00:00Z',
  packages: ['linux-image-6.8.0-49', 'libc6'],
  evict: ['shop/web-1', 'shop/web-2', 'payments/api-0'],
  skipped: [{ pod: 'kube-system/proxy-x', reason: 'DaemonSet-managed' }],
  warnings: ['deleting Pods with local storage: shop/web-2'],
  budgets: [{ name: 'payments/api', pods: ['payments/api-0'] }],
  blockers: ['PDB payments/api allows no disruption now (payments/api-0)'],
  window: { open: false, nextOpening: 'Sat 02:00 UTC', schedule: ['Sat 02:00-06:00 UTC'] },
  errors: [],
};

export const ctx: PromptContext = { cluster: 'prod-eu', timeZone: 'UTC', now: NOW, preview };

const moved = (
  request: MaintenanceRequest,
  state: RequestState,
  by: string,
  extra: Partial<MaintenanceRequest> = {},
  note?: string,
): MaintenanceRequest => ({
  ...request,
  ...extra,
  state,
  updatedAt: '2026-11-22T01:30:00Z',
  history: [
    ...request.history,
    { from: request.state, to: state, at: '2026-11-22T01:30:00Z', by, ...(note ? { note } : {}) },
  ],
});

const approved = moved(proposed, 'approved', 'U0ALICE', {
  approvals: [{ by: 'U0ALICE', at: '2026-11-22T01:30:00Z' }],
  blockedReasons: ['outside the maintenance windows; next opens Sat 02:00 UTC'],
});
const running = moved(approved, 'running', 'kubemaint', {
  blockedReasons: [],
  slot: 'kubemaint-slot-0',
  job: 'kubemaint-node-2-r-7f3a9c',
  drain: {
    total: 3,
    evicted: 2,
    waitingOn: [{ pod: 'payments/api-0', reason: 'PDB payments/api allows 0 disruptions' }],
    stalledSince: '2026-11-22T01:45:00Z',
    message: 'waiting on 1 pod',
  },
});
const verifying = moved(running, 'verifying', 'kubemaint', { bootIdBefore: 'b-1' });

/** One request per state, the way the prompt meets them. */
export const byState: Record<RequestState, MaintenanceRequest> = {
  proposed,
  approved,
  running,
  verifying,
  done: moved(verifying, 'done', 'kubemaint'),
  failed: moved(running, 'failed', 'kubemaint', {
    failure: 'drain timed out after 30m on payments/api-0; node left cordoned <unsafe> & reported',
  }),
  rejected: moved(proposed, 'rejected', 'U0BOB', {}, 'payments freeze until Monday'),
  expired: moved(proposed, 'expired', 'kubemaint', {}, 'no approval within 72h'),
  cancelled: moved(approved, 'cancelled', 'cli:carol', {}, 'node replaced'),
  skipped: moved(
    running,
    'skipped',
    'executor',
    {
      failure:
        'drain timed out (900s): 2 of 3 pods evicted; pods that refused: payments/api-0 — PDB payments/api allows 0 disruptions. node uncordoned',
    },
    'drain timed out; node given back (drain.onTimeout: uncordon)',
  ),
};

export const upgrade: MaintenanceRequest = {
  ...proposed,
  id: 'r-0c0ffe',
  node: 'node-3',
  action: 'upgrade',
  targetVersion: 'v1.31.4',
  kubeletVersionBefore: 'v1.30.2',
  reason: 'kubelet v1.30.2 behind apiserver v1.31.4',
};

export const campaign = (states: RequestState[]): MaintenanceRequest[] =>
  states.map((state, i) => ({
    ...byState[state],
    id: `r-00000${i}`,
    node: `node-${i + 1}`,
    campaign: 'c-abc123',
    pool: i % 2 === 0 ? 'blue' : 'green',
  }));

export const events: MaintenanceEvent[] = [
  { kind: 'proposed', reason: 'reboot-required <label>' },
  { kind: 'approved', approver: 'U0ALICE' },
  { kind: 'rejected', approver: 'U0BOB', reason: 'payments & freeze' },
  { kind: 'blocked', reason: 'outside the maintenance windows' },
  { kind: 'draining' },
  { kind: 'rebooting' },
  { kind: 'upgrading', targetVersion: 'v1.31.4' },
  { kind: 'back', durationMs: 95_000 },
  { kind: 'done', durationMs: 600_000 },
  { kind: 'failed', reason: 'drain timed out', detail: 'node left cordoned: <pods> remain' },
].map((e) => ({
  node: 'node-2',
  cluster: 'prod-eu',
  requestId: 'r-7f3a9c',
  action: e.kind === 'upgrading' ? 'upgrade' : 'reboot',
  ...e,
})) as MaintenanceEvent[];
