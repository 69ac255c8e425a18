/**
 * One ValidatingAdmissionPolicy from infra/k8s judged against one request, without an apiserver: its
 * matchConstraints (resource, subresource and operation only), matchConditions, variables and
 * validations, evaluated with the sim's CEL as kube-apiserver evaluates them (a variable's error
 * counts only where it is read; an evaluation error is a denial under failurePolicy Fail). It answers
 * what the policy checks, so a manifest test can say "alice may not record bob's decision" instead
 * of matching the CEL's text.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { compile, type CelProgram } from '@kubemaint/kubesim/cel';

const NAMES = ['object', 'oldObject', 'request', 'variables', 'namespaceObject', 'params'];

export interface PolicySpec {
  failurePolicy?: string;
  matchConstraints: {
    resourceRules: {
      apiGroups: string[];
      operations: string[];
      resources: string[];
    }[];
  };
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  validations: {
    expression: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
  }[];
}

export interface AdmissionCase {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  /** `maintenancerequests/status` for a subresource, as RBAC and matchConstraints name it. */
  resource: string;
  name?: string;
  namespace?: string;
  user: { username: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

/** `skipped` when the policy does not apply; otherwise the messages of every failed validation. */
export type Verdict = 'skipped' | string[];

export function judge(policy: PolicySpec, c: AdmissionCase): Verdict {
  const [resource, subResource] = c.resource.split('/');
  const applies = policy.matchConstraints.resourceRules.some(
    (rule) =>
      rule.apiGroups.some((g) => g === '*' || g === c.group) &&
      rule.operations.some((o) => o === '*' || o === c.operation) &&
      rule.resources.some((r) => r === '*' || r === c.resource),
  );
  if (!applies) return 'skipped';
  const request = {
    operation: c.operation,
    resource: { group: c.group, version: 'v1', resource },
    ...(subResource ? { subResource } : {}),
    ...(c.name ? { name: c.name } : {}),
    ...(c.namespace ? { namespace: c.namespace } : {}),
    userInfo: {
      username: c.user.username,
      // kube-apiserver adds system:authenticated to every authenticated user.
      groups: [...(c.user.groups ?? []), 'system:authenticated'],
      ...(c.user.extra ? { extra: c.user.extra } : {}),
    },
    dryRun: c.dryRun ?? false,
  };
  const values = new Map<string, unknown>();
  const errors = new Map<string, string>();
  const run = (program: CelProgram, asBool: boolean): unknown => {
    for (const name of program.variableReferences) {
      const error = errors.get(name);
      if (error !== undefined) throw new Error(`variable ${name}: ${error}`);
    }
    const activation = {
      object: c.object ?? null,
      oldObject: c.oldObject ?? null,
      request,
      variables: Object.fromEntries(values),
      namespaceObject: null,
      params: null,
    };
    return asBool ? program.evaluateBool(activation) : program.evaluate(activation);
  };
  for (const v of policy.variables ?? []) {
    try {
      values.set(v.name, run(compile(v.expression, NAMES), false));
    } catch (error) {
      errors.set(v.name, (error as Error).message);
    }
  }
  for (const condition of policy.matchConditions ?? []) {
    if (run(compile(condition.expression, NAMES), true) === false) return 'skipped';
  }
  const failed: string[] = [];
  for (const v of policy.validations) {
    let passed: boolean;
    try {
      passed = run(compile(v.expression, NAMES), true) === true;
    } catch (error) {
      if (policy.failurePolicy === 'Ignore') continue;
      failed.push(`error: ${(error as Error).message}`);
      continue;
    }
    if (passed) continue;
    let message = v.message ?? `failed expression: ${v.expression}`;
    if (v.messageExpression) {
      try {
        message = String(run(compile(v.messageExpression, NAMES), false));
      } catch {
        // kube-apiserver falls back to the message when the messageExpression fails.
      }
    }
    failed.push(message.trim());
  }
  return failed;
}

/** The ValidatingAdmissionPolicy `name` of an infra/k8s file (a path from the repository root). */
export function policyIn(file: string, name: string): { spec: PolicySpec } {
  const found = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as { kind: string; metadata: { name: string }; spec: PolicySpec })
    .find((doc) => doc.kind === 'ValidatingAdmissionPolicy' && doc.metadata.name === name);
  if (!found) throw new Error(`${file} has no ValidatingAdmissionPolicy ${name}`);
  return found;
}
