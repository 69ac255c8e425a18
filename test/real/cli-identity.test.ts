/**
 * Issue 15's "done when", on the real kube-apiserver with infra/k8s applied, through the real CLI:
 * `kubemaint approve ID --as alice` twice counts once; `--as alice` then `--as bob` satisfies the
 * two-person rule only when they are different people (`people:` joins alice and alice-admin into
 * one); `kubectl --as mallory` cannot move a request; `kubectl get mr -A` shows state and approvals.
 * The control plane is kubemaint's own, running as serve's ServiceAccount.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { openControl, type ControlRuntime } from '../../src/compose.js';
import { runTick } from '../../src/app/control/tick.js';
import { loadConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { applyAll, applyKubemaint, manifests } from '../support/apply-infra.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { runCli } from '../support/cli-process.js';
import { INFRA_K8S, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';
import { requestReader } from '../support/requests.js';

const NODE = 'cli-a';
const PEOPLE = ['alice', 'alice-admin', 'bob', 'carol'];

describe('the CLI acts as its Kubernetes identity (real apiserver)', () => {
  let cluster: RealCluster;
  let dir: string;
  let control: ControlRuntime;
  let id = '';

  const cli = (...args: string[]) =>
    runCli([...args, '--config', join(dir, 'kubemaint.yaml'), '--kubeconfig', cluster.kubeconfig], {
      cwd: dir,
    });
  const tick = () => runTick(control.deps);
  /** What serve does for a waiting CLI: tick (here twice a second) until the command returns. */
  async function served<T>(command: Promise<T>): Promise<T> {
    let done = false;
    const result = command.finally(() => (done = true));
    while (!done) {
      await tick();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return result;
  }

  before(async () => {
    cluster = await realCluster();
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-cli-identity-'));
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      [
        'cluster:',
        '  type: kubeconfig',
        '  kubeconfig:',
        `    path: ${cluster.kubeconfig}`,
        'people:',
        '  - name: alice',
        '    kubernetes: [alice, alice-admin]',
        'approval:',
        '  twoPerson: true',
        '  approvers:',
        '    kubernetes:',
        '      users: [alice, alice-admin, bob]',
        '  proposers:',
        '    kubernetes:',
        '      users: [carol]',
        '',
      ].join('\n'),
    );
    const admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    const carol = new KubeConfig();
    carol.loadFromFile(cluster.userKubeconfig('carol'));
    // infra/k8s first (the namespace the bindings below live in), enforced at the end.
    await applyAll(admin, manifests(INFRA_K8S));
    await applyAll(admin, [
      { apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'cli-people', namespace: 'kubemaint' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'kubemaint:person',
        },
        subjects: PEOPLE.map((name) => ({
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'User',
          name,
        })),
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'cli-read-nodes' },
        rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'cli-read-nodes' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cli-read-nodes',
        },
        subjects: PEOPLE.map((name) => ({
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'User',
          name,
        })),
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'cli-mallory', namespace: 'kubemaint' },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'cluster-admin',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }],
      },
    ]);
    await applyKubemaint(admin, INFRA_K8S, carol);
    const config = loadConfig({ path: join(dir, 'kubemaint.yaml'), env: {} });
    control = await openControl(config, {
      log: silentLogger(),
      kubeconfigPath: cluster.serviceAccountKubeconfig('kubemaint', 'kubemaint-serve'),
    });
  });
  after(async () => {
    await control?.close();
    const admin = new KubeConfig();
    admin.loadFromFile(cluster.kubeconfig);
    await cleanKubemaint(admin, { nodes: [NODE] });
  });

  it('carol asks with her own identity; kubemaint accepts her request', async () => {
    const asked = await cli('reboot', NODE, 'kernel', 'update', '--as', 'carol', '--wait', '0');
    assert.equal(asked.code, 0, asked.stderr);
    id = /asked as (r-[0-9a-f]{6})/.exec(asked.stdout)?.[1] ?? '';
    assert.ok(id, asked.stdout);
    await tick();
    const request = await requestReader(cluster.kubeconfig).byId(id);
    assert.equal(request?.state, 'proposed');
    assert.equal(
      request?.requestedBy,
      'k8s:carol',
      'the apiserver’s name for her, not a typed one',
    );
  });

  it('alice approving twice counts once', async () => {
    const first = await cli('approve', id, '--as', 'alice', '--wait', '0');
    const second = await cli('approve', id, '--as', 'alice', '--wait', '0');
    assert.equal(first.code, 0, first.stderr);
    assert.match(second.stdout, /you had already recorded it/);
    await tick();
    const request = await requestReader(cluster.kubeconfig).byId(id);
    assert.equal(request?.state, 'proposed');
    assert.deepEqual(
      request?.approvals.map((a) => a.by),
      ['k8s:alice'],
    );
  });

  it('alice under her other name is still alice: refused, and the CLI says why (exit 5)', async () => {
    const answer = await served(cli('approve', id, '--as', 'alice-admin', '--wait', '20'));
    assert.equal(answer.code, 5, answer.stdout + answer.stderr);
    assert.match(answer.stderr, /same person \(alice\)/);
    assert.equal((await requestReader(cluster.kubeconfig).byId(id))?.state, 'proposed');
  });

  it('mallory, cluster-admin in the namespace, cannot write the request’s status with kubectl', () => {
    const refused = refusal(() =>
      cluster.kubectl([
        '--as',
        'mallory',
        '-n',
        'kubemaint',
        'patch',
        'mr',
        id,
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"state":"approved"}}',
      ]),
    );
    assert.match(refused, /mallory may not write a MaintenanceRequest's status/);
  });

  it('bob is a second person: approved, and kubectl get mr -A shows it', async () => {
    const answer = await served(cli('approve', id, '--as', 'bob', '--wait', '20'));
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, new RegExp(`${id} is approved`));
    const table = cluster.kubectl(['get', 'mr', '-A']);
    const row = table.split('\n').find((line) => line.includes(id)) ?? '';
    assert.match(table, /NAMESPACE\s+NAME\s+NODE\s+ACTION\s+STATE\s+APPROVALS\s+AGE/);
    assert.match(
      row,
      new RegExp(
        `kubemaint\\s+${id}\\s+${NODE}\\s+reboot\\s+(approved|running)\\s+k8s:alice, k8s:bob`,
      ),
    );
  });
});
