/** Small helpers for building service configs and reading service answers. */

/** Drop undefined values, so optional keys stay absent and configs compare cleanly in tests. */
export function optional<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** JSON or undefined: service answers are not always JSON, even when they say so. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
