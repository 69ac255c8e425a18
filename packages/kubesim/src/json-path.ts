/**
 * The JSONPath that CRDs' printer columns and selectable fields use: `.spec.node`,
 * `.metadata.labels['a.b/c']`, `.items[0]`, `.list[*].name` and a filter on one field,
 * `.status.conditions[?(@.type=="Ready")].status`. It answers every match in order (a printer
 * column shows the first). Unknown syntax throws, so a CRD that uses more says so.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; value: string };

const FILTER = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)')\)$/;

export function parseJsonPath(text: string): Step[] {
  const src = text
    .trim()
    .replace(/^\{(.*)\}$/, '$1')
    .replace(/^\$/, '');
  const steps: Step[] = [];
  let i = 0;
  while (i < src.length) {
    if (src[i] === '.') {
      const m = /^\.([A-Za-z0-9_-]+)/.exec(src.slice(i));
      if (!m?.[1]) throw new Error(`unsupported JSONPath ${JSON.stringify(text)} at ${i}`);
      steps.push({ kind: 'field', name: m[1] });
      i += m[0].length;
    } else if (src[i] === '[') {
      const end = src.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in JSONPath ${JSON.stringify(text)}`);
      const inner = src.slice(i + 1, end).trim();
      const quoted = /^'(.*)'$|^"(.*)"$/.exec(inner);
      const filter = FILTER.exec(inner);
      if (quoted) steps.push({ kind: 'field', name: quoted[1] ?? quoted[2] ?? '' });
      else if (inner === '*') steps.push({ kind: 'all' });
      else if (/^\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (filter?.[1]) {
        steps.push({
          kind: 'filter',
          path: filter[1].slice(1).split('.'),
          value: filter[2] ?? filter[3] ?? '',
        });
      } else throw new Error(`unsupported JSONPath ${JSON.stringify(text)}: [${inner}]`);
      i = end + 1;
    } else {
      throw new Error(`unsupported JSONPath ${JSON.stringify(text)} at ${i}`);
    }
  }
  return steps;
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function dig(v: unknown, path: readonly string[]): unknown {
  for (const p of path) v = isObj(v) ? v[p] : undefined;
  return v;
}

/** Every value the path reaches in `root`. */
export function evaluateJsonPath(steps: readonly Step[], root: unknown): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'field' && isObj(v) && step.name in v) next.push(v[step.name]);
      else if (step.kind === 'index' && Array.isArray(v) && step.index < v.length)
        next.push(v[step.index]);
      else if (step.kind === 'all' && Array.isArray(v)) next.push(...(v as unknown[]));
      else if (step.kind === 'all' && isObj(v)) next.push(...Object.values(v));
      else if (step.kind === 'filter' && Array.isArray(v)) {
        next.push(...(v as unknown[]).filter((e) => String(dig(e, step.path)) === step.value));
      }
    }
    current = next;
  }
  return current;
}
