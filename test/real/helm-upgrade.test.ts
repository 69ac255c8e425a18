/**
 * Upgrading kubemaint in the middle of a campaign (issue 32, ADR 0057): `helm upgrade` from the
 * previous chart version while one node drains and two are approved. Nothing is lost or done twice:
 * the executor Job that was running finishes under the old image, the new `serve` carries on (it
 * verifies that node and dispatches the other two with the new image), every node reboots once, none
 * is left cordoned, and no two serves acted at once across the roll of serve's pods. Judged from the
 * apiserver's audit log (test/support/real-roll.ts), the Jobs' pod specs and the simulated hosts' log.
 *
 * What runs: a control plane of its own (Helm must not meet the objects other suites applied to the
 * shared one), five simulated nodes attached as real API clients (`sim --attach`): three roll, two
 * run serve. The chart is installed and upgraded by the real Helm, and serve's Deployment pods, as
 * the real scheduler places them and the real Deployment controller rolls them, run on the attached
 * kubelets as local `kubemaint serve` processes with the chart's args, the chart's ConfigMap as their
 * config file (the kubelet's copy of the volume, pod-volumes.ts) and a token bound to their pod; so do
 * the executor Jobs' pods. The audit log tells the replicas apart by that token's pod-name claim.
 *
 * Honest limits:
 * - "The previous chart version" is this chart packaged as 0.0.9 (`helm package --version 0.0.9
 *   --app-version 0.0.9`, so its images are tagged 0.0.9) and the upgrade goes to the chart as it is
 *   (0.1.0). No release was published before this one, so both tags map to this checkout's code:
 *   what is proven is the upgrade's orchestration (serve's pods replaced under a held drain, the
 *   running Job left alone, the Lease handed from old pods to new, the work carried on), not that an
 *   older kubemaint's objects are read by a newer one. The CRDs are the same on both sides (Helm never
 *   upgrades crds/; docs/deploy-cluster.md says to apply them first).
 * - Values that differ from a production install, each for the simulation: `cluster.type:
 *   kubeconfig` (the attached kubelet hands the pod's token over as KUBECONFIG, not at
 *   /var/run/secrets), `serve.ops.port: 0` (the replicas share this machine's ports), the sim host's
 *   reboot command, a tick a second, serve pinned to two nodes of its own. The election keeps its
 *   default timings (15 s, 10 s, 2 s): at 4/3/1 s a leader beside test:node's VMs stood down every few
 *   seconds (faults.test.ts), and a stopping leader releases the Lease, so the hand-over is a retry.
 * - Waits are bounds of minutes (serve starts through tsx, beside VMs on two cores); the assertions
 *   are exact.
 * - The attached kubelet runs no probes: a started process is Ready. So the Deployment replaces an
 *   old pod while the new one is still starting, and nobody leads for that while (tens of seconds on
 *   a loaded machine); on a real cluster the readiness probe holds the roll until the new pod has
 *   read the Lease. A harder hand-over than the real one, not an easier one.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { down, up } from '../../scripts/real-cluster/control-plane.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../../scripts/real-cluster/versions.js';
import { MAIN, startCli, type LongRunning } from '../support/cli-process.js';
import { CHART, helmBinary, runHelm } from '../support/helm-chart.js';
import { isWrite, readAudit, resourceOf, type AuditEntry } from '../support/real-audit.js';
import { clusterAt, type RealCluster } from '../support/real-cluster.js';
import {
  actedOutOfTurn,
  assertRebootedOnce,
  EXECUTOR,
  holdDrainOn,
  refusedEviction,
} from '../support/real-roll.js';
import { waitFor } from '../support/sim.js';

const NS = 'kubemaint';
const APP_NS = 'helmup';
const ELECTION = 'kubemaint-serve-leader';
const IMAGE = 'ghcr.io/kubemaint/kubemaint';
const OLD = '0.0.9';
const NEW = (parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string })
  .appVersion;
const SERVE = 'system:serviceaccount:kubemaint:kubemaint-serve';
const POD_CLAIM = 'authentication.kubernetes.io/pod-name';
const ROLL = ['helmup-roll-0', 'helmup-roll-1', 'helmup-roll-2'];
const CONTROL = ['helmup-serve-0', 'helmup-serve-1'];
/** Where the pods' output is kept after the run (git-ignored): a failure names what it waited for. */
const LOGS = resolve(import.meta.dirname, '../../.kubemaint/helm-upgrade-logs');

