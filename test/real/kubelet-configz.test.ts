/**
 * The reporter agent's graceful-shutdown report (ADR 0049) on the real control plane: a simulated
 * node attached to kube-apiserver serves its kubelet `/configz` and asks the real TokenReview and
 * SubjectAccessReview as its node (`system:node:<name>`), as a kubelet with webhook authentication
 * and authorization does. infra/k8s's RBAC grants the agent `get nodes/configz` and not
 * `nodes/proxy`; its admission policy lets it write exactly the three shutdown-grace-period
 * annotations, on its own node only. The agent script itself (dash) writes them with its pod-bound
 * token.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { attachSim, type AttachedSim } from '@kubemaint/kubesim/attach';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { getConfigz } from '../support/kubelet-configz.js';
import { INFRA_K8S, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';
import { availableShells, runAgent, sandbox } from '../integration/agent/agent-harness.js';

const NODE = 'grace-0';
const OTHER = 'grace-other';
const POD = 'agent-on-grace-0';
const FLEET_USER = 'grace-fleet';

describe(
  "the agent reads its kubelet's /configz on the real control plane",
  { timeout: 300_000 },
  () => {
    let cluster: RealCluster;
    let attached: AttachedSim | undefined;
    let agent: string;
    let token: (sa: string, pod?: string) => string;

    before(async () => {
      cluster = await realCluster();
      // Again on a timeout: a loaded machine's apiserver can give up on one object of the many.
      for (let attempt = 1; ; attempt++) {
        try {
          cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-k', INFRA_K8S]);
          break;
        } catch (error) {
          if (attempt >= 3 || !/Timeout/.test(String(error))) throw error;
        }
      }
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: OTHER } }),
      });
      attached = await attachSim({
        kubeconfig: cluster.fleetKubeconfig(FLEET_USER, [NODE]),
        nodes: 1,
        prefix: 'grace-',
        labels: { 'topology.kubernetes.io/zone': 'grace' },
        gracefulShutdown: { shutdownGracePeriod: '20s', shutdownGracePeriodCriticalPods: '5s' },
        // The agent's pod: what its token is bound to; it idles (the test runs the script itself).
        images: {
          'kubemaint-agent:*': {
            command: [process.execPath, '-e', 'setInterval(() => {}, 60_000)'],
          },
        },
      });
      cluster.kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: POD, namespace: 'kubemaint' },
          spec: {
            nodeName: NODE,
            serviceAccountName: 'kubemaint-agent',
            containers: [{ name: 'agent', image: 'kubemaint-agent:0.1.0' }],
          },
        }),
      });
      token = (sa, pod) =>
        cluster
          .kubectl([
            'create',
            'token',
            sa,
            '-n',
            'kubemaint',
            '--duration=1h',
            ...(pod ? ['--bound-object-kind=Pod', `--bound-object-name=${pod}`] : []),
          ])
          .trim();
      agent = cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-agent', POD);
    });
    after(async () => {
      await attached?.stop();
      // Its nodes go NotReady once stopped: left behind, they would hold later suites' requests back.
      await cleanKubemaint(cluster.admin, { nodes: [NODE, OTHER], pods: [POD] });
    });

    it('RBAC grants the agent get nodes/configz and not nodes/proxy', () => {
      const canI = (subresource: string) => {
        try {
          return cluster
            .kubectl(['auth', 'can-i', 'get', 'nodes', `--subresource=${subresource}`], {
              kubeconfig: agent,
            })
            .trim();
        } catch (error) {
          return String((error as { stdout?: unknown }).stdout ?? error).trim();
        }
      };
      assert.equal(canI('configz'), 'yes');
      assert.match(canI('proxy'), /^no/);
    });

    it("the kubelet answers the agent's token (the real SubjectAccessReview), refuses another account's", async () => {
      const url = attached!.configz[NODE]!.url;
      const allowed = await getConfigz(url, token('kubemaint-agent', POD));
      assert.equal(allowed.status, 200, allowed.body);
      assert.match(allowed.body, /"shutdownGracePeriod":"20s"/);
      const denied = await getConfigz(url, token('kubemaint-executor'));
      assert.equal(denied.status, 403, denied.body);
      assert.match(denied.body, /user=system:serviceaccount:kubemaint:kubemaint-executor/);
      assert.equal((await getConfigz(url, 'not-a-token')).status, 401);
    });

    it('the agent script writes the three annotations on its node; admission lets it', async () => {
      const shell = availableShells()[0]!;
      const current = cluster.admin.getCurrentCluster()!;
      const caPem = current.caData
        ? Buffer.from(current.caData, 'base64').toString()
        : readFileSync(current.caFile ?? '', 'utf8');
      const box = sandbox(
        shell,
        { url: cluster.server, caPem },
        token('kubemaint-agent', POD),
        NODE,
      );
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: attached!.configz[NODE]!.url }),
      );
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /shutdown grace period reported/);
      const annotations = JSON.parse(
        cluster.kubectl(['get', 'node', NODE, '-o', 'jsonpath={.metadata.annotations}']),
      ) as Record<string, string>;
      assert.equal(annotations['kubemaint.io/shutdown-grace-period'], '20s');
      assert.equal(annotations['kubemaint.io/shutdown-grace-period-critical-pods'], '5s');
      assert.equal(annotations['kubemaint.io/shutdown-grace-period-source'], 'configz');
    });

    it('admission: exactly these annotations, and only on its own node', () => {
      assert.match(
        refusal(() =>
          cluster.kubectl(
            ['annotate', 'node', OTHER, 'kubemaint.io/shutdown-grace-period=0s', '--overwrite'],
            { kubeconfig: agent },
          ),
        ),
        new RegExp(`the kubemaint agent on ${NODE} may not change node ${OTHER}`),
      );
      assert.match(
        refusal(() =>
          cluster.kubectl(
            ['annotate', 'node', NODE, 'kubemaint.io/shutdown-grace-period-x=0s', '--overwrite'],
            { kubeconfig: agent },
          ),
        ),
        /may only change its own annotations/,
      );
    });
  },
);
