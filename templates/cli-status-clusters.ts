/**
 * `kubemaint status` across the clusters of `clusters:` (issue 22): a section per cluster, in the
 * config's order, each the one-cluster status (cli-status.ts); a cluster that did not answer is
 * one line, `unreachable: <why>`, and the others are shown all the same. `--json`: one document
 * with a `clusters` list, each entry the one-cluster document plus its `cluster`, or `unreachable`.
 */
import { printable } from '../src/core/printable.js';
import { statusObject, statusTable, type StatusView } from './cli-status.js';

export type ClusterStatus = { cluster: string } & ({ view: StatusView } | { unreachable: string });

export function statusAcrossTable(clusters: readonly ClusterStatus[], now: Date): string {
  return clusters
    .map((one) => {
      const heading = `cluster ${printable(one.cluster)}`;
      if ('unreachable' in one) return `${heading}\nunreachable: ${printable(one.unreachable)}\n`;
      return `${heading}\n${statusTable(one.view, now, one.cluster)}`;
    })
    .join('\n');
}

export function statusAcrossJson(clusters: readonly ClusterStatus[]): string {
  const document = {
    clusters: clusters.map((one) =>
      'unreachable' in one
        ? { cluster: one.cluster, unreachable: one.unreachable }
        : { cluster: one.cluster, ...statusObject(one.view) },
    ),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
