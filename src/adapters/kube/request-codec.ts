/**
 * The one codec between the core's MaintenanceRequest and the MaintenanceRequest object (ADR 0012):
 * spec is what was asked (immutable), status what kubemaint derived. Objects are read back through a
 * schema, because anyone with RBAC on the kind may have written one: a malformed object becomes a
 * problem that names the field and the fix, never a crash and never a half-read request.
 */
import { z } from 'zod';
import { ANN_NODE, LABEL_NODE } from '../../core/names.js';
import { labelValue } from '../../../templates/label-value.js';
import {
  ACTIVE_STATES,
  DECISION_KINDS,
  FINAL_STATES,
  type Decision,
  type MaintenanceRequest,
} from '../../core/request.js';
import { coreIdentity, isKubernetesIdentity, recordedIdentity } from '../../core/identity.js';
import { REQUEST_PHASES, phaseOf, type RequestPhase } from '../../core/retention.js';

export const GROUP = 'kubemaint.io';
/** The version kubemaint reads and writes: the storage version (ADR 0051; v1alpha1 is deprecated). */
export const VERSION = 'v1beta1';
export const REQUESTS = 'maintenancerequests';
export const DECISIONS = 'maintenanceapprovals';
export const LABEL_ACTION = `${GROUP}/action`;
export const LABEL_DECIDES = `${GROUP}/request`;
/** open, quiet or ended (core/retention.ts): the tick lists `phase!=ended` only. */
export const LABEL_PHASE = `${GROUP}/phase`;
/** What the tick lists: everything not ended, objects from before the label included. */
export const NOT_ENDED = `${LABEL_PHASE}!=ended`;

const text = z.string();
const state = z.enum([...ACTIVE_STATES, ...FINAL_STATES]);

const Spec = z.object({
  node: text.min(1),
  action: z.enum(['reboot', 'upgrade']),
  targetVersion: text.optional(),
  reason: text.default(''),
  requestedBy: text.min(1),
  origin: z.enum(['detection', 'person']).optional(),
  requestedByGroups: z.array(text).optional(),
  campaign: text.optional(),
  pool: text.optional(),
});

const Status = z
  .object({
    state,
    createdAt: text.optional(),
    updatedAt: text.optional(),
    approvals: z.array(z.object({ by: text, at: text, record: text.optional() })).default([]),
    history: z.array(z.record(z.string(), z.unknown())).default([]),
    silences: z
      .object({
        ids: z.array(text),
        startsAt: text,
        endsAt: text,
        warning: text.optional(),
      })
      .optional(),
  })
  .passthrough();

