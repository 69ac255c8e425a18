/**
 * "Did you mean …?" for typos in config keys and enum values: the closest allowed word by edit
 * distance (optimal string alignment, so a swapped pair of letters counts as one edit), only when
 * it is close enough to be a likely typo rather than a different word.
 */

/** Edit distance with adjacent transpositions (`concurrnecy` → `concurrency` is 1). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    const row = d[i];
    if (row === undefined) continue;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** `grace_period-Seconds` and `gracePeriodSeconds` are the same word once case and separators go. */
const fold = (word: string): string => word.toLowerCase().replace(/[-_\s]/g, '');

/**
 * The allowed word the user most likely meant, or undefined when nothing is close. A word that
 * differs only in case or `_`/`-` always matches (people write snake_case out of habit); otherwise
 * the distance may be at most a third of the word's length (1 for short words), and a tie between
 * two candidates suggests nothing rather than a coin flip.
 */
export function closest(word: string, allowed: readonly string[]): string | undefined {
  const folded = fold(word);
  const exact = allowed.find((candidate) => fold(candidate) === folded);
  if (exact !== undefined) return exact;
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const candidate of allowed) {
    const distance = editDistance(folded, fold(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance) {
      tie = true;
    }
  }
  return bestDistance <= limit && !tie ? best : undefined;
}

/** The hint for an unknown word: a suggestion when one is close, else the whole list when short. */
export function suggestionHint(word: string, allowed: readonly string[]): string | undefined {
  const match = closest(word, allowed);
  if (match !== undefined) return `did you mean \`${match}\`?`;
  if (allowed.length === 0) return undefined;
  return `allowed here: ${allowed.join(', ')}`;
}
