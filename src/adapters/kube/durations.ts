/**
 * The book of observed maintenance durations (core/durations.ts) in one ConfigMap of the kubemaint
 * namespace, `kubemaint-durations` (ADR 0017): the cluster is the only store, so a restarted serve
 * or another Lambda instance reads what the last one learned. Only the control plane writes it
 * (RBAC names it; admission-requests.yaml refuses other names). What it holds is read through a
 * schema: an object anyone edited into nonsense reads as an empty book (the config's
 * expectedDuration again), never as a crash.
 */
import { z } from 'zod';
import type { DurationsPort } from '../../app/control/durations.js';
import type { DurationBook } from '../../core/durations.js';
import { addSample } from '../../core/durations.js';
import type { KubeClient } from './client.js';
import { ownedConfigMap } from './configmap-store.js';

export const DURATIONS_CONFIGMAP = 'kubemaint-durations';
const KEY = 'durations.json';

const Book = z.record(
  z.string().max(300),
  z.array(z.object({ ms: z.number().nonnegative(), at: z.string(), node: z.string() }).strip()),
);

/** The ConfigMap's data as a book; nonsense reads as an empty one. */
export function decodeDurationBook(data: Record<string, string> | undefined): DurationBook {
  return decode(data?.[KEY]);
}

function decode(text: string | undefined): DurationBook {
  if (text === undefined) return {};
  try {
    const parsed = Book.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export function configMapDurations(client: KubeClient, namespace: string): DurationsPort {
  const configMap = ownedConfigMap(client, namespace, DURATIONS_CONFIGMAP, {
    'app.kubernetes.io/managed-by': 'kubemaint',
  });
  return {
    read: async () => decode((await configMap.read())?.[KEY]),
    // Read, add, write back conditionally: two serves recording at once retry on the 409 instead
    // of one losing the other's sample.
    record: (key, sample, keep) =>
      configMap.update((data) => ({
        [KEY]: JSON.stringify(addSample(decode(data?.[KEY]), key, sample, keep)),
      })),
  };
}
