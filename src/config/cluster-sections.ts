/**
 * What an entry of `clusters:` inherits: each section it sets (`slot:`, `approval:`, `slack:`) is
 * merged key by key over the top-level section of the same name before the schema parses it, so
 * `slot: {concurrency: 3}` keeps the top-level `slot.releaseDelay`; a list (`windows:`) replaces.
 * Done on the document as written, because a parsed section no longer tells a key written from a
 * default. A problem in an inherited key is the top-level key's, reported there once.
 */
import { formatPath, type Problem } from './problems.js';
import { CLUSTER_SECTIONS } from './schema-clusters.js';

/** The slash command is the Slack app's: an entry's `slack:` does not take it. */
const NOT_INHERITED: Readonly<Record<string, readonly string[]>> = { slack: ['command'] };

export interface Inherited {
  document: Record<string, unknown>;
  /** Paths (`clusters[1].slot.releaseDelay`) an entry inherited rather than wrote. */
  inheritedPaths: string[];
}

export function inheritClusterSections(document: Record<string, unknown>): Inherited {
  const entries = document['clusters'];
  if (!Array.isArray(entries)) return { document, inheritedPaths: [] };
  const inheritedPaths: string[] = [];
  const merged = entries.map((entry: unknown, i) => {
    if (!isMap(entry)) return entry;
    const out: Record<string, unknown> = { ...entry };
    for (const section of CLUSTER_SECTIONS) {
      const own = entry[section];
      const shared = document[section];
      if (!isMap(own) || !isMap(shared)) continue;
      const skip = NOT_INHERITED[section] ?? [];
      const taken = Object.keys(shared).filter((key) => !(key in own) && !skip.includes(key));
      out[section] = { ...Object.fromEntries(taken.map((key) => [key, shared[key]])), ...own };
      for (const key of taken) inheritedPaths.push(formatPath(['clusters', i, section, key]));
    }
    return out;
  });
  return { document: { ...document, clusters: merged }, inheritedPaths };
}

/** Drops the copies of a top-level key's problems that an entry inherited with the key. */
export function withoutInherited(problems: readonly Problem[], inherited: readonly string[]) {
  return problems.filter(
    (p) =>
      !inherited.some(
        (path) => p.path === path || p.path.startsWith(`${path}.`) || p.path.startsWith(`${path}[`),
      ),
  );
}

/** `cluster:` beside `clusters:` is one cluster too many: which one was meant is not guessed. */
export function clusterKeyProblems(document: Record<string, unknown>): Problem[] {
  if (!('clusters' in document) || !('cluster' in document)) return [];
  return [
    {
      path: 'cluster',
      message: 'is not used when clusters: lists the clusters',
      hint: 'move it into an entry of clusters: (with a name), or remove clusters:',
    },
  ];
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
