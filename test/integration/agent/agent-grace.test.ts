/**
 * The reporter agent reports its kubelet's graceful shutdown setting (ADR 0049) against the sim, as
 * the DaemonSet's pod does: its own pod-bound service-account token, the sim kubelet's `/configz`
 * (which asks the sim's TokenReview and SubjectAccessReview, as a kubelet asks its apiserver), and
 * infra/k8s's RBAC and admission policy as the sim installs them. Every case runs under each shell.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { R, type KubeletConfigzServer } from '@kubemaint/kubesim';
import { getConfigz as get } from '../../support/kubelet-configz.js';
import { availableShells, runAgent, sandbox } from './agent-harness.js';
import { startSimCluster, type AgentCluster } from './sim-cluster.js';

const NODE = 'node-3';
const POD = 'agent-grace-on-node-3';
const GRACE = 'kubemaint.io/shutdown-grace-period';
const CRITICAL = 'kubemaint.io/shutdown-grace-period-critical-pods';
const SOURCE = 'kubemaint.io/shutdown-grace-period-source';
const BY_PRIORITY = 'kubemaint.io/shutdown-grace-period-by-pod-priority';
/** Upstream's own example (kubelet config docs): the list, with the two durations at 0 as it must. */
const BY_PRIORITY_CONFIG = {
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
  shutdownGracePeriodByPodPriority: [
    { priority: 2000000000, shutdownGracePeriodSeconds: 10 },
    { priority: 100000, shutdownGracePeriodSeconds: 180 },
    { priority: 10000, shutdownGracePeriodSeconds: 120 },
    { priority: 0, shutdownGracePeriodSeconds: 60 },
  ],
};
const CLUSTER_ROLES = 'clusterroles.rbac.authorization.k8s.io';
const REPORTED = /shutdown grace period reported/g;

describe('the sim kubelet /configz checks the caller as a kubelet does', () => {
  let cluster: AgentCluster;
  let configz: KubeletConfigzServer;
  before(async () => {
    cluster = await startSimCluster();
    addAgentPod(cluster);
    configz = await cluster.sim.admin.serveConfigz(NODE, {
      shutdownGracePeriod: '20s',
      shutdownGracePeriodCriticalPods: '5s',
    });
  });
  after(() => cluster.stop());

  it("answers the agent's own token (RBAC: get nodes/configz) with the kubelet's config", async () => {
    const token = cluster.sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-agent', POD);
    const got = await get(configz.url, token, configz.caPem);
    assert.equal(got.status, 200, got.body);
    const config = (JSON.parse(got.body) as { kubeletconfig: Record<string, unknown> })
      .kubeletconfig;
    assert.equal(config['shutdownGracePeriod'], '20s');
    assert.equal(config['shutdownGracePeriodCriticalPods'], '5s');
  });

  it('refuses a token whose account may not get nodes/configz nor nodes/proxy (403)', async () => {
    const token = cluster.sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-executor');
    const got = await get(configz.url, token, configz.caPem);
    assert.equal(got.status, 403);
    assert.match(
      got.body,
      /Forbidden \(user=system:serviceaccount:kubemaint:kubemaint-executor, verb=get, resource=nodes, subresource\(s\)=\[configz proxy\]\)/,
    );
  });

  it('refuses a token the apiserver does not know (401)', async () => {
    assert.equal((await get(configz.url, 'not-a-token', configz.caPem)).status, 401);
  });

  it('serves shutdownGracePeriodByPodPriority as the kubelet does, and refuses it beside a period', async () => {
    configz.setConfig(BY_PRIORITY_CONFIG);
    const token = cluster.sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-agent', POD);
    const got = await get(configz.url, token, configz.caPem);
    const config = (JSON.parse(got.body) as { kubeletconfig: Record<string, unknown> })
      .kubeletconfig;
    assert.deepEqual(
      config['shutdownGracePeriodByPodPriority'],
      BY_PRIORITY_CONFIG.shutdownGracePeriodByPodPriority,
    );
    assert.throws(
      () => configz.setConfig({ ...BY_PRIORITY_CONFIG, shutdownGracePeriod: '30s' }),
      /Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time \(set both durations to 0s\)/,
    );
    assert.throws(
      () =>
        configz.setConfig({
          ...BY_PRIORITY_CONFIG,
          shutdownGracePeriodByPodPriority: [{ priority: 1.5, shutdownGracePeriodSeconds: 1 }],
        }),
      /shutdownGracePeriodByPodPriority\[0\]\.priority must be an int32, got 1\.5/,
    );
    assert.throws(
      () =>
        configz.setConfig({
          ...BY_PRIORITY_CONFIG,
          shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: -1 }],
        }),
      /shutdownGracePeriodByPodPriority\[0\]\.shutdownGracePeriodSeconds must be whole seconds \(0 or more\), got -1/,
    );
    // An empty list is left out of /configz, as the kubelet's omitempty leaves it.
    configz.setConfig({ ...BY_PRIORITY_CONFIG, shutdownGracePeriodByPodPriority: [] });
    const empty = await get(configz.url, token, configz.caPem);
    assert.doesNotMatch(empty.body, /ByPodPriority/);
    configz.setConfig({ shutdownGracePeriod: '20s', shutdownGracePeriodCriticalPods: '5s' });
  });

  it('refuses a config that is not a duration, saying which key', () => {
    assert.throws(
      () => configz.setConfig({ shutdownGracePeriod: '20', shutdownGracePeriodCriticalPods: '0s' }),
      /shutdownGracePeriod must be a duration as the kubelet config takes it \(20s, 1m30s, 0s\), got "20"/,
    );
  });
});

