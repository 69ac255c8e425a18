/**
 * The executor's hold on the node's `kubemaint.io/request`: check that it is ours and still active,
 * and change it only with conditional writes. On a conflict (someone else wrote the node: the tick, a
 * Slack click, the kubelet's own status does not count — annotations change the resourceVersion, so
 * any write does) it re-reads, re-checks and re-applies the same change, so a cancel that won the race
 * is seen instead of overwritten.
 */
import { KubemaintError } from '../../errors.js';
import { ANN_REQUEST, LABEL_STATE } from '../../core/names.js';
import { isActive, type MaintenanceRequest, type RequestState } from '../../core/request.js';
import type { Clock, NodeInfo, NodesPort } from '../ports.js';

export const EXECUTOR_ACTOR = 'executor';

export function parseRequest(node: NodeInfo): MaintenanceRequest | undefined {
  const raw = node.annotations[ANN_REQUEST];
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as MaintenanceRequest;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.id === 'string'
      ? parsed
      : undefined;
  } catch {
    return undefined;
  }
}

/** The request on `node`, if it is the one named and still active; else why not. */
export function checkRequest(
  node: NodeInfo | undefined,
  nodeName: string,
  requestId: string,
): { ok: true; request: MaintenanceRequest } | { ok: false; why: string } {
  if (!node) return { ok: false, why: `node ${nodeName} does not exist` };
  const request = parseRequest(node);
  if (!request)
    return { ok: false, why: `node ${nodeName} has no readable ${ANN_REQUEST} annotation` };
  if (request.id !== requestId) {
    return { ok: false, why: `node ${nodeName} carries request ${request.id}, not ${requestId}` };
  }
  if (request.node !== nodeName) {
    return {
      ok: false,
      why: `request ${requestId} belongs to node ${request.node}, not ${nodeName}`,
    };
  }
  if (!isActive(request.state))
    return { ok: false, why: `request ${requestId} has ended (${request.state})` };
  return { ok: true, request };
}

/** A state change with its history entry. */
export function transition(
  request: MaintenanceRequest,
  to: RequestState,
  now: Date,
  note?: string,
): MaintenanceRequest {
  if (request.state === to) return request;
  const at = now.toISOString();
  return {
    ...request,
    state: to,
    updatedAt: at,
    history: [
      ...request.history,
      { from: request.state, to, at, by: EXECUTOR_ACTOR, ...(note ? { note } : {}) },
    ],
  };
}

const MAX_CONFLICTS = 20;

export class RequestHandle {
  private readonly nodes: NodesPort;
  private readonly clock: Clock;
  private readonly requestId: string;
  node: NodeInfo;
  request: MaintenanceRequest;

  constructor(nodes: NodesPort, clock: Clock, node: NodeInfo, request: MaintenanceRequest) {
    this.nodes = nodes;
    this.clock = clock;
    this.node = node;
    this.request = request;
    this.requestId = request.id;
  }

  /** Read the node again; throws `request_invalid` when the request is no longer ours or active. */
  async refresh(): Promise<MaintenanceRequest> {
    const node = await this.nodes.getNode(this.node.name);
    const checked = checkRequest(node, this.node.name, this.requestId);
    if (!checked.ok) throw new KubemaintError('request_invalid', checked.why);
    this.node = node!;
    this.request = checked.request;
    return checked.request;
  }

  /**
   * Apply `change` to the current request and write it conditionally. `change` may run more than once
   * (after a conflict, on the re-read request) and returns undefined when nothing needs writing.
   */
  async update(
    change: (request: MaintenanceRequest, now: Date) => MaintenanceRequest | undefined,
  ): Promise<MaintenanceRequest> {
    for (let attempt = 0; ; attempt++) {
      const next = change(this.request, this.clock.now());
      if (next === undefined || next === this.request) return this.request;
      const stamped = { ...next, updatedAt: this.clock.now().toISOString() };
      try {
        this.node = await this.nodes.writeNodeMeta(this.node.name, this.node.resourceVersion, {
          annotations: { [ANN_REQUEST]: JSON.stringify(stamped) },
          labels: { [LABEL_STATE]: stamped.state },
        });
        this.request = stamped;
        return stamped;
      } catch (error) {
        const conflict = error instanceof KubemaintError && error.code === 'conflict';
        if (!conflict || attempt + 1 >= MAX_CONFLICTS) throw error;
        await this.refresh();
      }
    }
  }
}
