/**
 * The control plane's ClusterPort over the real API: nodes with their request, Jobs with the executor's
 * exit code, slots, pods, dry-run evictions, Events and the pause switch. Built on the same
 * helpers as the executor's ports (typed errors, retries, pagination, merge patches).
 */
import type { V1Node } from '@kubernetes/client-node';
import type { ClusterPort, JobView, NodeView, SlotView } from '../../app/control/ports.js';
import { ANN_REQUEST, LABEL_STATE } from '../../core/names.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { KubeClient } from './client.js';
import { isKubeError } from './errors.js';
import { recordNodeEvent } from './events.js';
import { createJob, getJob } from './jobs.js';
import { replaceLease, toLeaseInfo } from './leases.js';
import { listAll } from './paginate.js';
import { listNodeObjects, patchNode, readNodeObject, toNodeInfo } from './nodes.js';
import { evictPod, listPodsOnNode, toPodInfo } from './pods.js';
import { withRetry } from './retry.js';

const PAUSE_CONFIGMAP = 'kubemaint-pause';

export function toNodeView(node: V1Node): NodeView {
  const info = toNodeInfo(node);
  const conditions = Object.fromEntries(
    (node.status?.conditions ?? []).map((c) => [c.type, c.status]),
  );
  const raw = info.annotations[ANN_REQUEST];
  if (raw === undefined) return { ...info, conditions };
  try {
    return { ...info, conditions, request: JSON.parse(raw) as MaintenanceRequest };
  } catch (error) {
    return { ...info, conditions, requestError: `unreadable ${ANN_REQUEST}: ${String(error)}` };
  }
}

export function controlCluster(
  client: KubeClient,
  options: { namespace: string; now: () => Date },
): ClusterPort {
  const { namespace } = options;
  return {
    listNodes: async (labelSelector) =>
      (await listNodeObjects(client, labelSelector)).map(toNodeView),
    async getNode(name) {
      const node = await readNodeObject(client, name);
      return node && toNodeView(node);
    },
    async writeRequest(node, resourceVersion, request) {
      const written = await patchNode(
        client,
        node,
        {
          metadata: {
            labels: { [LABEL_STATE]: request.state },
            annotations: { [ANN_REQUEST]: JSON.stringify(request) },
          },
        },
        resourceVersion,
      );
      return written.resourceVersion;
    },
    async patchNode(node, patch) {
      const body: Record<string, unknown> = {};
      if (patch.unschedulable !== undefined) body.spec = { unschedulable: patch.unschedulable };
      const metadata: Record<string, unknown> = {};
      if (patch.labels && Object.keys(patch.labels).length) metadata.labels = patch.labels;
      if (patch.annotations && Object.keys(patch.annotations).length)
        metadata.annotations = patch.annotations;
      if (Object.keys(metadata).length) body.metadata = metadata;
      if (Object.keys(body).length) await patchNode(client, node, body);
    },
    async apiserverVersions() {
      const info = await withRetry('get /version', () => client.version.getCode(), client.retry);
      return [info.gitVersion];
    },
    async getJob(name): Promise<JobView | undefined> {
      const job = await getJob(client, namespace, name);
      if (!job || job.phase !== 'failed') return job;
      const exitCode = await executorExitCode(client, namespace, name);
      return { ...job, ...(exitCode === undefined ? {} : { exitCode }) };
    },
    createJob: (manifest) => createJob(client, manifest),
    async listSlots(): Promise<SlotView[]> {
      const leases = await withRetry(
        `list leases in ${namespace}`,
        () => client.coordination.listNamespacedLease({ namespace }),
        client.retry,
      );
      return leases.items
        .map(toLeaseInfo)
        .filter((l) => l.name.startsWith('kubemaint-slot-'))
        .map((l) => ({
          name: l.name,
          holder: l.holder,
          ...(l.renewedAt ? { renewedAt: l.renewedAt } : {}),
          durationSeconds: l.durationSeconds,
        }))
        .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    },
    async releaseSlot(name, holder) {
      const lease = await withRetry(
        `get lease ${namespace}/${name}`,
        () => client.coordination.readNamespacedLease({ name, namespace }),
        client.retry,
      ).catch((error: unknown) => {
        if (isKubeError(error, 'not-found')) return undefined;
        throw error;
      });
      if (!lease) return false;
      const info = toLeaseInfo(lease);
      if (info.holder !== holder) return false;
      const now = options.now();
      try {
        await replaceLease(client, namespace, name, info.resourceVersion, {
          holder: '',
          durationSeconds: info.durationSeconds || 1,
          acquiredAt: info.acquiredAt ?? now,
          renewedAt: now,
          transitions: info.transitions,
        });
        return true;
      } catch (error) {
        if (isKubeError(error, 'conflict')) return false;
        throw error;
      }
    },
    async listPods({ node, labelSelector }) {
      if (node) return listPodsOnNode(client, node, labelSelector);
      const pods = await listAll(
        'list pods',
        (cont, limit) =>
          client.core.listPodForAllNamespaces({
            limit,
            ...(cont === undefined ? {} : { _continue: cont }),
            ...(labelSelector ? { labelSelector } : {}),
          }),
        client.retry,
      );
      return pods.map(toPodInfo);
    },
    async dryRunEvict(podNamespace, name) {
      const result = await evictPod(
        client,
        { namespace: podNamespace, name, uid: '' },
        { dryRun: true },
      );
      return result.outcome === 'refused' || result.outcome === 'failed'
        ? result.message
        : undefined;
    },
    async recordEvent(node, event) {
      const found = await readNodeObject(client, node).catch(() => undefined);
      await recordNodeEvent(
        client,
        { name: node, uid: found?.metadata?.uid ?? '' },
        { reason: event.reason, message: event.message, type: event.type ?? 'Normal' },
        options.now(),
      );
    },
    async readPause() {
      try {
        const cm = await withRetry(
          'read pause state',
          () => client.core.readNamespacedConfigMap({ name: PAUSE_CONFIGMAP, namespace }),
          client.retry,
        );
        const data = cm.data ?? {};
        return {
          paused: data.paused === 'true',
          ...(data.reason ? { reason: data.reason } : {}),
          ...(data.by ? { by: data.by } : {}),
          ...(data.at ? { at: data.at } : {}),
        };
      } catch (error) {
        if (isKubeError(error, 'not-found')) return { paused: false };
        throw error;
      }
    },
    async writePause(state) {
      const data: Record<string, string> = { paused: String(state.paused) };
      if (state.reason) data.reason = state.reason;
      if (state.by) data.by = state.by;
      if (state.at) data.at = state.at;
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: PAUSE_CONFIGMAP, namespace },
        data,
      };
      try {
        await withRetry(
          'write pause state',
          () => client.core.replaceNamespacedConfigMap({ name: PAUSE_CONFIGMAP, namespace, body }),
          client.retry,
        );
      } catch (error) {
        if (!isKubeError(error, 'not-found')) throw error;
        await withRetry(
          'create pause state',
          () => client.core.createNamespacedConfigMap({ namespace, body }),
          client.retry,
        );
      }
    },
  };
}

/** The executor container's exit code, read from the Job's pod: it says why the Job failed. */
async function executorExitCode(
  client: KubeClient,
  namespace: string,
  job: string,
): Promise<number | undefined> {
  const pods = await withRetry(
    `list pods of job ${job}`,
    () => client.core.listNamespacedPod({ namespace, labelSelector: `job-name=${job}` }),
    client.retry,
  );
  for (const pod of pods.items) {
    const code = pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
    if (code !== undefined) return code;
  }
  return undefined;
}