/** The agent's DaemonSet pod on NODE: what its token is bound to (no kubelet runs it). */
function addAgentPod(cluster: AgentCluster): void {
  if (cluster.sim.store.get(R.pods, 'kubemaint', POD)) return;
  cluster.sim.store.create(
    R.pods,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: POD, namespace: 'kubemaint' },
      spec: {
        nodeName: NODE,
        serviceAccountName: 'kubemaint-agent',
        containers: [{ name: 'agent', image: 'kubemaint-agent:0.1.0' }],
      },
    },
    { actor: 'test/setup' },
  );
}

for (const shell of availableShells()) {
  describe(`kubemaint-agent.sh reports the shutdown grace period under ${shell.name}`, () => {
    let cluster: AgentCluster;
    let configz: KubeletConfigzServer;
    let token: string;
    before(async () => {
      cluster = await startSimCluster();
      addAgentPod(cluster);
      token = cluster.sim.credentials.serviceAccountToken('kubemaint', 'kubemaint-agent', POD);
      configz = await cluster.sim.admin.serveConfigz(NODE);
    });
    after(() => cluster.stop());
    const fresh = (grace: string, critical: string) => {
      configz.setConfig({ shutdownGracePeriod: grace, shutdownGracePeriodCriticalPods: critical });
      cluster.setKubemaint(NODE, { labels: {}, annotations: {} });
      cluster.clearWrites();
      return sandbox(shell, cluster, token, NODE);
    };

    it('writes the kubelet configz period, critical period and source, once while unchanged', async () => {
      const box = fresh('20s', '5s');
      const env = box.env({ AGENT_ITERATIONS: '4', RESYNC_EVERY: '1', KUBELET_URL: configz.url });
      const run = await runAgent(shell, env);
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(cluster.node(NODE).annotations, {
        [GRACE]: '20s',
        [CRITICAL]: '5s',
        [SOURCE]: 'configz',
      });
      assert.equal(cluster.writes(NODE).length, 1, 'one write over four reads of the kubelet');
      assert.equal(run.output.match(REPORTED)?.length, 1, run.output);
      assert.ok(!run.output.includes(token), 'the token never appears in the log');
    });

    it("finds its kubelet at its host's address and the port its Node names (kube-apiserver indents JSON for curl)", async () => {
      const box = fresh('20s', '5s');
      // No KUBELET_URL: the DaemonSet's pod asks https://$HOST_IP:<status.daemonEndpoints port>.
      const env = box.env({ AGENT_ITERATIONS: '1', HOST_IP: '127.0.0.1' });
      delete env['KUBELET_URL'];
      const port = new URL(configz.url).port;
      assert.notEqual(port, '10250');
      const run = await runAgent(shell, env);
      assert.equal(run.code, 0, run.output);
      assert.equal(cluster.node(NODE).annotations[SOURCE], 'configz', run.output);
    });

    it('writes 0s when the kubelet has no graceful shutdown, and follows a change', async () => {
      const box = fresh('0s', '0s');
      const env = box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: configz.url });
      assert.equal((await runAgent(shell, env)).code, 0);
      assert.equal(cluster.node(NODE).annotations[GRACE], '0s');
      configz.setConfig({ shutdownGracePeriod: '1m30s', shutdownGracePeriodCriticalPods: '10s' });
      const again = await runAgent(shell, env);
      assert.equal(again.code, 0, again.output);
      assert.equal(cluster.node(NODE).annotations[GRACE], '1m30s');
      assert.equal(cluster.node(NODE).annotations[CRITICAL], '10s');
    });

    it("falls back to the host's kubelet config file when the kubelet refuses, and says so", async () => {
      const box = fresh('20s', '5s');
      mkdirSync(join(box.hostRoot, 'var/lib/kubelet'), { recursive: true });
      writeFileSync(
        join(box.hostRoot, 'var/lib/kubelet/config.yaml'),
        'kind: KubeletConfiguration\nshutdownGracePeriod: "45s" # before a reboot\n',
      );
      // An install whose ClusterRole lacks nodes/configz (older manifests): the kubelet's
      // SubjectAccessReview says no, and the agent reads the file instead, saying why.
      const role = cluster.sim.store.get(CLUSTER_ROLES, undefined, 'kubemaint-agent')!;
      const rules = role['rules'] as { resources: string[] }[];
      const withoutConfigz = (r: typeof role) => {
        r['rules'] = rules.filter((rule) => !rule.resources.includes('nodes/configz'));
      };
      cluster.sim.store.mutate(CLUSTER_ROLES, undefined, 'kubemaint-agent', withoutConfigz, {
        actor: 'test/setup',
      });
      try {
        const run = await runAgent(
          shell,
          box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: configz.url }),
        );
        assert.equal(run.code, 0, run.output);
        assert.match(
          run.output,
          /cannot read the kubelet's configz; trying the host's kubelet config file" url=\S+\/configz status=403/,
        );
        assert.deepEqual(cluster.node(NODE).annotations, {
          [GRACE]: '45s',
          [CRITICAL]: '0s',
          [SOURCE]: 'file',
        });
      } finally {
        cluster.sim.store.mutate(
          CLUSTER_ROLES,
          undefined,
          'kubemaint-agent',
          (r) => {
            r['rules'] = rules;
          },
          { actor: 'test/setup' },
        );
      }
      // A kubelet that does not answer at all: the file again, nothing rewritten.
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: 'https://127.0.0.1:1' }),
      );
      assert.equal(run.code, 0, run.output);
      assert.equal(cluster.node(NODE).annotations[SOURCE], 'file');
      assert.doesNotMatch(run.output, REPORTED, 'unchanged: not written again');
    });

    it('reports shutdownGracePeriodByPodPriority as the kubelet applies it: the sum, the critical group, each group', async () => {
      const box = fresh('0s', '0s');
      configz.setConfig(BY_PRIORITY_CONFIG);
      const env = box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: configz.url });
      const run = await runAgent(shell, env);
      assert.equal(run.code, 0, run.output);
      // 60 + 120 + 180 + 10 = 370 s, the kubelet's inhibitor delay; critical pods (2000000000)
      // are the last group's; the groups lowest priority first, as the kubelet sorts them.
      assert.deepEqual(cluster.node(NODE).annotations, {
        [GRACE]: '6m10s',
        [CRITICAL]: '10s',
        [SOURCE]: 'configz',
        [BY_PRIORITY]: '0:1m0s,10000:2m0s,100000:3m0s,2000000000:10s',
      });
      assert.match(run.output, /by-pod-priority="0:1m0s,10000:2m0s,100000:3m0s,2000000000:10s"/);
      // The kubelet restarted without the list: the list annotation goes.
      configz.setConfig({ shutdownGracePeriod: '20s', shutdownGracePeriodCriticalPods: '5s' });
      const again = await runAgent(shell, env);
      assert.equal(again.code, 0, again.output);
      assert.deepEqual(cluster.node(NODE).annotations, {
        [GRACE]: '20s',
        [CRITICAL]: '5s',
        [SOURCE]: 'configz',
      });
    });

    it("reads shutdownGracePeriodByPodPriority from the host's file too (block and flow YAML)", async () => {
      const box = fresh('20s', '5s');
      const file = join(box.hostRoot, 'var/lib/kubelet/config.yaml');
      mkdirSync(join(box.hostRoot, 'var/lib/kubelet'), { recursive: true });
      const env = box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: 'https://127.0.0.1:1' });
      writeFileSync(
        file,
        [
          'apiVersion: kubelet.config.k8s.io/v1beta1',
          'kind: KubeletConfiguration',
          'shutdownGracePeriodByPodPriority:',
          '- priority: 2000000000 # system-cluster-critical',
          '  shutdownGracePeriodSeconds: 15',
          '-   shutdownGracePeriodSeconds: 45',
          '    priority: -10',
          'shutdownGracePeriod: 0s',
          '',
        ].join('\n'),
      );
      const run = await runAgent(shell, env);
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(cluster.node(NODE).annotations, {
        [GRACE]: '1m0s',
        [CRITICAL]: '15s',
        [SOURCE]: 'file',
        [BY_PRIORITY]: '-10:45s,2000000000:15s',
      });
      // Flow style; a critical pod above every group falls in the highest (2000001000 > 1000).
      writeFileSync(
        file,
        'kind: KubeletConfiguration\nshutdownGracePeriodByPodPriority: [{priority: 1000, shutdownGracePeriodSeconds: 30}, {priority: 0, shutdownGracePeriodSeconds: 5}]\n',
      );
      const flow = await runAgent(shell, env);
      assert.equal(flow.code, 0, flow.output);
      assert.equal(cluster.node(NODE).annotations[GRACE], '35s');
      assert.equal(cluster.node(NODE).annotations[CRITICAL], '30s');
      assert.equal(cluster.node(NODE).annotations[BY_PRIORITY], '0:5s,1000:30s');
    });

    it('takes an empty file (hostPath FileOrCreate on a node whose kubelet reads another) for no file', async () => {
      const box = fresh('20s', '5s');
      mkdirSync(join(box.hostRoot, 'var/lib/kubelet'), { recursive: true });
      writeFileSync(join(box.hostRoot, 'var/lib/kubelet/config.yaml'), '');
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: 'https://127.0.0.1:1' }),
      );
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(cluster.node(NODE).annotations, {});
      assert.match(run.output, /shutdown grace period unknown/);
    });

    it("verifies the kubelet's certificate when given its CA", async () => {
      const box = fresh('20s', '5s');
      writeFileSync(join(box.saDir, 'kubelet-ca.crt'), configz.caPem);
      const run = await runAgent(
        shell,
        box.env({
          AGENT_ITERATIONS: '1',
          KUBELET_URL: configz.url,
          KUBELET_CA_FILE: join(box.saDir, 'kubelet-ca.crt'),
        }),
      );
      assert.equal(run.code, 0, run.output);
      assert.equal(cluster.node(NODE).annotations[SOURCE], 'configz');
    });

    it('writes nothing when neither configz nor the file answers, and logs why', async () => {
      const box = fresh('20s', '5s');
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', KUBELET_URL: 'https://127.0.0.1:1' }),
      );
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(cluster.node(NODE).annotations, {});
      assert.equal(cluster.writes(NODE).length, 0);
      assert.match(
        run.output,
        /shutdown grace period unknown: no configz and no kubelet config file/,
      );
    });
  });
}
