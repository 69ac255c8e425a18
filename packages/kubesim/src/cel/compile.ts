/**
 * Kubernetes-flavoured CEL for the sim: compile once (parse, check names, plan), evaluate many times
 * against plain JSON. The environment is CEL's standard library plus the strings extension
 * (charAt, indexOf, lowerAscii, replace, split, substring, trim, join, format …) and `matches`
 * (RE2), which is what kubemaint's admission policies and CRD rules use; optional selection is
 * rewritten first (optional-rewrite.ts). Kubernetes' own libraries (lists, regex, URLs, quantities,
 * IPs/CIDRs, `authorizer`) are not there: an expression naming one fails when it is evaluated, with
 * CEL's own "no matching overload" error, which admission treats as it treats any evaluation error.
 *
 * A name the environment does not declare (a typo like `requests.name`) is a compile error, as
 * kube-apiserver's type check makes it; the error always quotes the expression.
 */
import { celEnv, isCelError, parse, plan, type CelEnv, type CelResult } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { OptionalSyntaxError, rewriteOptionals } from './optional-rewrite.js';
import { fromCel, toCel } from './values.js';

export class CelCompileError extends Error {
  readonly expression: string;
  readonly detail: string;
  constructor(expression: string, detail: string) {
    super(`compilation failed for ${JSON.stringify(expression)}: ${detail}`);
    this.expression = expression;
    this.detail = detail;
    this.name = 'CelCompileError';
  }
}

export class CelEvaluationError extends Error {
  readonly expression: string;
  readonly detail: string;
  constructor(expression: string, detail: string) {
    super(`expression ${JSON.stringify(expression)} resulted in error: ${detail}`);
    this.expression = expression;
    this.detail = detail;
    this.name = 'CelEvaluationError';
  }
}

export interface CelProgram {
  readonly expression: string;
  /** The value as JSON; throws CelEvaluationError. Values may be JSON or CEL values (values.ts). */
  evaluate(activation: Readonly<Record<string, unknown>>): unknown;
  /** The same, as a boolean; any other result type is an error, as for a validation rule. */
  evaluateBool(activation: Readonly<Record<string, unknown>>): boolean;
  /** The top-level names it reads (`variables` for `variables.x`), e.g. to skip lazy inputs. */
  readonly references: ReadonlySet<string>;
  /** `variables.<name>` names it reads. */
  readonly variableReferences: ReadonlySet<string>;
}

type Expr = ReturnType<typeof parse>['expr'];

/** Type names are values in CEL (`type(x) == map`). */
const TYPE_NAMES = new Set([
  'bool',
  'bytes',
  'double',
  'dyn',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'type',
  'uint',
]);

let env: CelEnv | undefined;
const environment = (): CelEnv => (env ??= celEnv({ funcs: strings }));

/** @param variableNames the activation's names (`object`, `oldObject`, `request`, `self` …). */
export function compile(expression: string, variableNames: readonly string[]): CelProgram {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rewriteOptionals(expression));
  } catch (error) {
    const detail = error instanceof OptionalSyntaxError ? error.message : (error as Error).message;
    throw new CelCompileError(expression, detail.replace(/^<input>:/, 'ERROR: <input>:'));
  }
  const declared = new Set(variableNames);
  const references = new Set<string>();
  const variableReferences = new Set<string>();
  walk(parsed.expr, new Set(), (name, node, selectField) => {
    if (TYPE_NAMES.has(name)) return;
    if (!declared.has(name)) {
      throw new CelCompileError(expression, `ERROR: undeclared reference to '${name}'`);
    }
    references.add(name);
    if (name === 'variables' && selectField !== undefined) variableReferences.add(selectField);
    void node;
  });
  const run = plan(environment(), parsed) as (bindings: Record<string, unknown>) => CelResult;

  const evaluateCel = (activation: Readonly<Record<string, unknown>>): CelResult => {
    const bindings: Record<string, unknown> = {};
    for (const name of references) bindings[name] = toCel(activation[name]);
    let result: CelResult;
    try {
      result = run(bindings);
    } catch (error) {
      throw new CelEvaluationError(expression, (error as Error).message);
    }
    if (isCelError(result)) throw new CelEvaluationError(expression, celMessage(result.message));
    return result;
  };

  return {
    expression,
    references,
    variableReferences,
    evaluate: (activation) => fromCel(evaluateCel(activation) as never),
    evaluateBool(activation) {
      const result = evaluateCel(activation);
      if (typeof result !== 'boolean') {
        throw new CelEvaluationError(
          expression,
          `expected a bool, got ${JSON.stringify(fromCel(result as never))}`,
        );
      }
      return result;
    },
  };
}

/** cel-go's wording for a missing map key, which Kubernetes users see in admission errors. */
const celMessage = (message: string): string =>
  message.replace(/^field not found: /, 'no such key: ');

/**
 * Every free identifier of the expression (not a comprehension's own variable), with the field it is
 * selected by when it is (`variables.x` → 'x').
 */
function walk(
  expr: Expr | undefined,
  bound: ReadonlySet<string>,
  visit: (name: string, node: Expr, selectField: string | undefined) => void,
): void {
  if (!expr) return;
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr':
      if (!bound.has(kind.value.name)) visit(kind.value.name, expr, undefined);
      return;
    case 'selectExpr': {
      const operand = kind.value.operand;
      if (operand?.exprKind.case === 'identExpr' && !bound.has(operand.exprKind.value.name)) {
        visit(operand.exprKind.value.name, operand, kind.value.field);
        return;
      }
      walk(operand, bound, visit);
      return;
    }
    case 'callExpr':
      walk(kind.value.target, bound, visit);
      for (const arg of kind.value.args) walk(arg, bound, visit);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) walk(element, bound, visit);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') walk(entry.keyKind.value, bound, visit);
        walk(entry.value, bound, visit);
      }
      return;
    case 'comprehensionExpr': {
      const c = kind.value;
      walk(c.iterRange, bound, visit);
      walk(c.accuInit, bound, visit);
      const inner = new Set([...bound, c.iterVar, c.iterVar2, c.accuVar].filter((n) => n !== ''));
      walk(c.loopCondition, inner, visit);
      walk(c.loopStep, inner, visit);
      walk(c.result, inner, visit);
      return;
    }
    case 'constExpr':
    case undefined:
      return;
  }
}
