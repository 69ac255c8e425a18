/**
 * Carrying requests over from the node annotation `kubemaint.io/request` of the first release (ADR
 * 0012), once, at a skew scan (serve runs one as it starts). The annotation could be written by anyone
 * who could patch the node, so nothing in it is trusted beyond what it asks for:
 * - proposed or approved: carried over as a proposal, without its approvals (approve it again);
 * - running or verifying: refused, with an Event on the node that says how to finish it;
 * - ended: carried over as it ended, for its history;
 * - unreadable: removed, with an Event.
 */
import { isRequestId } from '../../core/request-id.js';
import { ANN_REQUEST } from '../../core/names.js';
import { isActive, type MaintenanceRequest } from '../../core/request.js';
import { persist, type PersistDeps } from './persist.js';
import type { Clock, NodeView } from './ports.js';

export interface MigrateDeps extends PersistDeps {
  clock: Pick<Clock, 'now'>;
}

export async function migrateAnnotations(
  deps: MigrateDeps,
  nodes: readonly NodeView[],
): Promise<string[]> {
  const said: string[] = [];
  for (const node of nodes) {
    const raw = node.annotations[ANN_REQUEST];
    if (raw === undefined) continue;
    said.push(`${node.name}: ${await migrateOne(deps, node, raw)}`);
  }
  return said;
}

async function migrateOne(deps: MigrateDeps, node: NodeView, raw: string): Promise<string> {
  const old = parse(raw, node.name);
  const now = deps.clock.now().toISOString();
  const drop = () => deps.cluster.patchNode(node.name, { annotations: { [ANN_REQUEST]: null } });
  if (!old) {
    await deps.cluster.recordEvent(node.name, {
      reason: 'KubemaintMigration',
      message: `removed an unreadable ${ANN_REQUEST} annotation left by an earlier kubemaint`,
      type: 'Warning',
    });
    await drop();
    return 'unreadable annotation removed';
  }
  if (old.state === 'running' || old.state === 'verifying') {
    await deps.cluster.recordEvent(node.name, {
      reason: 'KubemaintMigration',
      message:
        `request ${old.id} was ${old.state} under the earlier kubemaint and is not carried over: ` +
        `let that release finish it, or check the node and remove the annotation ` +
        `(kubectl annotate node ${node.name} ${ANN_REQUEST}-), then propose again`,
      type: 'Warning',
    });
    return `${old.id} refused (${old.state})`;
  }
  if (node.request && isActive(node.request.state)) {
    await drop();
    return `${old.id} dropped: ${node.name} already has ${node.request.id}`;
  }
  const note =
    'carried over from the node annotation of an earlier kubemaint; its approvals were not (anyone ' +
    'who could patch the node could write them): approve it again';
  const request: MaintenanceRequest = isActive(old.state)
    ? {
        ...old,
        state: 'proposed',
        approvals: [],
        decisions: [],
        updatedAt: now,
        origin: old.requestedBy === 'detector' ? 'detection' : 'person',
        history: [
          ...old.history,
          { from: old.state, to: 'proposed', at: now, by: 'kubemaint', note },
        ],
      }
    : old;
  const outcome = await persist(
    deps,
    { name: node.name },
    { ok: true, changed: true, request },
    isActive(old.state) ? { kind: 'proposed', message: `${request.reason} (${note})` } : undefined,
  );
  if (outcome.status !== 'written') return `${old.id} not carried over (${outcome.status})`;
  await drop();
  return `${old.id} carried over (${request.state})`;
}

function parse(raw: string, node: string): MaintenanceRequest | undefined {
  try {
    const value = JSON.parse(raw) as Partial<MaintenanceRequest>;
    const ok =
      typeof value === 'object' &&
      value !== null &&
      typeof value.id === 'string' &&
      isRequestId(value.id) &&
      value.node === node &&
      (value.action === 'reboot' || value.action === 'upgrade') &&
      typeof value.state === 'string' &&
      typeof value.requestedBy === 'string' &&
      typeof value.createdAt === 'string';
    if (!ok) return undefined;
    return {
      ...(value as MaintenanceRequest),
      reason: typeof value.reason === 'string' ? value.reason : '',
      updatedAt: typeof value.updatedAt === 'string' ? value.updatedAt : value.createdAt!,
      approvals: Array.isArray(value.approvals) ? value.approvals : [],
      history: Array.isArray(value.history) ? value.history : [],
    };
  } catch {
    return undefined;
  }
}
