/**
 * A node name or request id as a label value. Label values hold at most 63 characters, node names
 * up to 253 (a DNS subdomain): a longer or otherwise invalid one becomes its first 50 characters,
 * `-` and 12 hex of its sha256, so the apiserver accepts the Job (a raw long name is a 422) and every
 * reader finds the same value. Whatever sets or selects a label carrying such a name goes through
 * this; the full name travels in ANN_NODE. Here beside the Job builders rather than in src/core:
 * the digest is node:crypto's (ADR 0039), which the pure core may not import.
 */
import { createHash } from 'node:crypto';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function labelValue(name: string): string {
  if (name.length <= 63 && LABEL_VALUE.test(name)) return name;
  const head = name
    .slice(0, 50)
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  const digest = createHash('sha256').update(name, 'utf8').digest('hex');
  return `${head}${head ? '-' : ''}${digest.slice(0, 12)}`;
}
