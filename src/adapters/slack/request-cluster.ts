/**
 * Which clusters a Slack request may be about, read from its body before any listener runs, for the
 * standby gate (standby-gate.ts): the one cluster; the cluster a command, a button's value or a
 * modal's metadata names (routes.ts' rules); or, when it names none, every cluster (a bare id is
 * looked up in each). Undefined for what records nothing: events, a modal closed, a usage error.
 */
import { readClusterValue } from '../../../templates/slack/ids.js';
import { parseClusterCommand } from './parse-cluster.js';
import { readRejectTarget } from './reject-flow.js';
import type { SlackRoutes } from './runtime.js';

export type RequestKind = 'command' | 'click' | 'submission';

/** The body as Bolt parsed it: only the fields read here. */
export interface SlackBody {
  type?: string;
  command?: string;
  text?: string;
  actions?: readonly { value?: string }[];
  view?: { private_metadata?: string };
}

export function requestClusters(
  body: SlackBody,
  routes: Pick<SlackRoutes, 'several' | 'names' | 'command'>,
): { kind: RequestKind; clusters: readonly string[] } | undefined {
  const kind = kindOf(body);
  if (!kind) return undefined;
  if (!routes.several) return { kind, clusters: routes.names.slice(0, 1) };
  const named = nameIn(kind, body, routes);
  if (named === null) return undefined;
  return { kind, clusters: named === undefined ? routes.names : [named] };
}

function kindOf(body: SlackBody): RequestKind | undefined {
  if (typeof body.command === 'string') return 'command';
  if (body.type === 'block_actions') return 'click';
  if (body.type === 'view_submission') return 'submission';
  return undefined;
}

/** The cluster named, undefined when none is, null for a command the listener refuses anyway. */
function nameIn(
  kind: RequestKind,
  body: SlackBody,
  routes: Pick<SlackRoutes, 'names' | 'command'>,
): string | undefined | null {
  let named: string | undefined;
  if (kind === 'command') {
    const parsed = parseClusterCommand(body.text ?? '', routes.command, routes.names);
    if (!parsed.ok) return null;
    named = parsed.cluster;
  } else if (kind === 'click') named = readClusterValue(body.actions?.[0]?.value ?? '').cluster;
  else named = readRejectTarget(body.view?.private_metadata ?? '').cluster;
  // A name no cluster has is refused by the listener, which records nothing.
  return named === undefined || routes.names.includes(named) ? named : null;
}
