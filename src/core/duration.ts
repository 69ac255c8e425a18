/**
 * Durations as people write them in config and Slack: `90s`, `15m`, `1h30m`, `2d`, or a bare number of
 * seconds. Go's time.ParseDuration units (what kured's flags take) plus days.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number')
    return Number.isFinite(text) && text >= 0 ? text * 1_000 : undefined;
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1_000;
  if (!WHOLE.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) {
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return total;
}

/** `3725000` → `1h2m5s`; for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  let rest = Math.round(ms / 1_000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join('');
}
