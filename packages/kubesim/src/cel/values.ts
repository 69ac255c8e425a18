/**
 * Plain JSON (what the store holds) to CEL values and back. Kubernetes reads JSON integers as CEL
 * `int` (int64): the OpenAPI schemas of built-in kinds and CRDs type them `integer`, so
 * `object.spec.replicas * 2` and `size(x) == 2` work. A JS number with a fraction stays a `double`.
 * Objects become CEL maps (field access `o.f` and `has(o.f)` on a map are key lookups, as on
 * kube-apiserver's unstructured values), arrays CEL lists.
 */
import {
  celList,
  celMap,
  isCelList,
  isCelMap,
  isCelUint,
  type CelInput,
  type CelValue,
} from '@bufbuild/cel';

/** A JSON value as the evaluator takes it. */
export function toCel(value: unknown): CelInput {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint')
    return value;
  if (Array.isArray(value)) return celList(value.map(toCel));
  if (isCelMap(value) || isCelList(value)) return value;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, toCel(v)] as const);
    return celMap(new Map(entries));
  }
  throw new TypeError(`a ${typeof value} has no CEL value`);
}

/** A CEL result as JSON: int/uint become numbers (strings beyond 2^53), bytes base64, types their names. */
export function fromCel(value: CelValue): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return toNumber(value);
  if (isCelUint(value)) return toNumber(value.value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (isCelList(value)) return [...value].map(fromCel);
  if (isCelMap(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) out[String(isCelUint(k) ? k.value : k)] = fromCel(v);
    return out;
  }
  // A CEL type (`type(x)`) or a protobuf message: neither comes out of JSON input.
  throw new TypeError('a CEL type or message value has no JSON form');
}

const toNumber = (n: bigint): number | string =>
  n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(n)
    : String(n);
