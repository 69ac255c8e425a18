/**
 * The embedded sim enforces what a real install of kubemaint grants (infra/k8s, applied by createSim
 * where the kubemaint namespace exists): each account acts through kubectl with its own credentials
 * and gets exactly its RBAC, and admission-policy.yaml's CEL policies narrow it further: the agent
 * changes only its own label (kubemaint.io/reboot-required) on its own node (the node comes from its pod-bound token), serve
 * sends only dry-run evictions. People act with client certificates; impersonation needs RBAC.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { kubemaintAccessObjects } from '../../../src/compose/sim-access.js';
import { R } from '@kubemaint/kubesim';
import { simIdentities, type Identities } from '../../support/sim-identities.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

const run = promisify(execFile);

/** kubectl with a kubeconfig: stdout, or the refusal on stderr (prefixed `refused: `). */
async function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  try {
    return (await run('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig } })).stdout;
  } catch (error) {
    return `refused: ${String((error as { stderr?: string }).stderr).trim()}`;
  }
}

/** `kubectl auth can-i`'s answer (it exits 1 for "no"). */
async function canI(kubeconfig: string, ...args: string[]): Promise<string> {
  try {
    const env = { ...process.env, KUBECONFIG: kubeconfig };
    return (await run('kubectl', ['auth', 'can-i', ...args], { env })).stdout.trim();
  } catch (error) {
    return String((error as { stdout?: string }).stdout).trim();
  }
}

describe('sim access control with kubemaint infra/k8s RBAC and admission policies', () => {
  let sim: TestSim;
  let ids: Identities;
  let agent: string;

  before(async () => {
    sim = await startTestSim({ scenario: 'demo', scale: 1 });
    ids = simIdentities(sim.credentials);
    // The agent's DaemonSet pod on node-1, which its pod-bound token names.
    sim.store.create(
      R.pods,
      {
        metadata: { name: 'agent-node-1', namespace: 'kubemaint' },
        spec: {
          nodeName: 'node-1',
          serviceAccountName: 'kubemaint-agent',
          containers: [{ name: 'agent', image: 'kubemaint-agent:0.1.0' }],
        },
      },
      { actor: 'test/setup' },
    );
    agent = ids.serviceAccountKubeconfig('kubemaint', 'kubemaint-agent', 'agent-node-1');
  });
  after(async () => sim?.close());

  it('lets the agent set its label on its own node only', async () => {
    assert.match(
      await kubectl(agent, 'label', 'node', 'node-1', 'kubemaint.io/reboot-required=true'),
      /labeled/,
    );
    assert.equal(
      sim.store.get(R.nodes, undefined, 'node-1')?.metadata.labels?.[
        'kubemaint.io/reboot-required'
      ],
      'true',
    );
    assert.equal(
      await kubectl(agent, 'label', 'node', 'node-2', 'kubemaint.io/reboot-required=true'),
      // The policy gives no reason, so Invalid (422): kubectl words it from the details and the cause.
      `refused: The nodes "node-2" is invalid: : ValidatingAdmissionPolicy 'kubemaint-agent-own-node-only' with binding 'kubemaint-agent-own-node-only' denied request: the kubemaint agent on node-1 may not change node node-2`,
    );
    assert.match(
      await kubectl(agent, 'label', 'node', 'node-1', 'team=ops'),
      /denied request: the kubemaint agent may only change /,
    );
    assert.equal(
      await kubectl(agent, 'get', 'pods', '-A'),
      'refused: Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:kubemaint:kubemaint-agent" cannot list resource "pods" in API group "" at the cluster scope',
    );
  });

  it('refuses the agent a token without its node (no pod binding)', async () => {
    const unbound = ids.serviceAccountKubeconfig('kubemaint', 'kubemaint-agent');
    assert.match(
      await kubectl(
        unbound,
        'label',
        'node',
        'node-1',
        'kubemaint.io/reboot-required=false',
        '--overwrite',
      ),
      /denied request: the kubemaint agent's token has no authentication\.kubernetes\.io\/node-name claim/,
    );
  });

  it('lets serve evict only as a dry run', async () => {
    const serve = ids.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve');
    const pod = sim.store.list(R.pods, { namespace: 'shop' })[0]?.metadata.name ?? '';
    assert.ok(pod, 'the demo has shop pods');
    const body = JSON.stringify({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod, namespace: 'shop' },
    });
    const post = async (query: string) => {
      const file = `${sim.dir}/eviction.json`;
      writeFileSync(file, body);
      return kubectl(
        serve,
        'create',
        '--raw',
        `/api/v1/namespaces/shop/pods/${pod}/eviction${query}`,
        '-f',
        file,
      );
    };
    // Admitted: evicted (dry run), or held by the shop's PDB while its pods start, never the policy.
    assert.match(await post('?dryRun=All'), /"status":"Success"|disruption budget/);
    // No reason in the policy: Invalid (422), which kubectl prints as `The pods "…" is invalid: : …`.
    // The refusal quotes the manifest's own message (read from infra/k8s, which may be reworded).
    const policy = kubemaintAccessObjects().find(
      (o) =>
        o.metadata.name === 'kubemaint-serve-dry-run-evictions-only' &&
        o.kind === 'ValidatingAdmissionPolicy',
    );
    const message = (policy?.spec?.['validations'] as { message: string }[])[0]?.message ?? '';
    assert.ok(
      (await post('')).endsWith(
        `is invalid: : ValidatingAdmissionPolicy 'kubemaint-serve-dry-run-evictions-only' with binding 'kubemaint-serve-dry-run-evictions-only' denied request: ${message}`,
      ),
    );
  });

  it('gives people what RBAC binds them and refuses impersonation without the verb', async () => {
    const mallory = ids.userKubeconfig('mallory', ['devs']);
    assert.equal(
      await kubectl(
        mallory,
        'auth',
        'whoami',
        '-o',
        'jsonpath={.status.userInfo.username} {.status.userInfo.groups}',
      ),
      'mallory ["devs","system:authenticated"]',
    );
    assert.equal(await canI(mallory, 'patch', 'nodes'), 'no');
    assert.equal(
      await kubectl(
        mallory,
        'get',
        'nodes',
        '--as',
        'system:serviceaccount:kubemaint:kubemaint-serve',
      ),
      'refused: Error from server (Forbidden): serviceaccounts "kubemaint-serve" is forbidden: User "mallory" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kubemaint"',
    );
    const serve = 'system:serviceaccount:kubemaint:kubemaint-serve';
    assert.equal(await canI(sim.kubeconfigPath, 'list', 'nodes', '--as', serve), 'yes');
    assert.equal(
      await canI(sim.kubeconfigPath, 'create', 'jobs', '-n', 'default', '--as', serve),
      'no',
    );
  });
});
