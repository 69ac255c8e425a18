/**
 * kubectl against the sim's CRDs, as a person uses the approval model: `kubectl apply -f` of the
 * fixture's CRDs and of a MaintenanceRequest (kubectl picks JSON merge patch for custom resources),
 * `kubectl get mr -A` / `-o wide` with the printer columns, a status write through
 * `--subresource=status`, and deleting the CRD taking its objects along. Both backends' API
 * behaviour is in test/conformance/cases/crds.ts; this is the client's view of it.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { startTestSim, type TestSim } from '../../support/sim.js';

const run = promisify(execFile);

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
const skip =
  !hasKubectl && process.env['CI'] !== 'true'
    ? 'needs kubectl on PATH (any version 1.27–1.33); install it to run these'
    : false;

// kubemaint's own CRDs (v1beta1 stored, v1alpha1 served): the sim installs these already, so an older
// fixture's v1alpha1-only CRDs would be refused over them, as kube-apiserver refuses dropping a stored version.
const FIXTURE = new URL('../../../infra/k8s/crds.yaml', import.meta.url);

describe('kubectl and custom resources on the sim', { skip }, () => {
  let sim: TestSim;
  const kubectl = async (...args: string[]) =>
    (
      await run('kubectl', ['--kubeconfig', sim.kubeconfigPath, ...args], {
        env: { ...process.env, KUBECACHEDIR: join(sim.dir, 'cache') },
        timeout: 60_000,
      })
    ).stdout;
  const file = (name: string, docs: unknown[]) => {
    const path = join(sim.dir, name);
    writeFileSync(path, docs.map((d) => stringify(d)).join('---\n'));
    return path;
  };

  before(async () => {
    sim = await startTestSim({ scenario: 'empty' }); // it has the kubemaint namespace
  });
  after(() => sim.close());

  it('applies the CRDs and a request, prints the columns, writes status, deletes with the CRD', async () => {
    const crds = parseAllDocuments(readFileSync(FIXTURE, 'utf8'))
      .map((d) => d.toJSON() as Record<string, unknown>)
      .filter((d) => d['kind'] === 'CustomResourceDefinition');
    const applied = await kubectl('apply', '-f', file('crds.yaml', crds));
    // The sim may have them already (its scenarios install kubemaint's CRDs): then they are replaced.
    assert.match(applied, /maintenancerequests\.kubemaint\.io (created|configured)/);
    const request = {
      apiVersion: 'kubemaint.io/v1beta1',
      kind: 'MaintenanceRequest',
      metadata: { name: 'reboot-n1', namespace: 'kubemaint' },
      spec: { node: 'n1', action: 'reboot', reason: 'kernel', requestedBy: 'alice' },
    };
    const path = file('mr.yaml', [request]);
    assert.match(await kubectl('apply', '-f', path), /reboot-n1 created/);
    // A request's spec is what was approved: the CRD's rule refuses any change to it.
    writeFileSync(path, stringify({ ...request, spec: { ...request.spec, reason: 'cve' } }));
    await assert.rejects(
      kubectl('apply', '-f', path),
      /a MaintenanceRequest's spec is immutable; cancel it and propose a new one/,
    );
    await kubectl(
      'patch',
      'mr',
      'reboot-n1',
      '-n',
      'kubemaint',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"state":"approved","approvedBy":"bob,carol"}}',
    );
    const table = await kubectl('get', 'mr', '-A');
    const [header, row] = table
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ['NAMESPACE', 'NAME', 'NODE', 'ACTION', 'STATE', 'APPROVALS', 'AGE']);
    assert.deepEqual(row?.slice(0, 6), [
      'kubemaint',
      'reboot-n1',
      'n1',
      'reboot',
      'approved',
      'bob,carol',
    ]);
    const reason = await kubectl(
      'get',
      'maintenancerequest',
      'reboot-n1',
      '-n',
      'kubemaint',
      '-o',
      'jsonpath={.spec.reason} {.metadata.generation}',
    );
    assert.equal(reason, 'kernel 1');
    await assert.rejects(
      kubectl(
        'patch',
        'mr',
        'reboot-n1',
        '-n',
        'kubemaint',
        '-p',
        '{"spec":{"action":"halt"}}',
        '--type=merge',
      ),
      /spec\.action: Unsupported value: "halt": supported values: "reboot", "upgrade"/,
    );
    await kubectl('delete', 'crd', 'maintenancerequests.kubemaint.io');
    const deleted = sim.admin
      .audit()
      .filter((e) => e.resource === 'maintenancerequests.kubemaint.io' && e.verb === 'delete');
    assert.deepEqual(
      deleted.map((e) => [e.name, e.actor]),
      [['reboot-n1', 'controller/apiextensions']],
    );
    await assert.rejects(
      kubectl('get', 'mr', '-A'),
      /could not find the requested resource|doesn't have a resource type "mr"/,
    );
  });

  it('refuses a CRD whose rule does not compile', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.kubemaint.io' },
      spec: {
        group: 'example.kubemaint.io',
        scope: 'Cluster',
        names: { kind: 'Thing', plural: 'things' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                'x-kubernetes-validations': [{ rule: 'self.spec.size >' }],
                properties: { spec: { type: 'object' } },
              },
            },
          },
        ],
      },
    };
    await assert.rejects(
      kubectl('create', '-f', file('bad.yaml', [crd])),
      /spec\.validation\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.spec\.size >": compilation failed/,
    );
  });
});
