/**
 * The status page across clusters (issue 22): one section per cluster, in the config's order, each
 * the one-cluster fragment (its summary, timeline and requests: rows grouped by their cluster), or
 * for a cluster serve cannot read, its name and `unreachable: <why>`.
 */
import { html } from './escape.js';

export type ClusterPart = { cluster: string } & ({ fragment: string } | { unreachable: string });

export function clustersFragment(parts: readonly ClusterPart[]): string {
  return parts
    .map((part) => {
      const open = `<section class="cluster" data-cluster="${html(part.cluster)}">`;
      if ('fragment' in part) return `${open}\n${part.fragment}\n</section>`;
      return (
        `${open}<header class="summary"><h1>kubemaint · <span class="cluster">${html(part.cluster)}</span></h1>` +
        `<p class="unreachable">unreachable: ${html(part.unreachable)}</p></header></section>`
      );
    })
    .join('\n');
}
