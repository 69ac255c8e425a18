/**
 * coordination.k8s.io/v1 Leases, the slots. Leases forbid unconditional updates, so every replace
 * carries the resourceVersion it read; MicroTime fields go out with six fractional digits
 * (V1MicroTime), which kube-apiserver insists on, and come back as strings.
 */
import { V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { LeaseInfo, LeaseRecord, LeasesPort } from '../../app/ports.js';
import type { KubeClient } from './client.js';
import { isKubeError, KubeError } from './errors.js';
import { undefinedOn, withRetry } from './retry.js';

const asDate = (value: Date | string | undefined): Date | undefined =>
  value === undefined || value === null ? undefined : new Date(value);

export function toLeaseInfo(lease: V1Lease): LeaseInfo {
  const spec = lease.spec;
  const acquiredAt = asDate(spec?.acquireTime);
  const renewedAt = asDate(spec?.renewTime);
  const annotations = lease.metadata?.annotations;
  return {
    name: lease.metadata?.name ?? '',
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    holder: spec?.holderIdentity ?? '',
    durationSeconds: spec?.leaseDurationSeconds ?? 0,
    ...(acquiredAt ? { acquiredAt } : {}),
    ...(renewedAt ? { renewedAt } : {}),
    transitions: spec?.leaseTransitions ?? 0,
    ...(annotations ? { annotations } : {}),
  };
}

function toLease(namespace: string, name: string, record: LeaseRecord, rv?: string): V1Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace,
      ...(rv === undefined ? {} : { resourceVersion: rv }),
      ...(record.annotations ? { annotations: record.annotations } : {}),
    },
    spec: {
      holderIdentity: record.holder,
      // The API refuses a duration of 0; a Lease without one is how "never expires" is written.
      ...(record.durationSeconds > 0
        ? { leaseDurationSeconds: Math.max(1, Math.round(record.durationSeconds)) }
        : {}),
      acquireTime: new V1MicroTime(record.acquiredAt.getTime()),
      renewTime: new V1MicroTime(record.renewedAt.getTime()),
      leaseTransitions: record.transitions,
    },
  };
}

export async function getLease(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<LeaseInfo | undefined> {
  const lease = await undefinedOn(
    ['not-found'],
    `get lease ${namespace}/${name}`,
    () => client.coordination.readNamespacedLease({ name, namespace }),
    client.retry,
  );
  return lease && toLeaseInfo(lease);
}

export async function createLease(
  client: KubeClient,
  namespace: string,
  name: string,
  record: LeaseRecord,
): Promise<LeaseInfo> {
  try {
    const lease = await withRetry(
      `create lease ${namespace}/${name}`,
      () =>
        client.coordination.createNamespacedLease({
          namespace,
          body: toLease(namespace, name, record),
        }),
      client.retry,
    );
    return toLeaseInfo(lease);
  } catch (error) {
    // Someone created it between our read and our write: the same race a stale RV is.
    if (isKubeError(error, 'already-exists')) {
      throw new KubeError('conflict', error.message, {
        status: 409,
        reason: 'AlreadyExists',
        cause: error,
      });
    }
    throw error;
  }
}

export async function replaceLease(
  client: KubeClient,
  namespace: string,
  name: string,
  resourceVersion: string,
  record: LeaseRecord,
): Promise<LeaseInfo> {
  const lease = await withRetry(
    `replace lease ${namespace}/${name}`,
    () =>
      client.coordination.replaceNamespacedLease({
        name,
        namespace,
        body: toLease(namespace, name, record, resourceVersion),
      }),
    client.retry,
  );
  return toLeaseInfo(lease);
}

export function kubeLeasesPort(client: KubeClient): LeasesPort {
  return {
    getLease: (namespace, name) => getLease(client, namespace, name),
    createLease: (namespace, name, record) => createLease(client, namespace, name, record),
    replaceLease: (namespace, name, rv, record) =>
      replaceLease(client, namespace, name, rv, record),
  };
}
