/**
 * Reading kubemaint's requests in tests as the control plane reads them (ADR 0012): the
 * MaintenanceRequest objects, through the kube adapter's own codec, by node or by id.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { createKubeClient } from '../../src/adapters/kube/client.js';
import { requestsByNode } from '../../src/adapters/kube/control-cluster.js';
import { requestStore } from '../../src/adapters/kube/requests.js';
import type { Decision, MaintenanceRequest } from '../../src/core/request.js';

export interface RequestReader {
  /** The node's request: its active one, else its newest (as `kubemaint status` shows it). */
  ofNode(node: string): Promise<MaintenanceRequest | undefined>;
  byId(id: string): Promise<MaintenanceRequest | undefined>;
  all(): Promise<MaintenanceRequest[]>;
  decisions(id?: string): Promise<Decision[]>;
  /** Overwrite a request's status as stored (what an executor or an attacker with status rights does). */
  put(request: MaintenanceRequest): Promise<void>;
  /**
   * Store `request` as it is, creating it if needed, with a decision object behind each approval (as
   * if each approver had recorded one), so dispatch's re-check against the decisions passes.
   */
  seed(request: MaintenanceRequest): Promise<MaintenanceRequest>;
}

export function requestReader(
  kubeconfig: string | KubeConfig,
  namespace = 'kubemaint',
): RequestReader {
  const config = typeof kubeconfig === 'string' ? loaded(kubeconfig) : kubeconfig;
  const store = requestStore(createKubeClient(config), { namespace });
  return {
    async ofNode(node) {
      const { requests } = await store.list();
      return requestsByNode(requests).get(node)?.request;
    },
    async byId(id) {
      return (await store.get(id))?.request;
    },
    async all() {
      return (await store.list()).requests.map((s) => s.request);
    },
    async decisions(id) {
      return (await store.decisions(id)).decisions;
    },
    async seed(request) {
      const approvals = [];
      for (const approval of request.approvals) {
        const { name } = await store.decide({
          request: request.id,
          by: approval.by,
          decision: 'approve',
          groups: [],
        });
        approvals.push({ ...approval, record: approval.record ?? name });
      }
      const seeded = { ...request, approvals };
      const stored = await store.get(request.id);
      if (stored) await store.writeStatus(seeded, stored.resourceVersion);
      else await store.create(seeded);
      return seeded;
    },
    async put(request) {
      const stored = await store.get(request.id);
      if (!stored) throw new Error(`no request ${request.id} to overwrite`);
      await store.writeStatus(request, stored.resourceVersion);
    },
  };
}

function loaded(path: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
}

/**
 * A request its executor is working on: approved by nobody left to check (its decisions are not
 * looked at once it runs), `running` since `since`, its Job named as dispatch names it, its node
 * cordoned by kubemaint. `more` adds or replaces fields (a slot, other times).
 */
export function runningRequest(
  id: string,
  node: string,
  since: Date,
  more: Partial<MaintenanceRequest> = {},
): MaintenanceRequest {
  const at = since.toISOString();
  return {
    id,
    node,
    action: 'reboot',
    state: 'running',
    reason: 'kernel',
    requestedBy: 'k8s:alice',
    createdAt: new Date(since.getTime() - 20 * 60_000).toISOString(),
    updatedAt: at,
    approvals: [],
    history: [{ from: 'approved', to: 'running', at, by: 'kubemaint' }],
    job: `kubemaint-${id}-${node}`,
    cordonedByUs: true,
    wasCordoned: false,
    ...more,
  };
}
