/**
 * Top-level keys that were renamed (ADR 0016): the old name is still read, as the new one, with a
 * one-line warning, so a file written for an older kubemaint keeps working while it says what to
 * change. Both names at once is an error: which settings were meant cannot be guessed.
 */
import { formatPath, type Problem } from './problems.js';

interface Renamed {
  old: string;
  now: string;
}

/** `lock:` was the first name of the slots' section (architecture.md: the idea is a slot). */
export const RENAMED_KEYS: readonly Renamed[] = [{ old: 'lock', now: 'slot' }];

export interface Renaming {
  /** The document with every old key moved to its new name. */
  document: Record<string, unknown>;
  /** The renames applied, to speak of the file's own keys in problems and warnings. */
  applied: Renamed[];
  problems: Problem[];
}

export function renameKeys(document: Record<string, unknown>): Renaming {
  const out = { ...document };
  const applied: Renamed[] = [];
  const problems: Problem[] = [];
  for (const rename of RENAMED_KEYS) {
    if (!(rename.old in out)) continue;
    if (rename.now in out) {
      problems.push({
        path: formatPath([rename.old]),
        message: `is the old name of ${rename.now}:, and the file has both`,
        hint: `move these settings under ${rename.now}: and remove ${rename.old}:`,
      });
      // Said once, here: not again as an unknown key.
      delete out[rename.old];
      continue;
    }
    out[rename.now] = out[rename.old];
    delete out[rename.old];
    applied.push(rename);
  }
  return { document: out, applied, problems };
}

/** Problems found under a new name point at the key the file really has (`lock.ttl`). */
export function inFileTerms(problems: readonly Problem[], applied: readonly Renamed[]): Problem[] {
  return problems.map((problem) => {
    const rename = applied.find(
      (r) =>
        problem.path === r.now ||
        problem.path.startsWith(`${r.now}.`) ||
        problem.path.startsWith(`${r.now}[`),
    );
    return rename
      ? { ...problem, path: rename.old + problem.path.slice(rename.now.length) }
      : problem;
  });
}

/** The one line said whenever a file with an old name is read. */
export const renamedWarning = (rename: Renamed): string =>
  `${rename.old}: is deprecated and read as ${rename.now}: (same keys); rename it in the file`;
