/**
 * Creating a request's executor Job, with the labels people asked to see on the node first
 * (`nodeLabels.before`, kured's pre-reboot labels), and telling people the drain starts. Dispatch
 * does it at once; with a `beforeDrain` hook, the hook's end does it (hook-steps.ts).
 */
import { jobName } from '../../core/names.js';
import type { MaintenanceRequest } from '../../core/request.js';
import type { ReconcileDeps } from './deps.js';
import { tell } from './persist.js';
import type { NodeView } from './ports.js';

/** Throws what the apiserver said when the Job is refused (the caller fails the request). */
export async function startExecutor(
  deps: ReconcileDeps,
  node: Pick<NodeView, 'name'>,
  request: MaintenanceRequest,
): Promise<void> {
  const { settings, cluster } = deps;
  const before = settings.nodeLabels?.before ?? {};
  if (Object.keys(before).length > 0) await cluster.patchNode(node.name, { labels: before });
  await cluster.createJob(settings.jobFor(node.name, request.id, request.action));
  // Told once the Job exists, not between the two writes: a Slack post there would widen the
  // window in which the request is running without a Job (see JOB_CREATE_GRACE_MS).
  await tell(deps, request, {
    kind: 'draining',
    reason: 'KubemaintStarted',
    message: `executor Job ${jobName(node.name, request.id)} created`,
  });
}
