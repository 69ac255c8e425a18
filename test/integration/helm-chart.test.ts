/**
 * The Helm chart (charts/kubemaint): `helm lint` passes, its default render is infra/k8s object by
 * object (plus what only the chart has, listed in test/support/helm-chart.ts), its values reach the
 * objects they are for, and bad values are refused with a message naming the value. The server side
 * (a dry-run apply, install, upgrade, uninstall) is test/real/helm.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { runCli } from '../support/cli-process.js';
import {
  CHART,
  chartDifferences,
  helmBinary,
  keyOf,
  manifestsOf,
  renderChart,
  renderKustomization,
  runHelm,
  templateChart,
  type Manifest,
} from '../support/helm-chart.js';

let helm: string;
before(async () => {
  helm = await helmBinary();
});

const find = (objects: Manifest[], kind: string, name: string) => {
  const found = objects.find((m) => m.kind === kind && m.metadata.name === name);
  assert.ok(found, `${kind} ${name} is rendered`);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered YAML, read field by field
  return found as Manifest & { spec: any; data: { 'kubemaint.yaml': string } };
};
/** `helm template` with these arguments; its stderr when it refuses. */
const refusal = (args: string[]): string => {
  try {
    templateChart(helm, args);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  return assert.fail(`helm template ${args.join(' ')} was accepted`);
};
const configOf = (objects: Manifest[]) =>
  parse(find(objects, 'ConfigMap', 'kubemaint-config').data['kubemaint.yaml']) as Record<
    string,
    Record<string, unknown>
  >;
const repositoriesOf = (objects: Manifest[]): string =>
  find(
    objects,
    'ValidatingAdmissionPolicy',
    'kubemaint-jobs-of-the-executors-shape',
  ).spec.variables.find((v: { name: string }) => v.name === 'repositories').expression as string;
const serveContainer = (objects: Manifest[]) =>
  find(objects, 'Deployment', 'kubemaint-serve').spec.template.spec.containers[0] as {
    image: string;
    envFrom: unknown;
  };

describe('the Helm chart', () => {
  test('helm lint --strict passes', () => {
    const out = runHelm(helm, ['lint', '--strict', CHART]);
    assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test('with default values it renders what kubectl kustomize infra/k8s does, object by object', () => {
    const differences = chartDifferences(renderChart(helm), renderKustomization());
    assert.deepEqual(
      differences,
      [],
      `the chart and infra/k8s differ (change both, or copy the infra/k8s file into charts/kubemaint):\n${differences.join('\n')}`,
    );
  });

  test('a difference names the object and the field; a missing object is named too', () => {
    const kustomize = renderKustomization();
    // Only what the values change (the test above fails alone on any drift of the defaults).
    const base = new Set(chartDifferences(renderChart(helm), kustomize));
    const added = (args: string[]) =>
      chartDifferences(renderChart(helm, args), kustomize).filter((d) => !base.has(d));
    assert.deepEqual(added(['--set', 'agent.periodSeconds=60']), [
      'DaemonSet kubemaint/kubemaint-agent (apps/v1): spec.template.spec.containers[0].env[3]: chart {"name":"PERIOD_SECONDS","value":"60"} ≠ kustomize (absent)',
    ]);
    assert.deepEqual(added(['--set', 'agent.enabled=false']), [
      'DaemonSet kubemaint/kubemaint-agent (apps/v1): in infra/k8s, not rendered by the chart',
    ]);
    assert.deepEqual(added(['--set', 'people.groups={sre}']), [
      'RoleBinding kubemaint/kubemaint-people (rbac.authorization.k8s.io/v1): rendered by the chart, not by infra/k8s',
      'ClusterRoleBinding kubemaint-people (rbac.authorization.k8s.io/v1): rendered by the chart, not by infra/k8s',
    ]);
    // The kubelet's config file (ADR 0049): another path is the hostPath's alone (the agent reads
    // its default mount path); '' leaves the volume and its mount out.
    assert.deepEqual(
      added(['--set', 'agent.kubeletConfigFile=/etc/kubernetes/kubelet/config.yaml']),
      [
        'DaemonSet kubemaint/kubemaint-agent (apps/v1): spec.template.spec.volumes[2].hostPath.path: chart "/etc/kubernetes/kubelet/config.yaml" ≠ kustomize "/var/lib/kubelet/config.yaml"',
      ],
    );
    assert.deepEqual(added(['--set', 'agent.kubeletConfigFile=']), [
      'DaemonSet kubemaint/kubemaint-agent (apps/v1): spec.template.spec.containers[0].volumeMounts[2]: chart (absent) ≠ kustomize {"mountPath":"/host/var/lib/kubelet/config.yaml","name":"kubelet-config","readOnly":true}',
      'DaemonSet kubemaint/kubemaint-agent (apps/v1): spec.template.spec.volumes[2]: chart (absent) ≠ kustomize {"hostPath":{"path":"/var/lib/kubelet/config.yaml","type":"FileOrCreate"},"name":"kubelet-config"}',
    ]);
    assert.deepEqual(added(['--set', 'agent.tolerations=null']), [
      'DaemonSet kubemaint/kubemaint-agent (apps/v1): spec.template.spec.tolerations: chart (absent) ≠ kustomize [{"operator":"Exists"}]',
    ]);
  });

  test('its version is kubemaint’s, and its images default to that version', () => {
    const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Record<string, string>;
    const pkg = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    assert.equal(chart['appVersion'], pkg.version);
    assert.equal(chart['version'], pkg.version);
    const objects = renderChart(helm);
    assert.equal(serveContainer(objects).image, `ghcr.io/kubemaint/kubemaint:${pkg.version}`);
    assert.equal(
      find(objects, 'DaemonSet', 'kubemaint-agent').spec.template.spec.containers[0].image,
      `ghcr.io/kubemaint/kubemaint-agent:${pkg.version}`,
    );
  });

  test('the default config is a valid kubemaint.yaml for serve in the cluster', async () => {
    const config = configOf(renderChart(helm));
    assert.deepEqual(config, {
      cluster: { type: 'in-cluster' },
      executor: { image: 'ghcr.io/kubemaint/kubemaint:0.1.0' },
    });
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-chart-config-'));
    writeFileSync(
      join(dir, 'kubemaint.yaml'),
      find(renderChart(helm), 'ConfigMap', 'kubemaint-config').data['kubemaint.yaml'],
    );
    const checked = await runCli(['config', 'check', 'kubemaint.yaml'], { cwd: dir });
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /is valid \(cluster in-cluster/);
  });

  test('a mirrored image is serve’s, the executor’s, and one the Job policy accepts', () => {
    const objects = renderChart(helm, [
      '--set',
      'image.repository=registry.example.com/mirror/kubemaint',
      '--set',
      'image.tag=0.1.0-rc1',
      '--set',
      'executor.extraImageRepositories={registry.example.com/other}',
    ]);
    assert.equal(serveContainer(objects).image, 'registry.example.com/mirror/kubemaint:0.1.0-rc1');
    assert.equal(
      configOf(objects)['executor']!['image'],
      'registry.example.com/mirror/kubemaint:0.1.0-rc1',
    );
    assert.equal(
      repositoriesOf(objects),
      "['registry.example.com/mirror/kubemaint', 'registry.example.com/other']",
    );
  });

  test('an executor image the config names is kept, and its repository (without tag or digest) is accepted', () => {
    const objects = renderChart(helm, [
      '--set-string',
      'config.executor.image=registry.example.com:5000/ops/kubemaint@sha256:0123abcd',
      '--set',
      'config.executor.ttlAfterFinished=2h',
    ]);
    assert.deepEqual(configOf(objects)['executor'], {
      image: 'registry.example.com:5000/ops/kubemaint@sha256:0123abcd',
      ttlAfterFinished: '2h',
    });
    assert.equal(
      repositoriesOf(objects),
      "['ghcr.io/kubemaint/kubemaint', 'registry.example.com:5000/ops/kubemaint']",
    );
  });

  test('hook image repositories reach the hook Job policy (none by default: no hook may run)', () => {
    const hookRepositories = (objects: Manifest[]): string =>
      find(objects, 'ValidatingAdmissionPolicy', 'kubemaint-hook-jobs').spec.variables.find(
        (v: { name: string }) => v.name === 'hookRepositories',
      ).expression as string;
    assert.equal(hookRepositories(renderChart(helm)), '[]');
    assert.equal(
      hookRepositories(
        renderChart(helm, [
          '--set',
          'hooks.imageRepositories={registry.example.com/ops/backup,ghcr.io/acme/warm}',
        ]),
      ),
      "['registry.example.com/ops/backup', 'ghcr.io/acme/warm']",
    );
    assert.match(
      refusal(['--set', 'hooks.imageRepositories={backup:latest}']),
      /at '\/hooks\/imageRepositories\/0'/,
    );
  });

  test('a priority class the config names is one the Job policy accepts', () => {
    const classes = (objects: Manifest[]): string =>
      find(
        objects,
        'ValidatingAdmissionPolicy',
        'kubemaint-jobs-of-the-executors-shape',
      ).spec.variables.find((v: { name: string }) => v.name === 'priorityClasses')
        .expression as string;
    assert.equal(classes(renderChart(helm)), "['system-node-critical']");
    assert.equal(
      classes(
        renderChart(helm, ['--set', 'config.executor.priorityClassName=maintenance-critical']),
      ),
      "['system-node-critical', 'maintenance-critical']",
    );
  });

  test('config from a file (--set-file) is rendered as the file says, and a changed config rolls serve', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-chart-file-'));
    const file = join(dir, 'kubemaint.yaml');
    writeFileSync(file, 'cluster:\n  type: in-cluster\n  name: prod-eu\nlock:\n  concurrency: 2\n');
    const objects = renderChart(helm, ['--set-file', `config=${file}`]);
    assert.deepEqual(configOf(objects), {
      cluster: { type: 'in-cluster', name: 'prod-eu' },
      lock: { concurrency: 2 },
      executor: { image: 'ghcr.io/kubemaint/kubemaint:0.1.0' },
    });
    const checksum = (list: Manifest[]) =>
      find(list, 'Deployment', 'kubemaint-serve').spec.template.metadata.annotations[
        'checksum/config'
      ] as string;
    assert.match(checksum(objects), /^[0-9a-f]{64}$/);
    assert.notEqual(checksum(objects), checksum(renderChart(helm)));
    assert.equal(checksum(renderChart(helm)), checksum(renderChart(helm)));
  });

  test('the Slack Secret, people, the Service and a ConfigMap of your own are values', () => {
    const objects = renderChart(helm, [
      '--set',
      'slack.secretName=slack-tokens',
      '--set',
      'people.users={alice@example.com}',
      '--set',
      'people.groups={sre}',
      '--set',
      'service.enabled=true',
      '--set',
      'configMap.create=false',
    ]);
    assert.deepEqual(serveContainer(objects).envFrom, [{ secretRef: { name: 'slack-tokens' } }]);
    const people = find(objects, 'RoleBinding', 'kubemaint-people') as unknown as {
      roleRef: unknown;
      subjects: unknown;
    };
    assert.deepEqual(people.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'kubemaint:person',
    });
    assert.deepEqual(people.subjects, [
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice@example.com' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'sre' },
    ]);
    // Reading nodes too, cluster-wide: approve, reboot and status NODE read the node.
    const nodes = find(objects, 'ClusterRoleBinding', 'kubemaint-people') as unknown as {
      roleRef: { name: string };
      subjects: unknown;
    };
    assert.equal(nodes.roleRef.name, 'kubemaint:person-nodes');
    assert.deepEqual(nodes.subjects, people.subjects);
    const service = find(objects, 'Service', 'kubemaint-serve');
    assert.deepEqual(
      service.spec.ports.map((p: { name: string; targetPort: string }) => [p.name, p.targetPort]),
      [
        ['slack', 'slack'],
        ['ops', 'ops'],
      ],
    );
    assert.ok(
      !objects.some((m) => m.kind === 'ConfigMap'),
      'no ConfigMap with configMap.create=false',
    );
    assert.equal(
      find(objects, 'Deployment', 'kubemaint-serve').spec.template.metadata.annotations[
        'checksum/config'
      ],
      undefined,
    );
  });

  test('the NetworkPolicy: on by default, ops only from the metrics namespace, Slack only from the ingress one and the other serve', () => {
    type Selector = { matchLabels: Record<string, string> };
    const rules = (objects: Manifest[]) =>
      (
        find(objects, 'NetworkPolicy', 'kubemaint-serve').spec.ingress as {
          from: { namespaceSelector?: Selector; podSelector?: Selector }[];
          ports: { port: string }[];
        }[]
      ).map((r) => [
        r.ports.map((p) => p.port).join(','),
        r.from
          .map(
            (f) =>
              f.namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] ??
              `pods ${f.podSelector?.matchLabels['app.kubernetes.io/name']}`,
          )
          .join(','),
      ]);
    const defaults = renderChart(helm);
    const policy = find(defaults, 'NetworkPolicy', 'kubemaint-serve');
    assert.deepEqual(policy.spec.podSelector, {
      matchLabels: { 'app.kubernetes.io/name': 'kubemaint-serve' },
    });
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    assert.deepEqual(rules(defaults), [
      ['ops', 'monitoring'],
      ['slack', 'ingress-nginx'],
      // A standby relays a Slack request to the leader's pod (ADR 0054).
      ['slack', 'pods kubemaint-serve'],
    ]);
    // The ports it names are the container's: a renamed port would leave serve unreachable.
    const ports = find(defaults, 'Deployment', 'kubemaint-serve').spec.template.spec.containers[0]
      .ports as { name: string }[];
    assert.deepEqual(ports.map((p) => p.name).sort(), ['ops', 'slack']);
    const set = renderChart(helm, [
      '--set',
      'networkPolicy.metricsNamespace=prometheus',
      '--set',
      'networkPolicy.ingressNamespace=traefik',
    ]);
    assert.deepEqual(rules(set), [
      ['ops', 'prometheus'],
      ['slack', 'traefik'],
      ['slack', 'pods kubemaint-serve'],
    ]);
    const off = renderChart(helm, ['--set', 'networkPolicy.enabled=false']);
    assert.equal(off.filter((m) => m.kind === 'NetworkPolicy').length, 0);
  });

  test('bad values are refused, each naming the value and what to do', () => {
    assert.match(
      refusal(['--set', 'networkPolicy.metricsNamespace=Monitoring NS']),
      /at '\/networkPolicy\/metricsNamespace': 'Monitoring NS' does not match/,
    );
    assert.match(
      refusal(['--set', 'agnet.enabled=false']),
      /additional properties 'agnet' not allowed/,
    );
    assert.match(
      refusal(['--set', 'image.tag=1.0:latest']),
      /at '\/image\/tag': '1\.0:latest' does not match/,
    );
    assert.match(
      refusal(['--set', 'image.repository=ghcr.io/kubemaint/kubemaint:0.1.0']),
      /at '\/image\/repository'/,
    );
    assert.match(
      refusal(['--set', 'agent.periodSeconds=1']),
      /at '\/agent\/periodSeconds': minimum/,
    );
    // A folder or a relative path would mount more than the one file, or nothing the agent reads.
    for (const path of [
      '/var/lib/kubelet/',
      'var/lib/kubelet/config.yaml',
      '/var/lib/../../etc/shadow',
    ])
      assert.match(
        refusal(['--set', `agent.kubeletConfigFile=${path}`]),
        /at '\/agent\/kubeletConfigFile'/,
        path,
      );
    assert.match(
      refusal(['--namespace', 'kubemaint']),
      /the chart creates the kubemaint namespace itself .* install with --namespace default/,
    );
    const dir = mkdtempSync(join(tmpdir(), 'kubemaint-chart-bad-'));
    writeFileSync(join(dir, 'kubemaint.yaml'), 'cluster: [\n');
    assert.match(
      refusal(['--set-file', `config=${join(dir, 'kubemaint.yaml')}`]),
      /config: the text given is not a YAML map .*--set-file config=kubemaint.yaml/,
    );
  });

  test('the release namespace only stores the release: every object is cluster-scoped or in kubemaint', () => {
    for (const m of manifestsOf(templateChart(helm, ['--namespace', 'ops']))) {
      // kube-system holds only the read of the apiservers' identity Leases and static pods (ADR 0050).
      const readsApiservers =
        m.metadata.namespace === 'kube-system' && m.metadata.name === 'kubemaint-serve-apiservers';
      assert.ok(
        [undefined, 'kubemaint', 'default'].includes(m.metadata.namespace) || readsApiservers,
        keyOf(m),
      );
    }
  });
});
