/**
 * The Helm chart on kube-apiserver: `helm template | kubectl apply --dry-run=server` is accepted object by
 * object (client-side and server-side apply), and `helm install`, `upgrade` and `uninstall` do what
 * docs/deploy-cluster.md says (the CRDs stay).
 *
 * A dry run persists nothing, so the objects other objects need first are created for real: the
 * kubemaint namespace (its namespaced objects are refused with NotFound otherwise, as on any fresh
 * cluster) and the CRDs. This suite removes what it created of them, and cleanKubemaint the rest.
 *
 * Install, upgrade and uninstall run on a control plane of their own (cached binaries: seconds):
 * the run's shared cluster holds kubemaint's objects applied by other suites with kubectl, which
 * Helm rightly refuses to adopt, and an uninstall deletes the kubemaint namespace the next suite uses.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { down, up, type ClusterState } from '../../scripts/real-cluster/control-plane.js';
import {
  DEFAULT_KUBERNETES_VERSION,
  parseKubernetesVersion,
} from '../../scripts/real-cluster/versions.js';
import { cleanKubemaint } from '../support/clean-kubemaint.js';
import { CHART, helmBinary, manifestsOf, runHelm, templateChart } from '../support/helm-chart.js';
import { kubectlFor, realCluster, refusal, type RealCluster } from '../support/real-cluster.js';

const CRDS = ['maintenancerequests.kubemaint.io', 'maintenanceapprovals.kubemaint.io'];

let helm: string;
before(async () => {
  helm = await helmBinary();
});

describe('helm template | kubectl apply --dry-run=server', () => {
  let cluster: RealCluster;
  const created: string[][] = [];
  const exists = (args: string[]) => {
    try {
      cluster.kubectl(['get', ...args]);
      return true;
    } catch {
      return false;
    }
  };

  before(async () => {
    cluster = await realCluster();
    if (!exists(['namespace', 'kubemaint'])) {
      cluster.kubectl(['apply', '-f', '-'], {
        input: templateChart(helm, ['--show-only', 'templates/namespace.yaml']),
      });
      created.push(['namespace', 'kubemaint']);
    }
    for (const crd of CRDS.filter((name) => !exists(['crd', name]))) created.push(['crd', crd]);
    cluster.kubectl(['apply', '--server-side', '--force-conflicts', '-f', join(CHART, 'crds')]);
    cluster.kubectl(['wait', '--for=condition=Established', ...CRDS.map((c) => `crd/${c}`)]);
  });

  after(async () => {
    await cleanKubemaint(cluster.admin);
    for (const what of created.reverse()) cluster.kubectl(['delete', ...what, '--wait=true']);
  });

  test('every object the chart renders is accepted (client-side apply, as the issue ran it)', () => {
    const rendered = templateChart(helm);
    const out = cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: rendered });
    const lines = out.trim().split('\n');
    assert.equal(lines.length, manifestsOf(rendered).length, out);
    for (const line of lines) assert.match(line, /\(server dry run\)$/);
  });

  test('and with server-side apply, with every optional object and every list a policy takes', () => {
    // The lists are CEL the apiserver compiles: a quoting slip would be refused here.
    const rendered = templateChart(helm, [
      '--set',
      'service.enabled=true',
      '--set',
      'people.groups={sre}',
      '--set',
      'executor.extraImageRepositories={registry.example.com/mirror/kubemaint}',
      '--set',
      'hooks.imageRepositories={registry.example.com/ops/backup}',
      '--set',
      'config.executor.priorityClassName=maintenance-critical',
      '--set',
      'networkPolicy.metricsNamespace=prometheus',
    ]);
    const out = cluster.kubectl(['apply', '--server-side', '--dry-run=server', '-f', '-'], {
      input: rendered,
    });
    assert.equal(out.trim().split('\n').length, manifestsOf(rendered).length, out);
    assert.match(out, /service\/kubemaint-serve serverside-applied \(server dry run\)/);
    assert.match(
      out,
      /networkpolicy\.networking\.k8s\.io\/kubemaint-serve serverside-applied \(server dry run\)/,
    );
  });

  test('the NetworkPolicy as the apiserver stores it: serve’s pods, ops from the metrics namespace, Slack from the ingress’s (ADR 0052)', () => {
    // The object and its selectors only: this control plane has no CNI, so nothing enforces it here.
    const rendered = manifestsOf(
      templateChart(helm, ['--set', 'networkPolicy.ingressNamespace=traefik']),
    ).filter((m) => m.kind === 'NetworkPolicy');
    assert.equal(rendered.length, 1);
    const out = cluster.kubectl(
      ['apply', '--server-side', '--dry-run=server', '-o', 'json', '-f', '-'],
      {
        input: rendered.map((m) => JSON.stringify(m)).join('\n'),
      },
    );
    // One object comes back as itself, several as a List.
    type Stored = { kind: string; spec: Record<string, unknown>; items?: Stored[] };
    const answer = JSON.parse(out) as Stored;
    const policy = (answer.items ?? [answer]).find((i) => i.kind === 'NetworkPolicy');
    assert.ok(policy, out);
    assert.deepEqual(policy.spec, {
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'kubemaint-serve' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
          ],
          ports: [{ port: 'ops', protocol: 'TCP' }],
        },
        {
          from: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'traefik' } } },
          ],
          ports: [{ port: 'slack', protocol: 'TCP' }],
        },
        // A standby relays a Slack request to the leader's pod (ADR 0054).
        {
          from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'kubemaint-serve' } } }],
          ports: [{ port: 'slack', protocol: 'TCP' }],
        },
      ],
    });
  });

  test('the dry run is the apiserver judging: a value it refuses fails it, naming the field', () => {
    const rendered = templateChart(helm, ['--set', 'agent.tolerations[0].operator=Sometimes']);
    assert.match(
      refusal(() => cluster.kubectl(['apply', '--dry-run=server', '-f', '-'], { input: rendered })),
      /DaemonSet.*kubemaint-agent.*spec\.template\.spec\.tolerations\[0\]\.operator: Unsupported value: "Sometimes"/s,
    );
  });
});

describe('helm install, upgrade and uninstall (a control plane of their own)', () => {
  let state: ClusterState;
  const dir = resolve('.kubemaint/real-cluster-helm');
  let kubectlBin: string;
  const env = () => ({ KUBECONFIG: state.kubeconfig });
  const kubectl = (args: string[]) =>
    execFileSync(kubectlBin, args, {
      encoding: 'utf8',
      env: { ...process.env, ...env() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const helmHere = (args: string[]) => runHelm(helm, args, env());

  before(async () => {
    const version = parseKubernetesVersion(
      process.env['KUBEMAINT_K8S_VERSION'] ?? DEFAULT_KUBERNETES_VERSION,
    );
    state = await up({ version, dir, fresh: true, say: (l) => process.stderr.write(`# ${l}\n`) });
    kubectlBin = kubectlFor(version.minor);
  });

  after(async () => {
    await down(dir);
  });

  test('install: the namespace, RBAC, policies, agent, serve and its config; the release stays in default', () => {
    const out = helmHere(['install', 'kubemaint', CHART, '--namespace', 'default']);
    assert.match(out, /STATUS: deployed/);
    assert.match(out, /serve starts once the Secret kubemaint-slack exists/);
    assert.equal(
      kubectl(['get', 'namespace', 'kubemaint', '-o', 'jsonpath={.metadata.labels}']).includes(
        '"pod-security.kubernetes.io/enforce":"privileged"',
      ),
      true,
    );
    const inNamespace = kubectl([
      'get',
      'deployment,daemonset,configmap,serviceaccount,role,rolebinding',
      '-n',
      'kubemaint',
      '-l',
      'app.kubernetes.io/managed-by=Helm',
      '-o',
      'name',
    ]);
    for (const name of [
      'deployment.apps/kubemaint-serve',
      'daemonset.apps/kubemaint-agent',
      'configmap/kubemaint-config',
      'serviceaccount/kubemaint-agent',
      'role.rbac.authorization.k8s.io/kubemaint-executor-slots',
    ]) {
      assert.ok(inNamespace.includes(name), `${name} in ${inNamespace}`);
    }
    const policies = manifestsOf(templateChart(helm)).filter(
      (m) => m.kind === 'ValidatingAdmissionPolicy',
    );
    assert.equal(
      kubectl(['get', 'validatingadmissionpolicy', '-o', 'name']).trim().split('\n').length,
      policies.length,
    );
    assert.match(
      kubectl(['get', 'secret', '-n', 'default', '-o', 'name']),
      /sh\.helm\.release\.v1\.kubemaint\.v1/,
    );
  });

  test('upgrade: a changed config reaches the ConfigMap and rolls serve', () => {
    const checksum = () =>
      kubectl([
        'get',
        'deployment',
        'kubemaint-serve',
        '-n',
        'kubemaint',
        '-o',
        "jsonpath={.spec.template.metadata.annotations['checksum/config']}",
      ]);
    const before = checksum();
    helmHere([
      'upgrade',
      'kubemaint',
      CHART,
      '--namespace',
      'default',
      '--set',
      'config.lock.concurrency=2',
    ]);
    assert.match(
      kubectl([
        'get',
        'configmap',
        'kubemaint-config',
        '-n',
        'kubemaint',
        '-o',
        'jsonpath={.data.kubemaint\\.yaml}',
      ]),
      /lock:\n {2}concurrency: 2/,
    );
    assert.notEqual(checksum(), before);
    assert.match(
      helmHere(['history', 'kubemaint', '--namespace', 'default']),
      /2\s.*deployed.*Upgrade complete/,
    );
  });

  test('uninstall: everything goes but the CRDs (Helm never deletes a chart’s crds/)', () => {
    helmHere(['uninstall', 'kubemaint', '--namespace', 'default', '--wait']);
    assert.deepEqual(
      kubectl(['get', 'crd', '-o', 'name']).trim().split('\n').sort(),
      CRDS.map((c) => `customresourcedefinition.apiextensions.k8s.io/${c}`).sort(),
    );
    assert.equal(kubectl(['get', 'validatingadmissionpolicy', '-o', 'name']).trim(), '');
    assert.equal(kubectl(['get', 'clusterrole', '-o', 'name']).includes('kubemaint'), false);
    const namespace = kubectl([
      'get',
      'namespace',
      'kubemaint',
      '--ignore-not-found',
      '-o',
      'jsonpath={.status.phase}',
    ]);
    assert.ok(['', 'Terminating'].includes(namespace), namespace);
  });
});
