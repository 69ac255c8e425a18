/**
 * What `scan` reports (CLI and `/maint scan`): every node that needs maintenance and why, and the
 * marked nodes that are not proposed, with the reason they are kept quiet.
 */
import type { Need } from '../src/core/detect.js';
import { printable } from '../src/core/printable.js';

export interface ScanResult {
  nodes: number;
  needs: readonly Need[];
  skipped: readonly { node: string; why: string }[];
  /** The apiserver bound and its source, then each kubelet above it (app/control/tick.ts skewLines). */
  skew?: readonly string[];
}

export function scanLines(result: ScanResult): string[] {
  // Node names and reasons come from the cluster: one line each, control characters visible.
  const needs = result.needs.map((n) =>
    printable(`${n.node}  ${n.action}${n.targetVersion ? ` ${n.targetVersion}` : ''}  ${n.reason}`),
  );
  const quiet = result.skipped.map((s) => printable(`${s.node}  (not proposed: ${s.why})`));
  return [
    `${result.nodes} nodes scanned, ${result.needs.length} need maintenance`,
    ...[...needs, ...quiet].map((line) => `  ${line}`),
    ...(result.skew ?? []).map((line) => printable(line)),
  ];
}
