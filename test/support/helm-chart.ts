/**
 * kubemaint's Helm chart (charts/kubemaint) for tests: Helm built from its Go module once per version
 * (scripts/helm), the chart rendered, infra/k8s rendered by `kubectl kustomize`, and the two compared
 * object by object. The chart must render what the kustomization applies; the few things only the
 * chart has are listed here, each with its reason, and anything else that differs is a difference.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { buildHelm, helmVersion } from '../../scripts/helm/build.js';

export const CHART = fileURLToPath(new URL('../../charts/kubemaint', import.meta.url));
const INFRA = fileURLToPath(new URL('../../infra/k8s', import.meta.url));

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** The cached Helm binary, built first if this machine has none (a few minutes, once). */
export async function helmBinary(): Promise<string> {
  const built = await buildHelm(helmVersion(), (line) => process.stderr.write(`# ${line}\n`));
  return built.helm;
}

/** Runs helm; throws with its stderr (execFileSync's error) when it fails. */
export function runHelm(helm: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return execFileSync(helm, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
}

/** `helm template kubemaint charts/kubemaint --include-crds` plus `args` (e.g. --set …), as text. */
export function templateChart(helm: string, args: readonly string[] = []): string {
  return runHelm(helm, [
    'template',
    'kubemaint',
    CHART,
    '--namespace',
    'default',
    '--include-crds',
    ...args,
  ]);
}

/**
 * The chart's objects as kubectl reads them. Rendered text goes through `kubectl kustomize` too: Go's
 * YAML reads some folded scalars (`>-` with more-indented lines, as in the CEL expressions) with an
 * extra newline that the spec, and our YAML parser, do not have. The apiserver gets Go's reading
 * from either path, so both sides are compared as kubectl reads them.
 */
export function renderChart(helm: string, args: readonly string[] = []): Manifest[] {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-chart-'));
  try {
    writeFileSync(join(dir, 'chart.yaml'), templateChart(helm, args));
    writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [chart.yaml]\n');
    return manifestsOf(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function renderKustomization(): Manifest[] {
  return manifestsOf(execFileSync('kubectl', ['kustomize', INFRA], { encoding: 'utf8' }));
}

export function manifestsOf(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export const keyOf = (m: Manifest) =>
  `${m.kind} ${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name} (${m.apiVersion})`;

/**
 * What only the chart renders, and why. The test fails if one of these disappears too, so the list
 * cannot go stale.
 */
export const CHART_ONLY = {
  objects: {
    // kustomize users create it from their file (infra/k8s/serve-deployment.yaml says how); the chart
    // renders it from `config:` in values.
    'ConfigMap kubemaint/kubemaint-config (v1)': 'serve config from values',
  },
  fields: {
    // serve reads its config once at start: a changed config must roll the pod.
    'Deployment kubemaint/kubemaint-serve (apps/v1)': [
      ['spec', 'template', 'metadata', 'annotations', 'checksum/config'],
    ],
  },
} as const;

function without(m: Manifest, path: readonly string[]): Manifest {
  const copy = structuredClone(m);
  let node = copy as Record<string, unknown> | undefined;
  for (const step of path.slice(0, -1)) node = node?.[step] as Record<string, unknown> | undefined;
  if (!node || !(path.at(-1)! in node)) throw new Error(`${keyOf(m)} has no ${path.join('.')}`);
  delete node[path.at(-1)!];
  return copy;
}

/** Every place two values differ, as `path: chart … ≠ kustomize …`. */
export function fieldDifferences(chart: unknown, kustomize: unknown, path = ''): string[] {
  if (isDeepStrictEqual(chart, kustomize)) return [];
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));
  const bothObjects =
    typeof chart === 'object' &&
    chart !== null &&
    typeof kustomize === 'object' &&
    kustomize !== null;
  if (bothObjects && Array.isArray(chart) === Array.isArray(kustomize)) {
    // Item by item (an absent one shows as such), so a list that grew names what it gained.
    const keys = new Set([...Object.keys(chart), ...Object.keys(kustomize)]);
    return [...keys].flatMap((k) =>
      fieldDifferences(
        (chart as Record<string, unknown>)[k],
        (kustomize as Record<string, unknown>)[k],
        Array.isArray(chart) ? `${path}[${k}]` : path ? `${path}.${k}` : k,
      ),
    );
  }
  return [`${path}: chart ${show(chart)} ≠ kustomize ${show(kustomize)}`];
}

/** Objects missing on either side and fields that differ, each naming its object: [] when equal. */
export function chartDifferences(chart: Manifest[], kustomize: Manifest[]): string[] {
  const problems: string[] = [];
  const byKey = (list: Manifest[], side: string) => {
    const map = new Map<string, Manifest>();
    for (const m of list) {
      if (map.has(keyOf(m))) problems.push(`${keyOf(m)}: rendered twice by ${side}`);
      map.set(keyOf(m), m);
    }
    return map;
  };
  const ours = byKey(chart, 'the chart');
  const theirs = byKey(kustomize, 'kustomize');
  for (const [key, m] of ours) {
    if (key in CHART_ONLY.objects) continue;
    const other = theirs.get(key);
    if (!other) {
      problems.push(`${key}: rendered by the chart, not by infra/k8s`);
      continue;
    }
    const skip: readonly (readonly string[])[] =
      (CHART_ONLY.fields as Record<string, readonly (readonly string[])[]>)[key] ?? [];
    const normal = skip.reduce(without, m);
    problems.push(...fieldDifferences(normal, other).map((d) => `${key}: ${d}`));
  }
  for (const key of theirs.keys()) {
    if (!ours.has(key)) problems.push(`${key}: in infra/k8s, not rendered by the chart`);
  }
  for (const key of Object.keys(CHART_ONLY.objects)) {
    if (!ours.has(key))
      problems.push(`${key}: listed as chart-only but the chart no longer renders it`);
  }
  return problems;
}