interface RequestJson {
  metadata: { name: string; creationTimestamp: string };
  spec: { node: string };
  status?: { state?: string };
}
interface PodJson {
  metadata: {
    name: string;
    uid: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  spec: { containers: { image: string }[] };
  status?: { phase?: string };
}
interface JobJson {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  spec: { template: { spec: { containers: { image: string }[] } } };
  status?: { succeeded?: number; active?: number };
}

describe('helm upgrade in the middle of a campaign', { timeout: 2_400_000 }, () => {
  const dir = resolve('.kubemaint/real-cluster-helm-upgrade');
  let cluster: RealCluster;
  let helm: string;
  let scratch: string;
  let values: string;
  const fleets: LongRunning[] = [];
  let hostUrl: string;
  let startedAt: string;
  const bootIds = new Map<string, string>();
  // What the first test saw before the upgrade, for the ones after it.
  const seen: { job?: JobJson; pod?: PodJson; servePods?: string[] } = {};
  let releaseDrain: () => Promise<unknown> = () => Promise.resolve();

  const audit = (): AuditEntry[] => readAudit(cluster, startedAt);
  const json = <T>(args: string[]): T => JSON.parse(cluster.kubectl([...args, '-o', 'json'])) as T;
  const requests = () =>
    json<{ items: RequestJson[] }>(['get', 'maintenancerequests', '-n', NS]).items;
  const requestOn = (node: string) => {
    const mine = requests().filter((r) => r.spec.node === node);
    assert.ok(
      mine.length <= 1,
      `one request for ${node}: ${mine.map((r) => r.metadata.name).join(', ')}`,
    );
    return mine[0];
  };
  const jobOf = (request: string) =>
    json<{ items: JobJson[] }>(['get', 'jobs', '-n', NS, '-l', `kubemaint.io/request=${request}`])
      .items;
  const podsOfJob = (job: string) =>
    json<{ items: PodJson[] }>(['get', 'pods', '-n', NS, '-l', `job-name=${job}`]).items;
  const servePods = () =>
    json<{ items: PodJson[] }>([
      'get',
      'pods',
      '-n',
      NS,
      '-l',
      'app.kubernetes.io/name=kubemaint-serve',
    ]).items;
  const holder = () =>
    cluster
      .kubectl([
        'get',
        'lease',
        ELECTION,
        '-n',
        NS,
        '--ignore-not-found',
        '-o',
        'jsonpath={.spec.holderIdentity}',
      ])
      .trim();
  const bootId = (node: string) =>
    cluster.kubectl(['get', 'node', node, '-o', 'jsonpath={.status.nodeInfo.bootID}']).trim();
  const mark = (node: string) =>
    cluster.kubectl(['label', 'node', node, 'kubemaint.io/reboot-required=true', '--overwrite']);
  const state = (node: string) => requestOn(node)?.status?.state;
  /** The serve pod an audit entry's author is (its token's pod claim), or undefined for anyone else. */
  const serveOf = (e: AuditEntry) =>
    e.user.username === SERVE ? (e.user.extra?.[POD_CLAIM]?.[0] ?? '(no pod claim)') : undefined;
  const byKubemaint = (e: AuditEntry) => e.user.username === EXECUTOR || e.user.username === SERVE;
  const helmRun = (args: string[]) => runHelm(helm, args, { KUBECONFIG: cluster.kubeconfig });

  before(async () => {
    helm = await helmBinary();
    const version = parseKubernetesVersion(
      process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    );
    cluster = clusterAt(
      await up({ version, dir, fresh: true, say: (l) => process.stderr.write(`# ${l}\n`) }),
    );
    startedAt = new Date().toISOString();
    scratch = mkdtempSync(join(tmpdir(), 'kubemaint-helm-upgrade-'));
    rmSync(LOGS, { recursive: true, force: true });
    mkdirSync(LOGS, { recursive: true });

    // Both tags run this checkout's CLI; each pod's output goes to a file of its own (the attached
    // kubelet keeps it in its process only). exec: the signals reach node itself.
    const image = join(scratch, 'kubemaint-image');
    writeFileSync(
      image,
      `#!/usr/bin/env bash\nexec ${process.execPath} --import ${import.meta.resolve('tsx')} ${MAIN} "$@" > >(exec tee -a "${LOGS}/$POD_NAME.log") 2>&1\n`,
    );
    chmodSync(image, 0o755);
    // Two fleets, each labelled as it registers: a label put on later reaches an attached kubelet's
    // view of its Node only with its next status write, and a pod the scheduler placed by the new
    // label meanwhile is rejected (NodeAffinity), as a real kubelet with a stale node cache does.
    const fleetKubeconfig = cluster.fleetKubeconfig('helmup-fleet', [...ROLL, ...CONTROL]);
    const attach = (role: string, nodes: number) => {
      const fleet = startCli(
        [
          'sim',
          '--attach',
          fleetKubeconfig,
          '--nodes',
          String(nodes),
          '--name-prefix',
          `helmup-${role}-`,
          '--label',
          'topology.kubernetes.io/zone=helmup',
          '--label',
          `kubemaint.io/helmup=${role}`,
          '--reboot-downtime',
          '3',
          '--image',
          `${IMAGE}:${OLD}=${image}`,
          '--image',
          `${IMAGE}:${NEW}=${image}`,
        ],
        { cwd: scratch },
      );
      fleets.push(fleet);
      return fleet.waitFor(/kubemaint sim attached: .* host=(\S+)/, 300_000);
    };
    const [rolled] = await Promise.all([
      attach('roll', ROLL.length),
      attach('serve', CONTROL.length),
    ]);
    hostUrl = rolled[1]!;
    cluster.kubectl(['create', 'namespace', APP_NS]);

    values = join(scratch, 'values.yaml');
    writeFileSync(
      values,
      stringify({
        serve: { nodeSelector: { 'kubemaint.io/helmup': 'serve' } },
        config: {
          cluster: { type: 'kubeconfig' },
          kubelet: { enabled: false },
          approval: { autoApprove: { nodeSelector: 'kubemaint.io/helmup=roll' } },
          slot: { ttl: '45s' },
          drain: { timeout: '30m' },
          reboot: {
            command: ['kubemaint-sim-host', 'reboot'],
            nodeTimeout: '180s',
            expectedDuration: '20s',
          },
          executor: { hostPrefix: [] },
          schedules: { tick: '* * * * * *' },
          serve: { ops: { port: 0 } },
        },
      }),
    );
    runHelm(helm, ['package', CHART, '--version', OLD, '--app-version', OLD, '-d', scratch]);
    helmRun([
      'install',
      'kubemaint',
      join(scratch, `kubemaint-${OLD}.tgz`),
      '--namespace',
      'default',
      '-f',
      values,
    ]);
    // serve's pods take their env from it (envFrom): they start once it exists, as the guide says.
    // Empty: no Slack, prompts go to the log and the policy approves.
    cluster.kubectl(['create', 'secret', 'generic', 'kubemaint-slack', '-n', NS]);
    cluster.kubectl([
      'rollout',
      'status',
      'deployment/kubemaint-serve',
      '-n',
      NS,
      '--timeout=600s',
    ]);
    await waitFor('an old serve leads', () => holder() !== '', 600_000, 250);
    for (const node of ROLL) bootIds.set(node, bootId(node));
  });

  after(async () => {
    for (const fleet of fleets) await fleet.stop().catch(() => undefined);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await down(dir);
  });

  it(`before the upgrade: ${ROLL[0]} drains under serve ${OLD}, ${ROLL[1]} and ${ROLL[2]} are approved and wait`, async () => {
    // Pods that stop 2 s after their eviction: the drain ends soon after the PDB lets it.
    releaseDrain = await holdDrainOn(cluster, APP_NS, ROLL[0]!, { graceSeconds: 2 });
    const since = new Date().toISOString();
    mark(ROLL[0]!);
    await refusedEviction(audit, APP_NS, since);
    for (const node of ROLL.slice(1)) mark(node);
    await waitFor(
      `${ROLL[1]} and ${ROLL[2]} approved`,
      () => ROLL.slice(1).every((node) => state(node) === 'approved'),
      180_000,
      250,
    );
    // A few ticks more: they stay approved while the only slot is taken.
    await new Promise((r) => setTimeout(r, 3_000));
    assert.deepEqual(
      ROLL.map((node) => state(node)),
      ['running', 'approved', 'approved'],
    );
    const request = requestOn(ROLL[0]!)!;
    const [job, ...more] = jobOf(request.metadata.name);
    assert.ok(job && more.length === 0, `one Job for ${request.metadata.name}`);
    assert.equal(job.spec.template.spec.containers[0]?.image, `${IMAGE}:${OLD}`);
    const [pod] = podsOfJob(job.metadata.name);
    assert.ok(pod, 'its pod');
    for (const node of ROLL.slice(1)) assert.deepEqual(jobOf(requestOn(node)!.metadata.name), []);
    const serves = servePods();
    assert.deepEqual(
      serves.map((p) => p.spec.containers[0]?.image),
      [`${IMAGE}:${OLD}`, `${IMAGE}:${OLD}`],
    );
    Object.assign(seen, { job, pod, servePods: serves.map((p) => p.metadata.name) });
  });

  it(`helm upgrade to ${NEW}: serve's pods are replaced, the running Job is left as it is`, async () => {
    assert.ok(seen.job && seen.pod && seen.servePods, 'the first test ran');
    const started = performance.now();
    helmRun(['upgrade', 'kubemaint', CHART, '--namespace', 'default', '-f', values]);
    cluster.kubectl([
      'rollout',
      'status',
      'deployment/kubemaint-serve',
      '-n',
      NS,
      '--timeout=600s',
    ]);
    // Rolled out is the new pods Ready; the old ones may still be stopping.
    await waitFor(
      'only new serve pods',
      () => {
        const pods = servePods();
        return (
          pods.length === 2 &&
          pods.every(
            (p) =>
              !seen.servePods!.includes(p.metadata.name) &&
              p.spec.containers[0]?.image === `${IMAGE}:${NEW}`,
          )
        );
      },
      600_000,
      250,
    );
    const newPods = servePods().map((p) => p.metadata.name);
    await waitFor(
      'a new serve leads',
      () => newPods.some((name) => holder().startsWith(`${name}_`)),
      // A new pod's process starting through tsx beside the others (see the header: no probes);
      // the old leader released the Lease as it stopped, so it is taken at the next retry (2 s).
      600_000,
      250,
    );
    process.stdout.write(
      `# helm upgrade: new serve leading ${((performance.now() - started) / 1_000).toFixed(1)} s after the upgrade began\n`,
    );

    const [job, ...more] = jobOf(requestOn(ROLL[0]!)!.metadata.name);
    assert.ok(job && more.length === 0, 'still one Job');
    assert.equal(job.metadata.uid, seen.job.metadata.uid, 'the same Job, not made again');
    assert.equal(job.spec.template.spec.containers[0]?.image, `${IMAGE}:${OLD}`);
    const pods = podsOfJob(job.metadata.name);
    assert.deepEqual(
      pods.map((p) => p.metadata.uid),
      [seen.pod.metadata.uid],
      'the same pod, still running',
    );
    assert.equal(pods[0]?.status?.phase, 'Running');
    assert.deepEqual(
      ROLL.map((node) => state(node)),
      ['running', 'approved', 'approved'],
      'the upgrade itself changed no request',
    );
  });

  it('after it: the old Job finishes, the new serve rolls the rest; each node rebooted once, none left cordoned, nothing lost', async () => {
    assert.ok(seen.job && seen.servePods, 'the first tests ran');
    await releaseDrain();
    // Until each has ended, whichever way: a failure is reported at once with its reason (waitFor
    // would take a throw for "not yet" and wait out its limit).
    const ended = await waitFor(
      'every request ended',
      () => {
        const all = ROLL.map((node) => requestOn(node)!);
        return all.every((r) => ['done', 'failed', 'cancelled'].includes(r.status?.state ?? ''))
          ? all
          : undefined;
      },
      900_000,
      500,
    );
    for (const r of ended)
      assert.equal(r.status?.state, 'done', `${r.spec.node}: ${JSON.stringify(r.status)}`);
    const entries = audit();
    const newServe = (who: string | undefined) =>
      who !== undefined && !seen.servePods!.includes(who) && who !== '(no pod claim)';

    // The old Job ran to its end under the old image; the other two were made by a new serve, with the new one.
    const first = jobOf(requestOn(ROLL[0]!)!.metadata.name)[0];
    assert.equal(first?.metadata.uid, seen.job.metadata.uid);
    assert.equal(first?.status?.succeeded, 1, 'the old Job succeeded');
    for (const node of ROLL.slice(1)) {
      const [job] = jobOf(requestOn(node)!.metadata.name);
      assert.ok(job, `${node}'s Job`);
      assert.equal(job.spec.template.spec.containers[0]?.image, `${IMAGE}:${NEW}`);
      const created = entries.find(
        (e) =>
          isWrite(e) &&
          e.verb === 'create' &&
          resourceOf(e) === 'jobs' &&
          e.objectRef?.name === job.metadata.name,
      );
      assert.ok(
        created && newServe(serveOf(created)),
        `${job.metadata.name} created by a new serve: ${created && serveOf(created)}`,
      );
    }
    // The new serve verified the node the old one had started.
    const verified = entries.find(
      (e) =>
        isWrite(e) &&
        resourceOf(e) === 'maintenancerequests/status' &&
        (e.requestObject as RequestJson | undefined)?.spec.node === ROLL[0] &&
        (e.requestObject as RequestJson | undefined)?.status?.state === 'done',
    );
    assert.ok(verified && newServe(serveOf(verified)), `${ROLL[0]} done, written by a new serve`);

    // Each node: one host command issued (audit), one reboot on its host, a new bootID, given back.
    const hostLog = (
      (await (await fetch(`${hostUrl}/_sim/host-log`)).json()) as {
        items: { node: string; action: string }[];
      }
    ).items;
    for (const node of ROLL) {
      assertRebootedOnce(cluster, entries, node, byKubemaint);
      assert.equal(
        hostLog.filter((a) => a.node === node && a.action === 'reboot').length,
        1,
        `${node} rebooted once on its host`,
      );
      assert.notEqual(bootId(node), bootIds.get(node), `${node} has a new bootID`);
    }
    assert.equal(requests().length, ROLL.length, 'no request lost or made twice');

    // No two serves acted at once, across old pods and new.
    const { outOfTurn, acted } = actedOutOfTurn(entries, ELECTION, serveOf);
    assert.deepEqual(
      outOfTurn,
      [],
      'every write by a serve was made by the last writer of the Lease',
    );
    assert.ok(
      [...acted].some((p) => seen.servePods!.includes(p)) && [...acted].some(newServe),
      `an old and a new serve acted: ${[...acted].join(', ')}`,
    );
  });
});
