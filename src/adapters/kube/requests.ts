/**
 * kubemaint's requests and decisions in the cluster (ADR 0012): MaintenanceRequest objects, whose
 * status only the control plane (and, narrowly, the executor) writes, and MaintenanceApproval objects,
 * each bound to its author by admission. Status writes are conditional on resourceVersion (409 →
 * `conflict`), so two ticks or two clicks cannot both win.
 */
import { createHash } from 'node:crypto';
import type { Decision, DecisionKind, MaintenanceRequest } from '../../core/request.js';
import { phaseOf, type RequestPhase } from '../../core/retention.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { MERGE_PATCH } from './nodes.js';
import { customObjectsPage, listAll } from './paginate.js';
import {
  DECISIONS,
  GROUP,
  LABEL_DECIDES,
  LABEL_PHASE,
  NOT_ENDED,
  REQUESTS,
  VERSION,
  decodeDecision,
  decodeRequest,
  encodeDecision,
  encodeRequest,
  type StoredRequest,
} from './request-codec.js';
import { withRetry } from './retry.js';

export type { StoredRequest } from './request-codec.js';

/** An object of kubemaint's kinds that could not be read, and why (reported, never thrown). */
export interface StoredProblem {
  name: string;
  problem: string;
}

export interface RequestStore {
  /**
   * Every request, or one node's (`spec.node`, a selectable field of the CRD: one node's few
   * objects, not the whole list; an apiserver without field selectors on CRDs gets the whole list).
   */
  list(filter?: {
    node?: string;
    /** Only those not labelled ended (the tick's read; core/retention.ts). */
    notEnded?: boolean;
  }): Promise<{ requests: StoredRequest[]; problems: StoredProblem[] }>;
  get(id: string): Promise<StoredRequest | undefined>;
  /** Create the object (spec), then write its status; returns it as stored. */
  create(request: MaintenanceRequest): Promise<StoredRequest>;
  /** Create the object only (spec): a person's request, which the control plane accepts later. */
  submit(request: MaintenanceRequest): Promise<string>;
  /** Delete it (gone already is not an error). */
  remove(id: string): Promise<void>;
  /** Delete an ended request's decisions, then the request; how many decisions went. */
  removeWithDecisions(id: string): Promise<number>;
  /** Set its phase label (a merge patch of metadata only; gone is not an error). */
  relabel(id: string, phase: RequestPhase): Promise<string | undefined>;
  /** Replace the status at `resourceVersion`; returns the new resourceVersion. */
  writeStatus(request: MaintenanceRequest, resourceVersion: string): Promise<string>;
  decisions(requestId?: string): Promise<{ decisions: Decision[]; problems: StoredProblem[] }>;
  /** Record a decision; false when this identity already made it (the object exists). */
  decide(decision: Omit<Decision, 'name' | 'at'>): Promise<{ name: string; created: boolean }>;
}

/** Deterministic per request, decision and author: deciding twice makes one object. */
export function decisionName(request: string, decision: DecisionKind, by: string): string {
  const digest = createHash('sha256').update(by).digest('hex').slice(0, 10);
  return `${request}-${decision}-${digest}`;
}

