/**
 * The real control plane for tests in `test/real/`: `npm run test:real` starts one (scripts/real-cluster)
 * and passes its admin kubeconfig in KUBEMAINT_REAL_KUBECONFIG; a single file run by hand without it
 * starts (or reuses) the developer's cluster in `.kubemaint/real-cluster`.
 *
 * Besides the admin kubeconfig, tests get other identities the way a real cluster has them: a client
 * certificate for any user and groups (signed by the cluster CA), and a service account's token from
 * the TokenRequest API. Tests that prove what an identity may do must use those, never the admin.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import {
  up,
  readState,
  start,
  stop,
  type ClusterState,
} from '../../scripts/real-cluster/control-plane.js';
import { writeKubeconfig } from '../../scripts/real-cluster/kubeconfig.js';
import { createPki } from '../../scripts/real-cluster/pki.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../../scripts/real-cluster/versions.js';

export interface RealCluster {
  /** The admin (system:masters) kubeconfig: for setting up and reading back only. */
  kubeconfig: string;
  server: string;
  version: string;
  /** The folder of the cluster's state (pki/, logs/audit.log, …). */
  dir: string;
  admin: KubeConfig;
  /** A kubeconfig for a user with a client certificate signed by the cluster CA. */
  userKubeconfig(user: string, groups?: string[]): string;
  /**
   * A kubeconfig for a simulated fleet (`kubemaint sim --attach`) that may do nothing but impersonate
   * exactly these nodes (`system:node:<name>`) and their group, and list and watch pods (the fleet's
   * one pod watch, ADR 0058): a ClusterRole and binding named `user`.
   */
  fleetKubeconfig(user: string, nodes: readonly string[]): string;
  /**
   * A kubeconfig carrying a service account's token (TokenRequest, 1 h). Bound to a pod of the same
   * namespace (one with `spec.nodeName`), the token carries the node-name extra a kubelet's would.
   */
  serviceAccountKubeconfig(namespace: string, name: string, boundToPod?: string): string;
  /** Runs kubectl (kubectlFor the server's minor) with a kubeconfig; returns stdout. */
  kubectl(args: string[], options?: { kubeconfig?: string; input?: string }): string;
  /** A fault: stop one component of the control plane (SIGTERM), until `start`. */
  stop(component: FaultyComponent): Promise<void>;
  /** Start a stopped component again with the same arguments; resolves once it is healthy. */
  start(component: FaultyComponent): Promise<void>;
}

export type FaultyComponent = 'etcd' | 'kube-apiserver';

/** kubemaint's manifests, as `kubectl apply --server-side -k` takes them. */
export const INFRA_K8S = fileURLToPath(new URL('../../infra/k8s', import.meta.url));

/** stderr of a kubectl the apiserver refused; fails the test if it was allowed. */
export function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return String((error as { stderr?: string }).stderr ?? error);
  }
  return assert.fail('the apiserver allowed it');
}

/**
 * Make `user` a kubemaint person as an installer binds its people (infra/k8s/rbac-people.yaml):
 * `kubemaint:person` in the kubemaint namespace and `kubemaint:person-nodes` cluster-wide.
 */
export function bindPerson(cluster: RealCluster, user: string): void {
  const binding = (kind: string, name: string, role: string, namespace?: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  cluster.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        binding('ClusterRoleBinding', `person-nodes-${user}`, 'kubemaint:person-nodes'),
        binding('RoleBinding', `person-${user}`, 'kubemaint:person', 'kubemaint'),
      ],
    }),
  });
}

let cached: Promise<RealCluster> | undefined;

/**
 * The kubectl to run against a server of `minor`: the machine's dispatcher picks its own default for a
 * server newer than the kubectls it has (1.32 for 1.34, outside the skew), so take the newest
 * `kubectl.1.XX` beside it that is within one minor, as a user would. KUBEMAINT_KUBECTL overrides.
 */
export function kubectlFor(minor: number): string {
  const chosen = process.env['KUBEMAINT_KUBECTL'];
  if (chosen) return chosen;
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    const found = join(dir, 'kubectl');
    if (!existsSync(found)) continue;
    const beside = dirname(realpathSync(found));
    for (const m of [minor, minor - 1]) {
      if (existsSync(join(beside, `kubectl.1.${m}`))) return join(beside, `kubectl.1.${m}`);
    }
    return found;
  }
  return 'kubectl';
}

export function realCluster(): Promise<RealCluster> {
  cached ??= open();
  return cached;
}

/**
 * Forget the cluster opened so far, so that the next realCluster() opens the one
 * KUBEMAINT_REAL_KUBECONFIG names then: a bench that runs one fresh control plane after another
 * (bench/scale.ts) otherwise gets the first one's identities, on a port nobody listens on.
 */
