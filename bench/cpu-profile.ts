/**
 * Where a process's CPU went, from a V8 `.cpuprofile` (`node --cpu-prof`), within a window of the
 * monotonic clock: each sample is charged to the code that ran it (self time), a frame without a
 * script (a V8 builtin such as JSON.parse) to the nearest caller that has one, and every script to
 * kubemaint, Bolt and its HTTP stack, the Kubernetes client, another package, or Node itself.
 * V8's sample times and process.hrtime read the same clock (CLOCK_MONOTONIC), so a window recorded
 * by the bench process selects the samples of the serve process.
 */

export interface CpuShares {
  windowMs: number;
  samples: number;
  /** Share of the window the process was running JavaScript, GC or V8 (not idle). */
  busy: number;
  /** Shares of the busy time. */
  of: {
    kubemaint: number;
    bolt: number;
    kubeClient: number;
    otherPackages: number;
    node: number;
    gc: number;
    native: number;
  };
  /** kubemaint's own files with the most self time, for the next profile to look at. */
  topKubemaintFiles: { file: string; share: number }[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const BOLT = [
  '@slack/',
  'express',
  'router',
  'body-parser',
  'raw-body',
  'iconv-lite',
  'axios',
  'form-data',
  'follow-redirects',
  'eventemitter3',
  'p-queue',
  'p-retry',
  'path-to-regexp',
  'tsscmp',
  'qs',
];
const KUBE_CLIENT = ['@kubernetes/', 'undici', 'node-fetch', 'jsonpath-plus', 'js-yaml'];

type Category = keyof CpuShares['of'] | 'idle';

function categoryOf(url: string, root: string): Category {
  if (url.startsWith('node:')) return 'node';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length);
    if (BOLT.some((p) => rest.startsWith(p))) return 'bolt';
    if (KUBE_CLIENT.some((p) => rest.startsWith(p))) return 'kubeClient';
    return 'otherPackages';
  }
  if (url.startsWith(`file://${root}/`)) return 'kubemaint';
  return 'native';
}

export function cpuShares(
  raw: unknown,
  window: { from: bigint; to: bigint },
  root: string,
): CpuShares {
  const profile = raw as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const chargedTo = (id: number): { category: Category; url: string } => {
    const leaf = byId.get(id)!;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') return { category: 'idle', url: '' };
    if (name === '(garbage collector)') return { category: 'gc', url: '' };
    if (name === '(program)' || name === '(root)') return { category: 'native', url: '' };
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (url) return { category: categoryOf(url, root), url };
    }
    return { category: 'native', url: '' };
  };
  const from = Number(window.from / 1000n);
  const to = Number(window.to / 1000n);
  const micros = new Map<Category, number>();
  const files = new Map<string, number>();
  let t = profile.startTime;
  let samples = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < from || t > to) return;
    samples += 1;
    const { category, url } = chargedTo(id);
    micros.set(category, (micros.get(category) ?? 0) + delta);
    if (category === 'kubemaint') {
      const file = url.slice(`file://${root}/`.length);
      files.set(file, (files.get(file) ?? 0) + delta);
    }
  });
  const total = [...micros.values()].reduce((a, b) => a + b, 0);
  const busyMicros = total - (micros.get('idle') ?? 0);
  const share = (c: Category) => (busyMicros ? (micros.get(c) ?? 0) / busyMicros : 0);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    windowMs: (to - from) / 1000,
    samples,
    busy: round(total ? busyMicros / total : 0),
    of: {
      kubemaint: round(share('kubemaint')),
      bolt: round(share('bolt')),
      kubeClient: round(share('kubeClient')),
      otherPackages: round(share('otherPackages')),
      node: round(share('node')),
      gc: round(share('gc')),
      native: round(share('native')),
    },
    topKubemaintFiles: [...files.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([file, us]) => ({ file, share: round(busyMicros ? us / busyMicros : 0) })),
  };
}
