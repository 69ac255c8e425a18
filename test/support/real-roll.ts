/**
 * A roll on the real control plane, judged from the apiserver's audit log (real-audit.ts): a drain
 * held under way by a PDB, the host commands issued per node, the cordons kubemaint wrote, and the
 * check that no two serves acted at once (every write by a serve made while it was the last writer
 * of the election Lease). Shared by test/real/faults.test.ts and test/real/helm-upgrade.test.ts.
 */
import assert from 'node:assert/strict';
import { isWrite, resourceOf, describeEntry, type AuditEntry } from './real-audit.js';
import type { RealCluster } from './real-cluster.js';
import { waitFor } from './sim.js';

interface RequestBody {
  metadata: { name: string };
  spec: { node: string };
  status?: { hostCommandIssuedAt?: string };
}

/** kubectl, tried again while the control plane comes back from a fault. */
export const kubectlSoon = (cluster: RealCluster, args: string[]) =>
  waitFor(`kubectl ${args.join(' ')}`, () => cluster.kubectl(args) || true, 60_000, 500);

/**
 * Two web replicas pinned to `node` under a PDB that lets one go (maxUnavailable 1): serve's PDB
 * preflight passes (each pod alone may be evicted), and the drain's second eviction is refused
 * (429) for as long as the first one's replacement cannot run: it may only run on `node`, which
 * is cordoned. Returns what lets the drain go on: the PDB allows two. `graceSeconds` is the pods'
 * termination grace (Kubernetes' default 30 s: a simulated container outlives its eviction that long).
 */
export async function holdDrainOn(
  cluster: RealCluster,
  namespace: string,
  node: string,
  options: { graceSeconds?: number } = {},
): Promise<() => Promise<unknown>> {
  const app = `web-${node}`;
  cluster.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: app, namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app } },
        template: {
          metadata: { labels: { app } },
          spec: {
            nodeSelector: { 'kubernetes.io/hostname': node },
            ...(options.graceSeconds !== undefined
              ? { terminationGracePeriodSeconds: options.graceSeconds }
              : {}),
            containers: [{ name: 'web', image: 'registry.example/web:1' }],
          },
        },
      },
    }),
  });
  cluster.kubectl([
    'create',
    'poddisruptionbudget',
    app,
    '-n',
    namespace,
    `--selector=app=${app}`,
    '--max-unavailable=1',
  ]);
  cluster.kubectl(['rollout', 'status', `deployment/${app}`, '-n', namespace, '--timeout=180s']);
  // The disruption controller writes the budget's status after the pods are Ready; the
  // preflight's dry-run eviction reads it.
  await waitFor(
    `PDB ${app} allows one disruption`,
    () =>
      cluster
        .kubectl([
          'get',
          'pdb',
          app,
          '-n',
          namespace,
          '-o',
          'jsonpath={.status.disruptionsAllowed}',
        ])
        .trim() === '1',
    60_000,
    250,
  );
  return () =>
    kubectlSoon(cluster, [
      'patch',
      'pdb',
      app,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { maxUnavailable: 2 } }),
    ]);
}

/** The executor's account, as the audit log names it. */
export const EXECUTOR = 'system:serviceaccount:kubemaint:kubemaint-executor';

/**
 * The executor's first eviction in `namespace` the PDB refused (429) after `since`: a held drain is
 * under way. Waits up to 10 min: beside test:node's VMs a roll's first steps take minutes.
 */
export const refusedEviction = (audit: () => AuditEntry[], namespace: string, since: string) =>
  waitFor(
    'an eviction the PDB refused',
    () =>
      audit().find(
        (e) =>
          e.stageTimestamp >= since &&
          e.user.username === EXECUTOR &&
          resourceOf(e) === 'pods/eviction' &&
          e.objectRef?.namespace === namespace &&
          e.responseStatus?.code === 429,
      ),
    600_000,
    250,
  );

/** Host commands issued for a node, by request: each distinct `hostCommandIssuedAt` written. */
export const hostCommands = (entries: readonly AuditEntry[], node: string): string[] => [
  ...new Set(
    entries
      .filter((e) => isWrite(e) && resourceOf(e) === 'maintenancerequests/status')
      .map((e) => e.requestObject as RequestBody | undefined)
      .filter((r) => r?.spec.node === node && r.status?.hostCommandIssuedAt)
      .map((r) => `${r!.metadata.name} ${r!.status!.hostCommandIssuedAt}`),
  ),
];

/** `unschedulable` as each accepted write of `node` by kubemaint (`byKubemaint`) set it, in order. */
export const cordons = (
  entries: readonly AuditEntry[],
  node: string,
  byKubemaint: (e: AuditEntry) => boolean,
): unknown[] =>
  entries
    .filter(
      (e) =>
        isWrite(e) && resourceOf(e) === 'nodes' && e.objectRef?.name === node && byKubemaint(e),
    )
    .map((e) => (e.requestObject as { spec?: { unschedulable?: unknown } } | undefined)?.spec)
    .filter((spec) => spec !== undefined && 'unschedulable' in spec)
    .map((spec) => spec!.unschedulable ?? null);

/** One reboot, cordoned once by kubemaint and given back, as the audit log and the node say. */
export function assertRebootedOnce(
  cluster: RealCluster,
  entries: readonly AuditEntry[],
  node: string,
  byKubemaint: (e: AuditEntry) => boolean,
): void {
  const issued = hostCommands(entries, node);
  assert.equal(issued.length, 1, `host commands for ${node}: ${issued.join(', ')}`);
  const seen = cordons(entries, node, byKubemaint);
  assert.equal(
    seen.filter((u) => u === true).length,
    1,
    `${node} cordoned once: ${JSON.stringify(seen)}`,
  );
  assert.ok(!seen.at(-1), `${node}: the last cordon write gives it back: ${JSON.stringify(seen)}`);
  const unschedulable = cluster.kubectl([
    'get',
    'node',
    node,
    '-o',
    'jsonpath={.spec.unschedulable}',
  ]);
  assert.notEqual(unschedulable.trim(), 'true', `${node} is not left cordoned`);
}

/**
 * Writes by a serve made while another was the last writer of the election Lease (`election`), each
 * described, and the serves that wrote anything else. `serveOf` names the serve replica an entry's
 * author is, or undefined for anyone else (the executor, a kubelet, the test).
 */
export function actedOutOfTurn(
  entries: readonly AuditEntry[],
  election: string,
  serveOf: (e: AuditEntry) => string | undefined,
): { outOfTurn: string[]; acted: Set<string> } {
  let leaseWriter = '';
  const outOfTurn: string[] = [];
  const acted = new Set<string>();
  for (const e of entries.filter(isWrite)) {
    const who = serveOf(e);
    if (who === undefined) continue;
    if (e.objectRef?.name === election && resourceOf(e) === 'leases') {
      leaseWriter = who;
      continue;
    }
    acted.add(who);
    if (leaseWriter !== who)
      outOfTurn.push(
        `${describeEntry(e)} by ${who} (the Lease was last written by ${leaseWriter || 'nobody'})`,
      );
  }
  return { outOfTurn, acted };
}
