/**
 * Label and field selectors as the apiserver parses them: the query-string syntax
 * (`a=b,c!=d,e in (f,g),!h,i`) and the structured `LabelSelector` of PDBs, Deployments and Jobs
 * (`matchLabels` + `matchExpressions`). Bad syntax is a 400 that names the offending requirement,
 * so a typo in a test or in kubemaint fails loudly instead of silently matching nothing.
 */
import { StatusError } from './types.js';

export type LabelOperator = 'in' | 'notin' | 'exists' | 'doesnotexist' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** An empty list matches everything. */
export type LabelSelector = LabelRequirement[];

export interface FieldRequirement {
  field: string;
  /** `=` and `==` mean the same; field selectors know nothing else. */
  negate: boolean;
  value: string;
}

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function badSelector(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

function checkKey(key: string, whole: string): string {
  if (!LABEL_KEY.test(key) || key.length > 317) {
    throw badSelector(
      `unable to parse requirement: key "${key}" in selector "${whole}" is not a valid label key ` +
        `(name part: alphanumerics, '-', '_', '.', at most 63 characters; optional DNS prefix and '/')`,
    );
  }
  return key;
}

function checkValue(value: string, whole: string): string {
  if (!LABEL_VALUE.test(value) || value.length > 63) {
    throw badSelector(
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

/** Parses the `labelSelector` query syntax. Empty text selects everything. */
export function parseLabelSelector(text: string | undefined): LabelSelector {
  const whole = (text ?? '').trim();
  if (whole === '') return [];
  return splitTopLevel(whole).map((raw) => {
    const part = raw.trim();
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
        throw badSelector(
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
          throw badSelector(
            `unable to parse requirement: for 'gt', 'lt' operators, the value must be an integer (got "${value}" in "${whole}")`,
          );
        }
        return { key, operator: op === '>' ? 'gt' : 'lt', values: [value] };
      }
      return { key, operator: op === '!=' ? 'notin' : 'in', values: [checkValue(value, whole)] };
    }
    if (LABEL_KEY.test(part)) return { key: part, operator: 'exists', values: [] };
    throw badSelector(
      `unable to parse requirement: "${part}" in selector "${whole}": expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)`,
    );
  });
}

/** True when every requirement holds; `!=` and `notin` match objects that lack the key. */
export function matchesLabels(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  for (const req of selector) {
    const value = labels?.[req.key];
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
        const n = Number(value);
        const bound = Number(req.values[0]);
        if (value === undefined || !Number.isInteger(n)) return false;
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
): LabelSelector | undefined {
  if (selector == null) return undefined;
  const reqs: LabelSelector = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
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

/** Parses a `fieldSelector`; `supported(field)` says which fields this resource can select on. */
export function parseFieldSelector(
  text: string | undefined,
  supported: (field: string) => boolean,
): FieldRequirement[] {
  const whole = (text ?? '').trim();
  if (whole === '') return [];
  return splitEscaped(whole, ',').map((part) => {
    const match = /^([^=!\s]+)\s*(==|=|!=)(.*)$/.exec(part.trim());
    if (!match) {
      throw badSelector(
        `invalid selector: '${whole}'; can't understand '${part}' (use field=value or field!=value)`,
      );
    }
    const field = match[1] ?? '';
    if (!supported(field)) throw badSelector(`field label not supported: ${field}`);
    return { field, negate: match[2] === '!=', value: unescape(match[3] ?? '') };
  });
}

/** Field selector values may escape `\,`, `\=` and `\\`. */
function splitEscaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === sep) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}

/** `get(field)` returns the object's value as the apiserver renders it (booleans as "true"/"false"). */
export function matchesFields(
  requirements: readonly FieldRequirement[],
  get: (field: string) => string | undefined,
): boolean {
  for (const req of requirements) {
    const value = get(req.field) ?? '';
    if (req.negate ? value === req.value : value !== req.value) return false;
  }
  return true;
}
