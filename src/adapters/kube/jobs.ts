/**
 * batch/v1 Jobs: creating the executor Job (AlreadyExists is the deterministic name doing its job, not
 * an error) and reading how it ended. Deletes always cascade (propagationPolicy Background): without
 * it a batch/v1 Job delete orphans its pods.
 */
import type { V1Job } from '@kubernetes/client-node';
import type { KubeClient } from './client.js';
import { undefinedOn } from './retry.js';

export interface JobStatus {
  name: string;
  phase: 'active' | 'succeeded' | 'failed';
  message?: string;
}

export function toJobStatus(job: V1Job): JobStatus {
  const status = job.status;
  const failed = status?.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  const complete = status?.conditions?.find((c) => c.type === 'Complete' && c.status === 'True');
  const name = job.metadata?.name ?? '';
  if (failed)
    return { name, phase: 'failed', message: failed.message ?? failed.reason ?? 'failed' };
  if (complete || (status?.succeeded ?? 0) > 0) return { name, phase: 'succeeded' };
  if ((status?.failed ?? 0) > 0) return { name, phase: 'failed', message: 'pod failed' };
  return { name, phase: 'active' };
}

/** Create the Job; returns false when a Job of that name already exists. */
export async function createJob(client: KubeClient, manifest: V1Job): Promise<boolean> {
  const namespace = manifest.metadata?.namespace ?? 'default';
  const created = await undefinedOn(
    ['already-exists'],
    `create job ${namespace}/${manifest.metadata?.name ?? ''}`,
    async () => {
      await client.batch.createNamespacedJob({ namespace, body: manifest });
      return true;
    },
    client.retry,
  );
  return created ?? false;
}

export async function getJob(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<JobStatus | undefined> {
  const job = await undefinedOn(
    ['not-found'],
    `get job ${namespace}/${name}`,
    () => client.batch.readNamespacedJob({ name, namespace }),
    client.retry,
  );
  return job && toJobStatus(job);
}

export async function deleteJob(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<void> {
  await undefinedOn(
    ['not-found'],
    `delete job ${namespace}/${name}`,
    () =>
      client.batch.deleteNamespacedJob({
        name,
        namespace,
        body: { propagationPolicy: 'Background' },
      }),
    client.retry,
  );
}
