/**
 * Kubernetes label selectors in their text form (`a=b,c!=d,e in (f,g),h notin (i),!j,k`), parsed and
 * matched in core so the drain filters and the policy can apply the same selector a server would
 * (apimachinery `labels.Parse`): comma means AND, `!=` and `notin` also match objects that lack the
 * key, and the empty selector matches everything. Pure.
 */

export type Requirement =
  | { key: string; op: 'exists' | 'not-exists' }
  | { key: string; op: 'in' | 'notin'; values: readonly string[] }
  | { key: string; op: 'gt' | 'lt'; value: number };

export type Selector = readonly Requirement[];

export type ParsedSelector = { ok: true; selector: Selector } | { ok: false; error: string };

// A qualified name: optional DNS-subdomain prefix and `/`, then a name of at most 63 characters.
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PREFIX = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const SET = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const COMPARE = /^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/;

function keyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && !PREFIX.test(prefix))
    return `label key "${key}" has an invalid prefix (a DNS subdomain such as example.com)`;
  if (!NAME.test(name))
    return `label key "${key}" is invalid (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)`;
  return undefined;
}

const valueProblem = (key: string, value: string): string | undefined =>
  VALUE.test(value)
    ? undefined
    : `value "${value}" for label "${key}" is invalid (at most 63 letters, digits, '-', '_' or '.')`;

/** Split on commas that are not inside parentheses: `a in (b,c),d` → `a in (b,c)`, `d`. */
function splitTerms(text: string): string[] | undefined {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth < 0 || depth > 1) return undefined;
    if (ch === ',' && depth === 0) {
      terms.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  terms.push(text.slice(start).trim());
  return terms;
}

function parseTerm(term: string): Requirement | string {
  const set = SET.exec(term);
  if (set) {
    const [, key = '', op = 'in', list = ''] = set;
    const values = list.split(',').map((v) => v.trim());
    const bad = keyProblem(key) ?? values.map((v) => valueProblem(key, v)).find(Boolean);
    if (bad) return bad;
    return { key, op: op === 'in' ? 'in' : 'notin', values };
  }
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    return keyProblem(key) ?? { key, op: 'not-exists' };
  }
  const compare = COMPARE.exec(term);
  if (compare) {
    const [, key = '', op = '=', value = ''] = compare;
    const bad = keyProblem(key) ?? valueProblem(key, value);
    if (bad) return bad;
    if (op === '>' || op === '<') {
      if (!/^-?\d+$/.test(value)) return `"${term}": ${op} needs an integer value`;
      return { key, op: op === '>' ? 'gt' : 'lt', value: Number(value) };
    }
    return { key, op: op === '!=' ? 'notin' : 'in', values: [value] };
  }
  return keyProblem(term) ?? { key: term, op: 'exists' };
}

/** Parse a selector; the error names the offending term and what a valid one looks like. */
export function parseSelector(text: string): ParsedSelector {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, selector: [] };
  const terms = splitTerms(trimmed);
  if (!terms) return { ok: false, error: `label selector "${text}" has unbalanced parentheses` };
  const selector: Requirement[] = [];
  for (const term of terms) {
    if (term === '') return { ok: false, error: `label selector "${text}" has an empty term` };
    const parsed = parseTerm(term);
    if (typeof parsed === 'string') {
      return {
        ok: false,
        error: `label selector "${text}": ${parsed}; expected terms like a=b, c!=d, e in (f,g), !h or i`,
      };
    }
    selector.push(parsed);
  }
  return { ok: true, selector };
}

function matchesOne(req: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, req.key);
  const value = labels[req.key];
  switch (req.op) {
    case 'exists':
      return has;
    case 'not-exists':
      return !has;
    case 'in':
      return has && req.values.includes(value ?? '');
    case 'notin':
      return !has || !req.values.includes(value ?? '');
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value ?? '')) return false;
      const n = Number(value);
      return req.op === 'gt' ? n > req.value : n < req.value;
    }
  }
}

/** True when every requirement holds for `labels` (missing labels count as absent keys). */
export function matchesSelector(
  selector: Selector,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  return selector.every((req) => matchesOne(req, labels ?? {}));
}
