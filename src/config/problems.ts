/**
 * A config problem as people read it: where (`slot.concurrency`), what is wrong, and how to fix it.
 * Every check in src/config reports these, so `config check` can list all of them in one run.
 */

export interface Problem {
  /** `slot.concurrency`, `windows[0].start`, `$SLACK_BOT_TOKEN`, or `line 3, column 5`. */
  path: string;
  /** What is wrong, never echoing a secret-looking value. */
  message: string;
  /** How to fix it, when there is something useful to say. */
  hint?: string;
}

/** `['windows', 0, 'start']` → `windows[0].start`; odd keys are quoted (`pools["gpu.large"]`). */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) {
      out += out === '' ? segment : `.${segment}`;
    } else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out === '' ? '(top level)' : out;
}

export function formatProblem(problem: Problem): string {
  return problem.hint === undefined
    ? `${problem.path}: ${problem.message}`
    : `${problem.path}: ${problem.message} — ${problem.hint}`;
}

/** The text `config check` prints and `loadConfig` throws: a count, then one problem per line. */
export function formatProblems(source: string, problems: readonly Problem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return [`${source} has ${count}:`, ...problems.map((p) => `  ${formatProblem(p)}`)].join('\n');
}

/** Drops repeats (two checks can catch the same mistake); keeps the order problems were found in. */
export function uniqueProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = formatProblem(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
