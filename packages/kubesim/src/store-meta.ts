/**
 * Object metadata rules of the generic registry: name and label validation, `generateName`
 * suffixes, timestamps at the apiserver's precision, and the structural helpers (copy, equality,
 * "did the spec change") the store uses to decide on generation bumps and no-op writes.
 */
import { randomInt } from 'node:crypto';
import type { KObject } from './types.js';
import type { StatusCause } from './status-errors.js';

/**
 * Deep copy with JSON semantics (drops `undefined`, honours `toJSON` such as Date's), written out
 * by hand because it is ~10× faster than a JSON round trip and the store copies on every call.
 */
export function clone<T>(value: T): T {
  return copyJson(value) as T;
}

function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : copyJson(v)));
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return copyJson(withJson.toJSON());
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined && typeof v !== 'function') out[key] = copyJson(v);
  }
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao).filter((k) => ao[k] !== undefined);
  if (keys.length !== Object.keys(bo).filter((k) => bo[k] !== undefined).length) return false;
  return keys.every((k) => deepEqual(ao[k], bo[k]));
}

/** Empty labels/annotations are not kept (Go's `omitempty` drops an empty map on the way out). */
export function dropEmptyMaps(meta: Record<string, unknown>): void {
  for (const key of ['labels', 'annotations']) {
    const value = meta[key];
    if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) {
      delete meta[key];
    }
  }
}

/** Everything but metadata/status/type info: what a `generation` bump tracks. */
export function specChanged(before: KObject, after: KObject): boolean {
  const strip = (o: KObject) => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !deepEqual(strip(before), strip(after));
}

/** RFC 3339 with seconds precision, as `metav1.Time` serializes. */
export const formatTime = (at: Date): string => flat(at.toISOString().replace(/\.\d{3}Z$/, 'Z'));

/**
 * The string, flattened: V8 keeps a string made by joining others (a template, `+`, replace(),
 * randomUUID's hex groups) as a rope of 32-byte joins over its parts, and a stored object keeps the
 * rope for as long as it lives. Turning it into a number reads every character, which flattens it
 * in place; the collector then drops the joins (flatstr's way, as pino uses it). A uid is 9 joins
 * and 5 parts as a rope, ~400 bytes, and 56 flat: flattening a stored object's uid, timestamps,
 * keys and container ids took a fifth off a seeded fleet's heap (BENCHMARKS.md, "Embedded sim at
 * scale").
 */
export function flat(text: string): string {
  void Number(text);
  return text;
}

// k8s.io/apiserver/pkg/storage/names: 5 characters from an alphabet without vowels or look-alikes.
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function generateName(prefix: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return `${prefix.slice(0, 58)}${suffix}`;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function validateName(name: string, dnsLabel: boolean): StatusCause[] {
  const ok = dnsLabel
    ? DNS_LABEL.test(name) && name.length <= 63
    : DNS_SUBDOMAIN.test(name) && name.length <= 253;
  if (ok) return [];
  const rule = dnsLabel
    ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (at most 63 characters)"
    : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (at most 253 characters)";
  return [
    {
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(name)}: ${rule}`,
    },
  ];
}

export function validateLabels(labels: unknown): StatusCause[] {
  if (labels === undefined || labels === null) return [];
  if (typeof labels !== 'object' || Array.isArray(labels)) {
    return [{ reason: 'FieldValueInvalid', field: 'metadata.labels', message: 'must be a map' }];
  }
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
    if (!LABEL_KEY.test(key) || key.split('/').pop()!.length > 63) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: `Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      });
    }
    if (typeof value !== 'string' || !LABEL_VALUE.test(value) || value.length > 63) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.labels',
        message: `Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63 characters)`,
      });
    }
  }
  return causes;
}