export function requestStore(
  client: KubeClient,
  options: {
    namespace: string;
    slackTeam?: string;
    /**
     * Keep the phase label in step after each status write (the control plane's; ADR 0043). The
     * executor's writes never move it (its ends stay `open` until the control plane reports them)
     * and its RBAC has no patch: without this, a request from before the label is left as it is.
     */
    keepsPhase?: boolean;
  },
): RequestStore {
  const { namespace } = options;
  const team = options.slackTeam ?? 'T0';
  const scope = { group: GROUP, version: VERSION, namespace };

  async function read(id: string): Promise<StoredRequest | undefined> {
    try {
      const object: unknown = await withRetry(
        `get maintenancerequest ${id}`,
        () => client.custom.getNamespacedCustomObject({ ...scope, plural: REQUESTS, name: id }),
        client.retry,
      );
      const decoded = decodeRequest(object);
      if (!decoded.ok) throw unreadable(decoded.name, decoded.problem);
      return decoded.stored;
    } catch (error) {
      if (isKubeError(error, 'not-found')) return undefined;
      throw error;
    }
  }

  async function replaceStatus(
    request: MaintenanceRequest,
    resourceVersion: string,
  ): Promise<string> {
    const body = encodeRequest(request, namespace);
    const written = (await withRetry(
      `write status of maintenancerequest ${request.id}`,
      () =>
        client.custom.replaceNamespacedCustomObjectStatus({
          ...scope,
          plural: REQUESTS,
          name: request.id,
          body: { ...body, metadata: { ...body.metadata, resourceVersion } },
        }),
      client.retry,
    )) as { metadata?: { resourceVersion?: string; labels?: Record<string, string> } };
    // The status subresource ignores metadata: the phase label follows in a write of its own, only
    // when the state moved it (most status writes leave it as it is).
    const phase = phaseOf(request);
    if (options.keepsPhase && written.metadata?.labels?.[LABEL_PHASE] !== phase)
      return (await relabel(request.id, phase)) ?? written.metadata?.resourceVersion ?? '';
    return written.metadata?.resourceVersion ?? '';
  }

  async function relabel(id: string, phase: RequestPhase): Promise<string | undefined> {
    try {
      const patched = (await withRetry(
        `label maintenancerequest ${id} ${phase}`,
        () =>
          client.custom.patchNamespacedCustomObject(
            {
              ...scope,
              plural: REQUESTS,
              name: id,
              body: { metadata: { labels: { [LABEL_PHASE]: phase } } },
            },
            MERGE_PATCH,
          ),
        client.retry,
      )) as { metadata?: { resourceVersion?: string } };
      return patched.metadata?.resourceVersion;
    } catch (error) {
      if (isKubeError(error, 'not-found')) return undefined;
      throw error;
    }
  }

  async function deleteObject(plural: string, name: string): Promise<void> {
    try {
      await withRetry(
        `delete ${plural} ${name}`,
        () => client.custom.deleteNamespacedCustomObject({ ...scope, plural, name }),
        client.retry,
      );
    } catch (error) {
      if (!isKubeError(error, 'not-found')) throw error;
    }
  }

  async function createObject(request: MaintenanceRequest): Promise<string> {
    const body = encodeRequest(request, namespace);
    const created = (await withRetry(
      `create maintenancerequest ${request.id}`,
      () => client.custom.createNamespacedCustomObject({ ...scope, plural: REQUESTS, body }),
      client.retry,
    )) as { metadata?: { resourceVersion?: string } };
    return created.metadata?.resourceVersion ?? '';
  }

  /** Every object of one of kubemaint's kinds in the namespace (paginated), as the API sent it. */
  const listKind = (
    plural: string,
    selectors: { labelSelector?: string; fieldSelector?: string } = {},
  ): Promise<unknown[]> =>
    listAll(
      `list ${plural} in ${namespace}`,
      async (cont, limit) => {
        const list: unknown = await client.custom.listNamespacedCustomObject({
          ...scope,
          plural,
          limit,
          ...selectors,
          ...(cont === undefined ? {} : { _continue: cont }),
        });
        return customObjectsPage(list);
      },
      client.retry,
    );

  /** One node's request objects; the whole list where the apiserver cannot select on spec.node. */
  async function objectsOf(node: string, labelSelector?: string): Promise<unknown[]> {
    const labels = labelSelector === undefined ? {} : { labelSelector };
    try {
      return await listKind(REQUESTS, { fieldSelector: `spec.node=${node}`, ...labels });
    } catch (error) {
      // Before Kubernetes 1.31 (or a CRD installed without selectableFields): 400, field label
      // not supported. Correct, only slower: the whole list.
      if (isKubeError(error, 'invalid')) return listKind(REQUESTS, labels);
      throw error;
    }
  }

  return {
    submit: createObject,
    remove: (id) => deleteObject(REQUESTS, id),
    async removeWithDecisions(id) {
      // Decisions first: a request left without its decisions is still a whole record of what
      // happened; decisions left without their request would never be swept.
      const decisions = await listKind(DECISIONS, { labelSelector: `${LABEL_DECIDES}=${id}` });
      const names = decisions.flatMap((d) => {
        const decoded = decodeDecision(d);
        // The label narrows the list; the spec says whose decision it is.
        return 'problem' in decoded || decoded.request !== id ? [] : [decoded.name];
      });
      for (const name of names) await deleteObject(DECISIONS, name);
      await deleteObject(REQUESTS, id);
      return names.length;
    },
    relabel,
    async list(filter = {}) {
      const labelSelector = filter.notEnded ? NOT_ENDED : undefined;
      const objects = await (filter.node === undefined
        ? listKind(REQUESTS, labelSelector === undefined ? {} : { labelSelector })
        : objectsOf(filter.node, labelSelector));
      const requests: StoredRequest[] = [];
      const problems: StoredProblem[] = [];
      for (const object of objects) {
        const decoded = decodeRequest(object);
        if (decoded.ok) requests.push(decoded.stored);
        else problems.push({ name: decoded.name, problem: decoded.problem });
      }
      return { requests, problems };
    },
    get: read,
    async create(request) {
      // The status subresource drops .status on create: write it as a second, conditional step,
      // recording the version the object was created at (the order of two racing proposals).
      const createdVersion = await createObject(request);
      const stored = { ...request, createdVersion };
      const resourceVersion = await replaceStatus(stored, createdVersion);
      return { request: stored, resourceVersion, accepted: true };
    },
    writeStatus: replaceStatus,
    async decisions(requestId) {
      const objects = await listKind(
        DECISIONS,
        requestId === undefined ? {} : { labelSelector: `${LABEL_DECIDES}=${requestId}` },
      );
      const decisions: Decision[] = [];
      const problems: StoredProblem[] = [];
      for (const object of objects) {
        const decoded = decodeDecision(object);
        if ('problem' in decoded) problems.push(decoded);
        // The label narrows the list; the spec is what counts (labels are not bound to the author).
        else if (requestId === undefined || decoded.request === requestId) decisions.push(decoded);
      }
      decisions.sort((a, b) => a.at.localeCompare(b.at) || a.name.localeCompare(b.name));
      return { decisions, problems };
    },
    async decide(decision) {
      const name = decisionName(decision.request, decision.decision, decision.by);
      const body = encodeDecision({ ...decision, name }, namespace, team);
      try {
        await withRetry(
          `record ${decision.decision} of ${decision.request}`,
          () => client.custom.createNamespacedCustomObject({ ...scope, plural: DECISIONS, body }),
          client.retry,
        );
        return { name, created: true };
      } catch (error) {
        if (isKubeError(error, 'already-exists')) return { name, created: false };
        throw error;
      }
    },
  };
}

function unreadable(name: string, problem: string): Error {
  return new Error(
    `MaintenanceRequest ${name} is not one kubemaint can read (${problem}); delete it with kubectl -n <namespace> delete mr ${name}`,
  );
}
