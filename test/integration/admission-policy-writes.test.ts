/**
 * What the sim checks when a ValidatingAdmissionPolicy or binding is written (sim-only: the wording
 * of compile errors is @bufbuild/cel's, and parameter resources are a documented refusal): every
 * expression must compile, the 422 names the field and quotes the expression; paramKind/paramRef
 * are refused rather than half-supported; Deny with Warn is refused as upstream.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createBackend, type Backend } from '../conformance/backend.js';
import { startSimApi, type SimApi } from '@kubemaint/kubesim/testing';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';
const rules = [
  { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
];

describe('sim: writing admission policies', () => {
  let sim: SimApi;
  let b: Backend;
  before(async () => {
    sim = await startSimApi();
    b = createBackend({ name: 'sim', kc: sim.kc, close: async () => undefined });
  });
  after(async () => sim.close());

  const writePolicy = (name: string, spec: Record<string, unknown>) =>
    b.request('POST', `${ADMISSION}/validatingadmissionpolicies`, {
      body: { metadata: { name }, spec: { matchConstraints: { resourceRules: rules }, ...spec } },
    });

  it('refuses an expression that does not compile, naming the field and the expression', async () => {
    const reply = await writePolicy('broken', {
      validations: [{ expression: 'true' }, { expression: 'object.metadata.name ==' }],
      variables: [{ name: 'v', expression: "requests.name == 'x'" }],
    });
    assert.equal(reply.code, 422, reply.text);
    const message = String(reply.json['message']);
    assert.match(
      message,
      /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "broken" is invalid: \[/,
    );
    assert.match(
      message,
      /spec\.variables\[0\]\.expression: Invalid value: "requests\.name == 'x'": compilation failed: ERROR: undeclared reference to 'requests'/,
    );
    assert.match(
      message,
      /spec\.validations\[1\]\.expression: Invalid value: "object\.metadata\.name ==": compilation failed: ERROR: <input>:1:/,
    );
  });

  it('refuses parameter resources instead of ignoring them', async () => {
    const reply = await writePolicy('params', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'true' }],
    });
    assert.equal(reply.code, 422, reply.text);
    assert.match(
      String(reply.json['message']),
      /spec\.paramKind: Forbidden: the kubemaint sim does not support parameter resources/,
    );
  });

  it('refuses a binding without actions, or with both Deny and Warn', async () => {
    const bind = (name: string, validationActions: string[]) =>
      b.request('POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
        body: { metadata: { name }, spec: { policyName: 'p', validationActions } },
      });
    const none = await bind('none', []);
    assert.equal(none.code, 422, none.text);
    assert.match(String(none.json['message']), /spec\.validationActions: Required value/);
    const both = await bind('both', ['Deny', 'Warn']);
    assert.equal(both.code, 422, both.text);
    assert.match(String(both.json['message']), /must not contain both Deny and Warn/);
    assert.equal((await bind('audit', ['Audit'])).code, 201);
  });
});
