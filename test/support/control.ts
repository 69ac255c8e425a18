/**
 * Control-plane deps for tests: settings close to the config's defaults (approvers alice and bob, no
 * windows, concurrency 1, a no-op executor image the sim runs without touching the host) and the
 * real kube adapter over HTTPS to a test sim. Tests that need the config's own mapping use compose.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import type { Notifier } from '../../src/app/control/ports.js';
import type { ControlSettings } from '../../src/app/control/settings.js';
import type { TickDeps } from '../../src/app/control/tick.js';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { controlCluster } from '../../src/adapters/kube/control-cluster.js';
import { kubeRetention } from '../../src/adapters/kube/retention.js';
import type { MaintenanceEvent } from '../../src/core/events.js';
import { parseSelector } from '@kubemaint/label-selector';
import {
  LABEL_MANAGED_BY,
  LABEL_NODE,
  LABEL_REQUEST,
  MANAGED_BY,
  jobName,
} from '../../src/core/names.js';
import { labelValue } from '../../templates/label-value.js';
import { compileSchedule, type WindowSpec } from '../../src/core/windows.js';

const everything = (() => {
  const parsed = parseSelector('');
  assert.ok(parsed.ok);
  return parsed.selector;
})();

export function testSchedule(windows: WindowSpec[] = []): ControlSettings['schedule'] {
  const compiled = compileSchedule({ windows, freezes: [] });
  assert.ok(compiled.ok);
  return compiled.schedule;
}

export function testControlSettings(overrides: Partial<ControlSettings> = {}): ControlSettings {
  return {
    cluster: 'sim',
    namespace: 'kubemaint',
    detection: {
      rebootLabel: 'kubemaint.io/reboot-required',
      conditionTypes: ['RebootRequired'],
      nodeSelector: everything,
      reproposeAfterMs: 3_600_000,
      sinceAnnotation: 'kubemaint.io/reboot-required-since',
      packagesAnnotation: 'kubemaint.io/reboot-required-packages',
    },
    kubelet: { enabled: true },
    approval: { users: ['k8s:alice', 'k8s:bob'], groups: [], expiresAfterMs: 72 * 3_600_000 },
    lock: { concurrency: 1, pools: {} },
    nodeTimeoutMs: { reboot: 15 * 60_000, upgrade: 15 * 60_000 },
    expectedDurationMs: { reboot: 10 * 60_000, upgrade: 10 * 60_000 },
    drainStallAfterMs: 10 * 60_000,
    // What the sim's scenarios need to drain (emptyDir data, bare pods), as the test executor does.
    drain: {
      force: true,
      deleteEmptyDirData: true,
      podSelector: '',
      skipWaitForDeleteTimeoutSeconds: 0,
    },
    schedule: testSchedule(),
    timeZone: 'UTC',
    blockers: { podSelectors: [], maxUnhealthyNodes: { count: 1 } },
    // An image the sim does not map: its pod "runs" and succeeds without touching the host.
    jobFor: (node, id) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      // Labelled as the real template labels it, so checks that read a Job's request find it.
      metadata: {
        name: jobName(node, id),
        namespace: 'kubemaint',
        labels: {
          [LABEL_MANAGED_BY]: MANAGED_BY,
          [LABEL_NODE]: labelValue(node),
          [LABEL_REQUEST]: labelValue(id),
        },
      },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            nodeName: node,
            restartPolicy: 'Never',
            tolerations: [{ operator: 'Exists' }],
            containers: [{ name: 'executor', image: 'example.invalid/noop:1' }],
          },
        },
      },
    }),
    ...overrides,
  };
}

/** Deps for runTick and the commands, over real HTTPS to the sim; events land in `events`. */
export function testControlDeps(
  sim: { kubeconfigPath: string; clock: { now(): Date } },
  options: { settings?: ControlSettings; notifier?: Notifier } = {},
): TickDeps & { events: MaintenanceEvent[] } {
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  const client = createKubeClient(kc);
  const events: MaintenanceEvent[] = [];
  const notifier: Notifier = options.notifier ?? {
    notify: async (event) => void events.push(event),
  };
  const clock = { now: () => sim.clock.now() };
  return {
    cluster: controlCluster(client, { namespace: 'kubemaint', now: clock.now }),
    // As openControl wires it; it deletes nothing unless the settings have `retention`.
    retention: kubeRetention(client, 'kubemaint'),
    notifier,
    clusterName: 'sim',
    settings: options.settings ?? testControlSettings(),
    clock,
    randomBytes: (n) => new Uint8Array(randomBytes(n)),
    events,
  };
}
