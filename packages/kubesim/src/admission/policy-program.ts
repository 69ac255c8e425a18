/**
 * A ValidatingAdmissionPolicy compiled once per resourceVersion: its match conditions, variables and
 * validations as CEL programs. Expressions were checked when the policy was written
 * (policy-validation.ts); one that still does not compile (written before a sim upgrade, say) is
 * kept as its compile error and counts as an evaluation error, which failurePolicy then decides, as
 * kube-apiserver does with a policy whose expressions fail to compile.
 */
import { compile, CelCompileError, type CelProgram } from '../cel/index.js';
import type { KObject } from '../types.js';
import type { MatchResources } from './match.js';
import { POLICY_VARIABLES } from './policy-validation.js';

export type Compiled = { program: CelProgram } | { error: string };

export interface PolicyProgram {
  name: string;
  failurePolicy: 'Fail' | 'Ignore';
  matchConstraints: MatchResources | undefined;
  matchConditions: { name: string; expression: string; compiled: Compiled }[];
  variables: { name: string; compiled: Compiled }[];
  validations: {
    expression: string;
    compiled: Compiled;
    message: string | undefined;
    messageExpression: Compiled | undefined;
    reason: string;
  }[];
}

function compiled(expression: string): Compiled {
  try {
    return { program: compile(expression, POLICY_VARIABLES) };
  } catch (error) {
    if (error instanceof CelCompileError) return { error: `compilation failed: ${error.detail}` };
    throw error;
  }
}

interface Spec {
  failurePolicy?: 'Fail' | 'Ignore';
  matchConstraints?: MatchResources;
  matchConditions?: { name: string; expression: string }[];
  variables?: { name: string; expression: string }[];
  validations?: {
    expression: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
  }[];
}

/** By uid: the program of the resourceVersion last seen (a policy changes rarely, requests often). */
const cache = new Map<string, { resourceVersion: string; program: PolicyProgram }>();

export function policyProgram(policy: KObject): PolicyProgram {
  const key = policy.metadata.uid ?? '';
  const hit = cache.get(key);
  if (hit && hit.resourceVersion === policy.metadata.resourceVersion) return hit.program;
  const spec = (policy.spec ?? {}) as Spec;
  const program: PolicyProgram = {
    name: policy.metadata.name ?? '',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    matchConstraints: spec.matchConstraints,
    matchConditions: (spec.matchConditions ?? []).map((c) => ({
      name: c.name,
      expression: c.expression,
      compiled: compiled(c.expression),
    })),
    variables: (spec.variables ?? []).map((v) => ({
      name: v.name,
      compiled: compiled(v.expression),
    })),
    validations: (spec.validations ?? []).map((v) => ({
      expression: v.expression,
      compiled: compiled(v.expression),
      message: v.message,
      messageExpression:
        v.messageExpression === undefined ? undefined : compiled(v.messageExpression),
      reason: v.reason ?? 'Invalid',
    })),
  };
  cache.set(key, { resourceVersion: policy.metadata.resourceVersion ?? '', program });
  return program;
}
