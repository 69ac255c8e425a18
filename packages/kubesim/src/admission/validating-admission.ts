/**
 * ValidatingAdmissionPolicy as kube-apiserver 1.34 runs it, after authorization and object
 * validation, before the write: every binding whose policy matches the request (policy
 * matchConstraints, then the binding's matchResources) evaluates the policy's matchConditions (any
 * false skips it), then each validation in order, reading `object`, `oldObject`, `request`,
 * `variables` (lazily: a variable's error only counts where it is read) and `namespaceObject`.
 *
 * A false validation is a decision with its message (messageExpression, else message, else
 * "failed expression: …") and reason (default Invalid); an evaluation error is a decision too
 * ("expression '…' resulted in error: …") unless failurePolicy is Ignore. The binding's
 * validationActions say what a decision does: Deny refuses the request with the first decision
 * (`<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with binding '<b>' denied
 * request: <message>`, code from the reason: Forbidden 403, Invalid 422, …), Warn adds a `Warning`
 * header, Audit is accepted and does nothing (the sim writes no audit annotations).
 */
import { randomUUID } from 'node:crypto';
import { CelEvaluationError, toCel } from '../cel/index.js';
import { qualifiedResource } from '../status-errors.js';
import { R, StatusError, type KObject, type Store } from '../types.js';
import { requestValue, type AdmissionAttributes } from './attributes.js';
import { matchesResources, type MatchResources } from './match.js';
import { policyProgram, type Compiled } from './policy-program.js';

export const POLICIES = 'validatingadmissionpolicies.admissionregistration.k8s.io';
export const POLICY_BINDINGS = 'validatingadmissionpolicybindings.admissionregistration.k8s.io';

const CODES: Record<string, number> = {
  Unauthorized: 401,
  Forbidden: 403,
  Invalid: 422,
  RequestEntityTooLarge: 413,
};

interface Decision {
  message: string;
  reason: string;
}

export interface AdmissionResult {
  /** `Warning` header values (Warn action). */
  warnings: string[];
}

export interface ValidatingAdmission {
  /** Throws the refusal (StatusError) of the first Deny decision; returns the warnings otherwise. */
  admit(attributes: AdmissionAttributes): AdmissionResult;
}

const errorText = (error: unknown): string =>
  error instanceof CelEvaluationError ? error.detail : (error as Error).message;

export function createValidatingAdmission(store: Store): ValidatingAdmission {
  const stored = (key: string): KObject[] => store.listPage(key, {}, { shared: true }).items;

  return {
    admit(a) {
      const warnings: string[] = [];
      const bindings = stored(POLICY_BINDINGS);
      if (bindings.length === 0) return { warnings };
      const policies = new Map(stored(POLICIES).map((p) => [p.metadata.name ?? '', p]));
      const namespaceObject = a.namespace
        ? store.get(R.namespaces, undefined, a.namespace)
        : undefined;
      const activation: Record<string, unknown> = {
        object: a.object ?? null,
        oldObject: a.oldObject ?? null,
        request: toCel(requestValue(a, randomUUID())),
        namespaceObject: namespaceObject ?? null,
        params: null,
      };
      const denied: { policy: string; binding: string; decision: Decision }[] = [];
      for (const binding of bindings) {
        const spec = (binding.spec ?? {}) as {
          policyName?: string;
          validationActions?: string[];
          matchResources?: MatchResources;
        };
        const policy = policies.get(spec.policyName ?? '');
        if (!policy) continue;
        const program = policyProgram(policy);
        if (!matchesResources(program.matchConstraints, a, namespaceObject, true)) continue;
        if (!matchesResources(spec.matchResources, a, namespaceObject, false)) continue;
        const decisions = evaluate(program, activation);
        const actions = spec.validationActions ?? [];
        for (const decision of decisions) {
          if (actions.includes('Deny')) {
            denied.push({ policy: program.name, binding: binding.metadata.name ?? '', decision });
          }
          if (actions.includes('Warn')) {
            warnings.push(
              `Validation failed for ValidatingAdmissionPolicy '${program.name}' with binding '${binding.metadata.name ?? ''}': ${decision.message}`,
            );
          }
        }
      }
      const first = denied[0];
      if (first) {
        const message = `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.decision.message}`;
        const resource = {
          plural: a.resource.resource,
          group: a.resource.group,
          kind: a.kind.kind,
        };
        const name = a.name || (a.object?.metadata.name ?? '');
        throw new StatusError(
          CODES[first.decision.reason] ?? 422,
          first.decision.reason,
          name === ''
            ? `${qualifiedResource(resource)} is forbidden: ${message}`
            : `${qualifiedResource(resource)} "${name}" is forbidden: ${message}`,
          {
            details: {
              name,
              ...(a.resource.group === '' ? {} : { group: a.resource.group }),
              kind: a.resource.resource,
              causes: [{ message }],
            },
          },
        );
      }
      return { warnings };
    },
  };
}

/** The policy's decisions for one request, in validation order (empty: admitted). */
function evaluate(
  program: ReturnType<typeof policyProgram>,
  base: Record<string, unknown>,
): Decision[] {
  const onError = (message: string): Decision[] =>
    program.failurePolicy === 'Ignore' ? [] : [{ message, reason: 'Invalid' }];

  // Variables: evaluated in order, each seeing the ones before it; errors kept for whoever reads them.
  const variables = new Map<string, unknown>();
  const variableErrors = new Map<string, string>();
  const activation = { ...base, variables: variables };
  const run = (compiled: Compiled, expression: string, asBool: boolean): unknown => {
    if ('error' in compiled) throw new CelEvaluationError(expression, compiled.error);
    for (const name of compiled.program.variableReferences) {
      const failed = variableErrors.get(name);
      if (failed !== undefined) throw new CelEvaluationError(expression, failed);
    }
    const bound = { ...activation, variables: Object.fromEntries(variables) };
    return asBool ? compiled.program.evaluateBool(bound) : compiled.program.evaluate(bound);
  };
  for (const v of program.variables) {
    try {
      variables.set(v.name, run(v.compiled, v.name, false));
    } catch (error) {
      variableErrors.set(
        v.name,
        `composited variable "${v.name}" fails to evaluate: ${errorText(error)}`,
      );
    }
  }

  let conditionError: string | undefined;
  for (const condition of program.matchConditions) {
    try {
      if (run(condition.compiled, condition.expression, true) === false) return [];
    } catch (error) {
      conditionError ??= `failed to evaluate matchCondition '${condition.name}': ${errorText(error)}`;
    }
  }
  if (conditionError !== undefined) return onError(conditionError);

  const decisions: Decision[] = [];
  for (const v of program.validations) {
    let passed: boolean;
    try {
      passed = run(v.compiled, v.expression, true) === true;
    } catch (error) {
      decisions.push(
        ...onError(`expression '${v.expression}' resulted in error: ${errorText(error)}`),
      );
      continue;
    }
    if (passed) continue;
    const fallback = v.message ?? `failed expression: ${v.expression.trim()}`;
    let message = fallback;
    if (v.messageExpression) {
      try {
        const text = run(v.messageExpression, 'messageExpression', false);
        if (typeof text === 'string' && text.trim() !== '' && !text.includes('\n'))
          message = text.trim();
      } catch {
        // kube-apiserver logs a failing messageExpression and falls back to the message.
      }
    }
    decisions.push({ message, reason: v.reason });
  }
  return decisions;
}
