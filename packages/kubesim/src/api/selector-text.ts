/**
 * A LabelSelector object as text, the way labels.Selector.String() writes it (kubectl's SELECTOR
 * column, a Scale's status.selector): requirements sorted by key, set values sorted.
 */
type Obj = Record<string, unknown>;
const o = (v: unknown): Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** '' for a selector without requirements. */
export function selectorText(selector: unknown): string {
  const s = o(selector);
  const requirements: [string, string][] = [
    ...Object.entries(o(s['matchLabels'])).map(([k, v]): [string, string] => [
      k,
      `${k}=${String(v)}`,
    ]),
    ...arr(s['matchExpressions']).map((e): [string, string] => {
      const key = String(e['key']);
      const values = arr(e['values']).map(String).sort().join(',');
      switch (e['operator']) {
        case 'Exists':
          return [key, key];
        case 'DoesNotExist':
          return [key, `!${key}`];
        case 'NotIn':
          return [key, `${key} notin (${values})`];
        default:
          return [key, `${key} in (${values})`];
      }
    }),
  ];
  return requirements
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r)
    .join(',');
}
