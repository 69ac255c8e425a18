/**
 * Between a Kubernetes protobuf message and the JSON kube-apiserver would write for the same Go value.
 * Field names and presence come from the Go types (fields.gen.ts), not from protobuf's JSON mapping:
 * Go's marshallers write every non-pointer field, even empty, so a field on the wire is in the JSON
 * only when it is a pointer (sent only when set), not `omitempty`, or not empty. An embedded Go struct
 * (`json:",inline"`, e.g. a Volume's VolumeSource) is its own message on the wire and part of its
 * parent in JSON. Messages with JSON of their own (times, quantities, int-or-string, embedded JSON)
 * go through special-types.ts.
 */
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { MESSAGE_FIELDS } from './fields.gen.js';
import { specialType } from './special-types.js';

type Json = Record<string, unknown>;

interface FieldInfo {
  json: string;
  /** 'p' pointer, 'o' omitempty, '' always written. */
  flags: string;
}

function infoOf(desc: DescMessage, f: DescField): FieldInfo {
  const known = MESSAGE_FIELDS[desc.typeName]?.[f.number];
  return known ? { json: known[0], flags: known[1] } : { json: f.name, flags: 'o' };
}

const byJsonName = new Map<string, Map<string, DescField>>();
function fieldsByJsonName(desc: DescMessage): Map<string, DescField> {
  let map = byJsonName.get(desc.typeName);
  if (!map) {
    map = new Map(
      desc.fields
        .map((f): [string, DescField] => [infoOf(desc, f).json, f])
        .filter(([json]) => json !== ''),
    );
    byJsonName.set(desc.typeName, map);
  }
  return map;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function scalarToJson(type: ScalarType, value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (type === ScalarType.BYTES) return base64(value as Uint8Array);
  return value;
}

function scalarFromJson(type: ScalarType, value: unknown): unknown {
  switch (type) {
    case ScalarType.STRING:
      return typeof value === 'string' ? value : JSON.stringify(value);
    case ScalarType.BOOL:
      return value === true || value === 'true';
    case ScalarType.BYTES:
      return new Uint8Array(Buffer.from(String(value), 'base64'));
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return BigInt(Math.trunc(Number(value)));
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return Number(value);
    case ScalarType.INT32:
    case ScalarType.UINT32:
    case ScalarType.SINT32:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return Math.trunc(Number(value));
  }
}

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === '' ||
  v === 0 ||
  v === false ||
  (Array.isArray(v) && v.length === 0) ||
  (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);

/** The JSON of a message, as kube-apiserver's JSON serializer would write the decoded Go value. */
export function messageToJson(m: ReflectMessage): unknown {
  const special = specialType(m.desc);
  if (special) return special.toJson(m, messageToJson);
  const out: Json = {};
  for (const f of m.fields) {
    if (!m.isSet(f)) continue;
    const { json, flags } = infoOf(m.desc, f);
    if (json === '-') continue;
    const value = fieldToJson(f, m.get(f));
    if (value === undefined) continue;
    if (json === '') {
      Object.assign(out, value);
      continue;
    }
    // Structs are always written by encoding/json (omitempty does not apply to them).
    if (flags === 'o' && f.fieldKind !== 'message' && isEmpty(value)) continue;
    out[json] = value;
  }
  return out;
}

function fieldToJson(f: DescField, value: unknown): unknown {
  switch (f.fieldKind) {
    case 'scalar':
      return scalarToJson(f.scalar, value);
    case 'enum':
      return value;
    case 'message':
      return messageToJson(value as ReflectMessage);
    case 'list':
      return [...(value as Iterable<unknown>)].map((item) =>
        f.listKind === 'message'
          ? messageToJson(item as ReflectMessage)
          : f.listKind === 'scalar'
            ? scalarToJson(f.scalar, item)
            : item,
      );
    case 'map': {
      const out: Json = {};
      for (const [k, v] of value as ReadonlyMap<unknown, unknown>) {
        out[String(k)] =
          f.mapKind === 'message'
            ? messageToJson(v as ReflectMessage)
            : f.mapKind === 'scalar'
              ? scalarToJson(f.scalar, v)
              : v;
      }
      return out;
    }
  }
}

/** A message of `desc` from kube-apiserver JSON; fields the message does not have are ignored. */
export function messageFromJson(desc: DescMessage, json: unknown): ReflectMessage {
  const m = reflect(desc);
  const special = specialType(desc);
  if (special) {
    special.fromJson(m, json, messageFromJson);
    return m;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return m;
  for (const f of desc.fields) {
    if (f.fieldKind === 'message' && infoOf(desc, f).json === '')
      m.set(f, messageFromJson(f.message, json));
  }
  const fields = fieldsByJsonName(desc);
  for (const [key, value] of Object.entries(json as Json)) {
    const f = fields.get(key);
    if (!f || value === null || value === undefined) continue;
    setFromJson(m, f, value);
  }
  return m;
}

function setFromJson(m: ReflectMessage, f: DescField, value: unknown): void {
  switch (f.fieldKind) {
    case 'scalar':
      return m.set(f, scalarFromJson(f.scalar, value));
    case 'enum':
      return m.set(f, value);
    case 'message':
      return m.set(f, messageFromJson(f.message, value));
    case 'list': {
      if (!Array.isArray(value)) return;
      const list = m.get(f);
      for (const item of value as unknown[]) {
        if (item === null) continue;
        list.add(
          f.listKind === 'message'
            ? messageFromJson(f.message, item)
            : f.listKind === 'scalar'
              ? scalarFromJson(f.scalar, item)
              : item,
        );
      }
      return;
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return;
      const map = m.get(f);
      for (const [k, v] of Object.entries(value as Json)) {
        if (v === null) continue;
        map.set(
          k,
          f.mapKind === 'message'
            ? messageFromJson(f.message, v)
            : f.mapKind === 'scalar'
              ? scalarFromJson(f.scalar, v)
              : v,
        );
      }
    }
  }
}
