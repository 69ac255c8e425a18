/**
 * Kubernetes label selectors as the apiserver parses them: the query-string syntax
 * (`a=b,c!=d,e in (f,g),!h,i`) and the structured `LabelSelector` of PDBs, Deployments and Jobs
 * (`matchLabels` + `matchExpressions`). A parse error is returned, not thrown, in kube-apiserver's
 * wording naming the offending requirement: the simulator answers it as a 400, kubemaint's config
 * check shows it under the key that holds the selector.
 */

export type LabelOperator = 'in' | 'notin' | 'exists' | 'doesnotexist' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** `in`/`notin`: the set; `gt`/`lt`: one integer; `exists`/`doesnotexist`: none. */
  values: string[];
}

/** An empty list matches everything. */
export type Selector = LabelRequirement[];

export type ParsedSelector = { ok: true; selector: Selector } | { ok: false; error: string };

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A qualified name: optional DNS-subdomain prefix (≤ 253) and `/`, then a name of ≤ 63. */
export function isLabelKey(key: string): boolean {
  if (!LABEL_KEY.test(key)) return false;
  const slash = key.indexOf('/');
  return (slash === -1 ? key : key.slice(slash + 1)).length <= 63 && slash <= 253;
}

export const isLabelValue = (value: string): boolean =>
  LABEL_VALUE.test(value) && value.length <= 63;

class SelectorError extends Error {}

function checkKey(key: string, whole: string): string {
  if (!isLabelKey(key)) {
    throw new SelectorError(
      `unable to parse requirement: key "${key}" in selector "${whole}" is not a valid label key ` +
        `(name part: alphanumerics, '-', '_', '.', at most 63 characters; optional DNS prefix and '/')`,
    );
  }
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!isLabelValue(value)) {
    throw new SelectorError(
      `unable to parse requirement: value "${value}" in selector "${whole}" is not a valid label ` +
        `value (alphanumerics, '-', '_', '.', at most 63 characters, alphanumeric at both ends)`,
    );
  }
  return value;
}

/** Splits on commas that are not inside `( … )`. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

const SET_EXPR = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/;
const BINARY_EXPR = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(\S*)$/;

function requirement(part: string, whole: string): LabelRequirement {
  if (part.startsWith('!')) {
    return { key: checkKey(part.slice(1).trim(), whole), operator: 'doesnotexist', values: [] };
  }
  const set = SET_EXPR.exec(part);
  if (set) {
    const values = (set[3] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map((v) => checkValue(v, whole));
    if (values.length === 0) {
      throw new SelectorError(
        `unable to parse requirement: "${part}" in selector "${whole}": for 'in', 'notin' operators, values set can't be empty`,
      );
    }
    return { key: checkKey(set[1] ?? '', whole), operator: set[2] as 'in' | 'notin', values };
  }
  const bin = BINARY_EXPR.exec(part);
  if (bin) {
    const key = checkKey(bin[1] ?? '', whole);
    const op = bin[2] ?? '=';
    const value = bin[3] ?? '';
    if (op === '>' || op === '<') {
      if (!/^-?\d+$/.test(value)) {
        throw new SelectorError(
          `unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer (got "${value}" in "${whole}")`,
        );
      }
      return { key, operator: op === '>' ? 'gt' : 'lt', values: [value] };
    }
    return { key, operator: op === '!=' ? 'notin' : 'in', values: [checkValue(value, whole)] };
  }
  if (isLabelKey(part)) return { key: part, operator: 'exists', values: [] };
  throw new SelectorError(
    `unable to parse requirement: "${part}" in selector "${whole}": expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)`,
  );
}

/** Parses the text syntax. Empty text selects everything. */
export function parseSelector(text: string | undefined): ParsedSelector {
  const whole = (text ?? '').trim();
  if (whole === '') return { ok: true, selector: [] };
  try {
    return {
      ok: true,
      selector: splitTopLevel(whole).map((raw) => requirement(raw.trim(), whole)),
    };
  } catch (error) {
    if (error instanceof SelectorError) return { ok: false, error: error.message };
    throw error;
  }
}

/** True when every requirement holds; `!=` and `notin` match objects that lack the key. */
export function matchesSelector(
  selector: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const req of selector) {
    const value =
      labels === undefined || !Object.hasOwn(labels, req.key) ? undefined : labels[req.key];
    switch (req.operator) {
      case 'in':
        if (value === undefined || !req.values.includes(value)) return false;
        break;
      case 'notin':
        if (value !== undefined && req.values.includes(value)) return false;
        break;
      case 'exists':
        if (value === undefined) return false;
        break;
      case 'doesnotexist':
        if (value !== undefined) return false;
        break;
      case 'gt':
      case 'lt': {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const n = Number(value);
        const bound = Number(req.values[0]);
        if (req.operator === 'gt' ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

/** The structured selector of PDBs, Deployments, ReplicaSets, Jobs and DaemonSets. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * Converts a structured selector. `undefined`/null selects nothing and `{}` selects everything
 * (policy/v1 PDB semantics); an unknown operator makes the selector select nothing, as
 * `LabelSelectorAsSelector` errors are skipped by the eviction code.
 */
export function fromSelectorObject(
  selector: LabelSelectorObject | null | undefined,
): Selector | undefined {
  if (selector == null) return undefined;
  const reqs: Selector = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'in' as const,
    values: [value],
  }));
  const ops: Record<string, LabelOperator> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: 'doesnotexist',
  };
  for (const expr of selector.matchExpressions ?? []) {
    const operator = ops[expr.operator];
    if (operator === undefined) return undefined;
    reqs.push({ key: expr.key, operator, values: expr.values ?? [] });
  }
  return reqs;
}