export function forgetRealCluster(): void {
  cached = undefined;
}

async function open(): Promise<RealCluster> {
  const given = process.env['KUBEMAINT_REAL_KUBECONFIG'];
  let state: ClusterState | undefined;
  if (given) {
    state = readState(dirname(given));
    if (!state)
      throw new Error(
        `KUBEMAINT_REAL_KUBECONFIG=${given} is not a kubeconfig written by npm run real-cluster -- up`,
      );
  } else {
    const version = parseKubernetesVersion(
      process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    );
    state = await up({ version, say: (line) => process.stderr.write(`# ${line}\n`) });
  }
  return clusterAt(state);
}

/**
 * A control plane a test started itself (`up({ dir, fresh: true })`, e.g. for a Helm release, which
 * must not meet the objects other suites applied to the shared one), with the same identities and
 * kubectl as realCluster's. The test stops it (`down(dir)`).
 */
export function clusterAt(state: ClusterState): RealCluster {
  const { dir, server, kubeconfig } = state;
  const pki = createPki(join(dir, 'pki'));
  const scratch = mkdtempSync(join(tmpdir(), 'kubemaint-real-'));
  const admin = new KubeConfig();
  admin.loadFromFile(kubeconfig);
  const kubectlBin = kubectlFor(Number(/^v1\.(\d+)\./.exec(state.version)?.[1] ?? 0));
  const kubectl: RealCluster['kubectl'] = (args, options = {}) =>
    execFileSync(kubectlBin, args, {
      encoding: 'utf8',
      env: { ...process.env, KUBECONFIG: options.kubeconfig ?? kubeconfig },
      input: options.input,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  const userKubeconfig: RealCluster['userKubeconfig'] = (user, groups = []) => {
    const safe = `user-${user.replace(/[^a-zA-Z0-9.-]/g, '_')}-${groups.join('_').replace(/[^a-zA-Z0-9.-]/g, '_')}`;
    const cert = pki.client(safe, { user, groups });
    const path = join(scratch, `${safe}.kubeconfig`);
    writeKubeconfig(path, {
      server,
      caCert: pki.caCert,
      clientCert: cert.cert,
      clientKey: cert.key,
      user,
      context: 'kubemaint-real',
    });
    return path;
  };
  return {
    kubeconfig,
    server,
    version: state.version,
    dir,
    admin,
    kubectl,
    userKubeconfig,
    stop: (component) => stop(dir, component),
    start: (component) => start(dir, component),
    fleetKubeconfig(user, nodes) {
      const rbac = 'rbac.authorization.k8s.io';
      const impersonate = (resource: string, resourceNames: string[]) => ({
        apiGroups: [''],
        resources: [resource],
        verbs: ['impersonate'],
        resourceNames,
      });
      kubectl(['apply', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'List',
          items: [
            {
              apiVersion: `${rbac}/v1`,
              kind: 'ClusterRole',
              metadata: { name: user },
              rules: [
                impersonate(
                  'users',
                  nodes.map((n) => `system:node:${n}`),
                ),
                impersonate('groups', ['system:nodes']),
                // The fleet reads its pods as itself, through one watch of every bound pod.
                { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
              ],
            },
            {
              apiVersion: `${rbac}/v1`,
              kind: 'ClusterRoleBinding',
              metadata: { name: user },
              roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: user },
              subjects: [{ apiGroup: rbac, kind: 'User', name: user }],
            },
          ],
        }),
      });
      return userKubeconfig(user);
    },
    serviceAccountKubeconfig(namespace, name, boundToPod) {
      const bound = boundToPod
        ? ['--bound-object-kind=Pod', `--bound-object-name=${boundToPod}`]
        : [];
      const token = kubectl([
        'create',
        'token',
        name,
        '-n',
        namespace,
        '--duration=1h',
        ...bound,
      ]).trim();
      const path = join(
        scratch,
        `sa-${namespace}-${name}${boundToPod ? `-${boundToPod}` : ''}.kubeconfig`,
      );
      const config = {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'kubemaint-real',
            cluster: {
              server,
              'certificate-authority-data': readFileSync(pki.caCert).toString('base64'),
            },
          },
        ],
        users: [{ name: `${namespace}/${name}`, user: { token } }],
        contexts: [
          {
            name: 'kubemaint-real',
            context: { cluster: 'kubemaint-real', user: `${namespace}/${name}` },
          },
        ],
        'current-context': 'kubemaint-real',
      };
      writeFileSync(path, stringify(config), { mode: 0o600 });
      return path;
    },
  };
}
