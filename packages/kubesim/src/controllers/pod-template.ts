/**
 * Pods stamped from a workload's template, owned by it (`ownerReferences` with `controller: true`), the
 * way ReplicaSet, DaemonSet, StatefulSet and Job controllers make them. Also the template hash the
 * Deployment controller names its ReplicaSets by.
 */
import { createHash } from 'node:crypto';
import type { KObject } from '../types.js';
import { randomSuffix } from './shapes.js';

export interface Template {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

export const templateOf = (owner: KObject): Template => (owner.spec ?? {})['template'] ?? {};

export function ownerReference(
  owner: KObject,
): NonNullable<KObject['metadata']['ownerReferences']>[number] {
  return {
    apiVersion: owner.apiVersion ?? 'v1',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function podFromTemplate(
  owner: KObject,
  options: {
    name?: string;
    labels?: Record<string, string>;
    spec?: Record<string, unknown>;
  } = {},
): KObject {
  const template = templateOf(owner);
  const prefix = `${owner.metadata.name ?? 'pod'}-`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: options.name ?? `${prefix}${randomSuffix()}`,
      ...(options.name ? {} : { generateName: prefix }),
      namespace: owner.metadata.namespace,
      labels: { ...template.metadata?.labels, ...options.labels },
      ...(template.metadata?.annotations
        ? { annotations: { ...template.metadata.annotations } }
        : {}),
      ownerReferences: [ownerReference(owner)],
    },
    spec: structuredClone({ ...template.spec, ...options.spec }),
  };
}

/** The `pod-template-hash` label: a short stable hash of the pod template. */
export function templateHash(template: Template): string {
  const digest = createHash('sha256').update(stableJson(template)).digest('hex');
  // Like the apiserver's SafeEncodeString: only consonants and digits, so it never spells words.
  return [...digest.slice(0, 10)]
    .map((c) => 'bcdfghjklmnpqrstvwxz2456789'[parseInt(c, 16)])
    .join('');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
