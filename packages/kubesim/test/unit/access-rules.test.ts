/**
 * The rule matching behind the sim's RBAC and admission policies, where the two differ on purpose:
 * an RBAC `*` covers subresources and `*`+`/status` any resource's status; a policy's `*` covers no
 * subresource, `x/*` all of x's, `*`+`/*` everything. Refusal wording is kube-apiserver's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AdmissionAttributes } from '../../src/admission/attributes.js';
import { requestValue } from '../../src/admission/attributes.js';
import { matchesResources } from '../../src/admission/match.js';
import { forbiddenError, resourceAttributes } from '../../src/authz/attributes.js';
import { ruleAllows } from '../../src/authz/rbac-rules.js';

const user = { username: 'mallory', groups: ['system:authenticated'] };
const attrs = (resource: string, subresource = '', name = 'n1') =>
  resourceAttributes(user, 'patch', { apiGroup: '', resource, subresource, name });

describe('RBAC rules', () => {
  it('match resources, subresources, names and non-resource URLs as upstream', () => {
    const rule = (resources: string[], resourceNames?: string[]) => ({
      apiGroups: [''],
      verbs: ['patch'],
      resources,
      ...(resourceNames ? { resourceNames } : {}),
    });
    assert.equal(ruleAllows(attrs('nodes', 'status'), rule(['*'])), true);
    assert.equal(ruleAllows(attrs('nodes', 'status'), rule(['*/status'])), true);
    assert.equal(ruleAllows(attrs('nodes', 'status'), rule(['nodes'])), false);
    assert.equal(ruleAllows(attrs('nodes'), rule(['nodes/status'])), false);
    assert.equal(ruleAllows(attrs('nodes', '', 'n2'), rule(['nodes'], ['n1'])), false);
    assert.equal(ruleAllows(attrs('nodes', '', ''), rule(['nodes'], ['n1'])), false);
    const path = { ...attrs('nodes'), resourceRequest: false, verb: 'get', path: '/apis/x' };
    assert.equal(ruleAllows(path, { verbs: ['get'], nonResourceURLs: ['/apis/*'] }), true);
    assert.equal(ruleAllows(path, { verbs: ['get'], nonResourceURLs: ['/apis'] }), false);
  });

  it('words refusals as kube-apiserver does', () => {
    assert.equal(
      forbiddenError(attrs('nodes', 'status'), '').message,
      'nodes "n1" is forbidden: User "mallory" cannot patch resource "nodes/status" in API group "" at the cluster scope',
    );
    const lease = resourceAttributes(user, 'list', {
      apiGroup: 'coordination.k8s.io',
      resource: 'leases',
      namespace: 'kubemaint',
    });
    assert.equal(
      forbiddenError(lease, 'RBAC: role.rbac.authorization.k8s.io "x" not found').message,
      'leases.coordination.k8s.io is forbidden: User "mallory" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "kubemaint": RBAC: role.rbac.authorization.k8s.io "x" not found',
    );
  });
});

describe('admission policy resource rules', () => {
  const request = (resource: string, subresource = ''): AdmissionAttributes => ({
    operation: 'UPDATE',
    resource: { group: '', version: 'v1', resource },
    subresource,
    kind: { group: '', version: 'v1', kind: 'Node' },
    namespaced: false,
    name: 'n1',
    namespace: '',
    object: { metadata: { name: 'n1' } },
    oldObject: { metadata: { name: 'n1' } },
    user,
    dryRun: false,
  });
  const rules = (resources: string[]) => ({
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources }],
  });
  const cases: [string[], string, string, boolean][] = [
    [['nodes'], 'nodes', '', true],
    [['nodes'], 'nodes', 'status', false],
    [['nodes/status'], 'nodes', 'status', true],
    [['nodes/*'], 'nodes', 'status', true],
    [['*'], 'pods', '', true],
    [['*'], 'nodes', 'status', false],
    [['*/*'], 'nodes', 'status', true],
  ];
  for (const [resources, resource, sub, want] of cases) {
    it(`${JSON.stringify(resources)} ${want ? 'matches' : 'does not match'} ${resource}${sub ? `/${sub}` : ''}`, () => {
      assert.equal(
        matchesResources(rules(resources), request(resource, sub), undefined, true),
        want,
      );
    });
  }

  it('leaves empty optional request fields out, as the AdmissionRequest JSON does', () => {
    const value = requestValue(request('nodes'), 'uid-1');
    assert.equal('subResource' in value, false);
    assert.equal('namespace' in value, false);
    assert.equal(requestValue(request('nodes', 'status'), 'uid-2')['subResource'], 'status');
  });
});
