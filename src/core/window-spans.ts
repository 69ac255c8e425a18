/**
 * Half-open time spans `[start, end)` in epoch milliseconds, and the two operations a schedule needs:
 * union (several windows; overlapping or touching occurrences become one open period) and difference
 * (freezes win over windows).
 */
export interface Span {
  start: number;
  end: number;
}

/** Sorted, non-empty, non-overlapping, non-touching spans covering the same instants. */
export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = spans.filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    // Touching counts: 22:00–24:00 and 00:00–06:00 are one open period, not two.
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  return merged;
}

/** `base` minus `cut`; both must be merged (sorted, disjoint). */
export function subtractSpans(base: readonly Span[], cut: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of base) {
    let start = span.start;
    for (const c of cut) {
      if (c.end <= start) continue;
      if (c.start >= span.end) break;
      if (c.start > start) out.push({ start, end: c.start });
      start = Math.max(start, c.end);
      if (start >= span.end) break;
    }
    if (start < span.end) out.push({ start, end: span.end });
  }
  return out;
}

/** The span containing `ms`, if any (half-open: the end is outside). */
export function spanAt(spans: readonly Span[], ms: number): Span | undefined {
  return spans.find((s) => s.start <= ms && ms < s.end);
}
