/**
 * The executor's hold on its MaintenanceRequest (ADR 0012): check that it is the one named, for this
 * node, and still active, and change its status only with conditional writes. On a conflict (the
 * control plane wrote it: a cancel, a drain decision) it re-reads, re-checks and re-applies the same
 * change, so a cancel that won the race is seen instead of overwritten. Admission lets the executor
 * move only a running request, to verifying, failed or skipped, and never touch its approvals.
 */
import { KubemaintError } from '../../errors.js';
import {
  EXECUTOR_ACTOR,
  isActive,
  type MaintenanceRequest,
  type RequestState,
} from '../../core/request.js';
import {
  maintenanceConditions,
  sameConditions,
  type MaintenanceCondition,
} from '../../core/node-conditions.js';
import type { Logger } from '../../log.js';
import type { Clock, NodeInfo, NodesPort, RequestsPort, StoredRequest } from '../ports.js';

/** The request `requestId` as stored, if it is for `nodeName` and still active; else why not. */
export function checkRequest(
  stored: StoredRequest | undefined,
  nodeName: string,
  requestId: string,
): { ok: true; request: MaintenanceRequest } | { ok: false; why: string } {
  if (!stored) return { ok: false, why: `there is no request ${requestId}` };
  const request = stored.request;
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
  private readonly requests: RequestsPort;
  private readonly clock: Clock;
  private readonly requestId: string;
  private readonly log: Logger;
  private version: string;
  /** The maintenance conditions last written on the node (ADR 0041), so an unchanged set is not. */
  private conditions: MaintenanceCondition[] | undefined;
  node: NodeInfo;
  request: MaintenanceRequest;

  constructor(
    ports: { nodes: NodesPort; requests: RequestsPort; clock: Clock; log: Logger },
    node: NodeInfo,
    stored: StoredRequest,
  ) {
    this.nodes = ports.nodes;
    this.requests = ports.requests;
    this.clock = ports.clock;
    this.log = ports.log;
    this.node = node;
    this.request = stored.request;
    this.version = stored.resourceVersion;
    this.requestId = stored.request.id;
  }

  /** Read node and request again; throws `request_invalid` when the request is no longer ours or active. */
  async refresh(): Promise<MaintenanceRequest> {
    const [node, stored] = await Promise.all([
      this.nodes.getNode(this.node.name),
      this.requests.get(this.requestId),
    ]);
    if (!node) throw new KubemaintError('request_invalid', `node ${this.node.name} does not exist`);
    const checked = checkRequest(stored, this.node.name, this.requestId);
    if (!checked.ok) throw new KubemaintError('request_invalid', checked.why);
    this.node = node;
    this.request = checked.request;
    this.version = stored!.resourceVersion;
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
        this.version = await this.requests.writeStatus(stamped, this.version);
        this.request = stamped;
        await this.mirrorConditions();
        return stamped;
      } catch (error) {
        const conflict = error instanceof KubemaintError && error.code === 'conflict';
        if (!conflict || attempt + 1 >= MAX_CONFLICTS) throw error;
        await this.refresh();
      }
    }
  }

  /**
   * Write the node's maintenance conditions for the request as just written (DrainInProgress,
   * Drained, MaintenanceInProgress; none once the executor ended it). The request is the record: a
   * refused or failed write is logged, never a reason to stop a maintenance that is under way.
   */
  private async mirrorConditions(): Promise<void> {
    const wanted = maintenanceConditions(this.request);
    if (this.conditions && sameConditions(this.conditions, wanted)) return;
    try {
      await this.nodes.setMaintenanceConditions(this.node.name, wanted);
      this.conditions = wanted;
    } catch (error) {
      this.log.warn(
        { err: error, node: this.node.name, request: this.request.id },
        'could not write the node maintenance conditions',
      );
    }
  }
}