const RequestObject = z.object({
  metadata: z.object({
    name: text,
    resourceVersion: text.optional(),
    creationTimestamp: z.union([text, z.date()]).optional(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: Spec,
  status: Status.optional(),
});

const DecisionObject = z.object({
  metadata: z.object({ name: text, creationTimestamp: z.union([text, z.date()]).optional() }),
  spec: z.object({
    request: text.min(1),
    approver: text.min(1),
    decision: z.enum(DECISION_KINDS),
    groups: z.array(text).default([]),
    reason: text.optional(),
  }),
});

/** A request as stored: the core record, its resourceVersion, and whether the control plane took it. */
export interface StoredRequest {
  request: MaintenanceRequest;
  resourceVersion: string;
  /** False for a request a person created that kubemaint has not accepted yet (no status). */
  accepted: boolean;
  /** Its `kubemaint.io/phase` label; undefined on an object written before the label existed. */
  phase?: RequestPhase;
}

export type Decoded =
  { ok: true; stored: StoredRequest } | { ok: false; name: string; problem: string };

const SPEC_KEYS = [
  'node',
  'action',
  'targetVersion',
  'reason',
  'requestedBy',
  'origin',
  'requestedByGroups',
  'campaign',
  'pool',
] as const;

/** The object for a request: spec from what was asked, status from everything else. */
export function encodeRequest(request: MaintenanceRequest, namespace: string) {
  const spec: Record<string, unknown> = {};
  const status: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    if (value === undefined || key === 'id') continue;
    if ((SPEC_KEYS as readonly string[]).includes(key)) spec[key] = value;
    else status[key] = value;
  }
  // Groups are recorded as the apiserver names them, so admission can compare them with the author's.
  if (request.requestedByGroups)
    spec['requestedByGroups'] = request.requestedByGroups.map(rawGroup);
  status['approvedBy'] = approvedBy(request);
  const node = labelValue(request.node);
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'MaintenanceRequest',
    metadata: {
      name: request.id,
      namespace,
      labels: {
        [LABEL_NODE]: node,
        [LABEL_ACTION]: request.action,
        [LABEL_PHASE]: phaseOf(request),
      },
      ...(node === request.node ? {} : { annotations: { [ANN_NODE]: request.node } }),
    },
    spec,
    status,
  };
}

/** The printer column: who approved so far, in a word (`kubectl get mr`). */
function approvedBy(request: MaintenanceRequest): string {
  if (request.approvals.length === 0) return request.state === 'proposed' ? 'none yet' : '-';
  return request.approvals
    .map((a) => a.by)
    .join(', ')
    .slice(0, 1024);
}

export function decodeRequest(object: unknown): Decoded {
  const name = nameOf(object);
  const parsed = RequestObject.safeParse(object);
  if (!parsed.success) return { ok: false, name, problem: describe(parsed.error) };
  const { metadata, spec, status } = parsed.data;
  const created = stamp(metadata.creationTimestamp);
  const label = metadata.labels?.[LABEL_PHASE];
  const phase = (REQUEST_PHASES as readonly string[]).includes(label ?? '')
    ? { phase: label as RequestPhase }
    : {};
  const base = {
    id: metadata.name,
    ...definedOnly(spec),
    ...(spec.requestedByGroups
      ? { requestedByGroups: spec.requestedByGroups.map((g) => coreGroup(spec.requestedBy, g)) }
      : {}),
  } as MaintenanceRequest;
  if (!status) {
    // A person's request kubemaint has not accepted yet: it is a proposal only once the control
    // plane checked who asked (issue 15: a propose permission) and wrote its status.
    const request: MaintenanceRequest = {
      ...base,
      state: 'proposed',
      createdAt: created,
      updatedAt: created,
      // Nothing but its creation wrote it yet: its resourceVersion is the one it was created at.
      ...(metadata.resourceVersion ? { createdVersion: metadata.resourceVersion } : {}),
      approvals: [],
      history: [],
    };
    return {
      ok: true,
      stored: {
        request,
        resourceVersion: metadata.resourceVersion ?? '',
        accepted: false,
        ...phase,
      },
    };
  }
  const { approvedBy: _column, ...rest } = status as Record<string, unknown>;
  const request = {
    ...base,
    ...rest,
    createdAt: status.createdAt ?? created,
    updatedAt: status.updatedAt ?? created,
  };
  return {
    ok: true,
    stored: { request, resourceVersion: metadata.resourceVersion ?? '', accepted: true, ...phase },
  };
}

/** The object recording `decision` (its name is deterministic: one identity decides once). */
export function encodeDecision(
  decision: Omit<Decision, 'at'>,
  namespace: string,
  slackTeam: string,
) {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'MaintenanceApproval',
    metadata: { name: decision.name, namespace, labels: { [LABEL_DECIDES]: decision.request } },
    spec: {
      request: decision.request,
      approver: recordedIdentity(decision.by, decision.team ?? slackTeam),
      decision: decision.decision,
      ...(decision.groups.length ? { groups: decision.groups.map(rawGroup) } : {}),
      ...(decision.reason ? { reason: decision.reason } : {}),
    },
  };
}

export function decodeDecision(object: unknown): Decision | { problem: string; name: string } {
  const parsed = DecisionObject.safeParse(object);
  if (!parsed.success) return { name: nameOf(object), problem: describe(parsed.error) };
  const { metadata, spec } = parsed.data;
  const by = coreIdentity(spec.approver);
  return {
    name: metadata.name,
    request: spec.request,
    by,
    decision: spec.decision,
    groups: spec.groups.map((g) => coreGroup(by, g)),
    ...(spec.reason ? { reason: spec.reason } : {}),
    at: stamp(metadata.creationTimestamp),
  };
}

/** `k8s:sre` is recorded as `sre`; Slack groups (`S…`) stay as they are. */
const rawGroup = (group: string): string => (group.startsWith('k8s:') ? group.slice(4) : group);

/** A Kubernetes identity's groups are Kubernetes groups (`k8s:…`); others' stay as recorded. */
const coreGroup = (by: string, group: string): string =>
  isKubernetesIdentity(by) ? `k8s:${group}` : group;

const stamp = (value: string | Date | undefined): string =>
  value === undefined ? new Date(0).toISOString() : new Date(value).toISOString();

function nameOf(object: unknown): string {
  const name = (object as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === 'string' ? name : '(unnamed)';
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(object)'}: ${i.message}`)
    .join('; ');
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
