/**
 * The messages whose JSON is not their fields: Kubernetes gives these Go types their own JSON
 * marshalling (times as RFC 3339 strings, quantities and durations as strings, int-or-string as
 * either, embedded JSON as itself, authorization's ExtraValue as an array). Each entry turns the
 * message (by field number) into that JSON and back; json-mapping.ts uses them wherever one occurs.
 */
import { fromBinary, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { ARRAY_MESSAGES } from './fields.gen.js';
import { META, messageOfKind } from './registry.js';
import { hasMagic, unwrap } from './unknown.js';

export interface SpecialType {
  /** The JSON of a message of this type, or undefined to leave the field out. */
  toJson(m: ReflectMessage, nested: (m: ReflectMessage) => unknown): unknown;
  /** Fills `m` from JSON (`nested` converts a JSON value into a message of `desc`). */
  fromJson(m: ReflectMessage, json: unknown, nested: Nested): void;
}

type Nested = (desc: DescMessage, json: unknown) => ReflectMessage;

const field = (m: ReflectMessage, no: number) => {
  const f = m.findNumber(no);
  if (!f) throw new Error(`${m.desc.typeName} has no field ${no}`);
  return f;
};
const get = (m: ReflectMessage, no: number): unknown => {
  const f = field(m, no);
  return m.isSet(f) ? m.get(f) : undefined;
};
const set = (m: ReflectMessage, no: number, value: unknown) => m.set(field(m, no), value);

const text = new TextEncoder();
const utf8 = new TextDecoder();

/** Times are whole seconds in JSON (metav1.Time), microseconds for MicroTime. */
function time(fraction: 0 | 6): SpecialType {
  return {
    toJson(m) {
      const seconds = Number(get(m, 1) ?? 0n);
      const nanos = Number(get(m, 2) ?? 0);
      if (seconds === 0 && nanos === 0) return undefined;
      const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
      if (fraction === 0) return `${iso}Z`;
      return `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
    },
    fromJson(m, json) {
      if (typeof json !== 'string') return;
      const ms = Date.parse(json);
      if (Number.isNaN(ms)) return;
      const micros = /\.(\d{1,9})/.exec(json)?.[1]?.padEnd(9, '0') ?? '0';
      set(m, 1, BigInt(Math.floor(ms / 1000)));
      if (fraction > 0) set(m, 2, Number(micros.slice(0, 6)) * 1000);
    },
  };
}

const UNITS: readonly [string, bigint][] = [
  ['h', 3_600_000_000_000n],
  ['m', 60_000_000_000n],
  ['s', 1_000_000_000n],
  ['ms', 1_000_000n],
  ['us', 1_000n],
  ['µs', 1_000n],
  ['ns', 1n],
];

/** Go's time.Duration.String(): 1h2m3.5s, 1.5ms, 0s. */
export function formatGoDuration(ns: bigint): string {
  const sign = ns < 0n ? '-' : '';
  let rest = ns < 0n ? -ns : ns;
  if (rest === 0n) return '0s';
  const decimal = (value: bigint, unit: bigint) => {
    const whole = value / unit;
    const frac = (value % unit).toString().padStart(unit.toString().length - 1, '0');
    const trimmed = frac.replace(/0+$/, '');
    return trimmed === '' ? `${whole}` : `${whole}.${trimmed}`;
  };
  if (rest < 1_000_000_000n) {
    if (rest < 1_000n) return `${sign}${rest}ns`;
    if (rest < 1_000_000n) return `${sign}${decimal(rest, 1_000n)}µs`;
    return `${sign}${decimal(rest, 1_000_000n)}ms`;
  }
  let out = '';
  const hours = rest / 3_600_000_000_000n;
  rest %= 3_600_000_000_000n;
  const minutes = rest / 60_000_000_000n;
  rest %= 60_000_000_000n;
  if (hours > 0n) out += `${hours}h`;
  if (hours > 0n || minutes > 0n) out += `${minutes}m`;
  return `${sign}${out}${decimal(rest, 1_000_000_000n)}s`;
}

/** Go's time.ParseDuration, for the forms Kubernetes writes. */
export function parseGoDuration(value: string): bigint | undefined {
  const m = /^([+-])?((?:\d+(?:\.\d*)?|\.\d+)(?:h|m|s|ms|us|µs|ns))+$/.exec(value);
  if (!m) return value === '0' ? 0n : undefined;
  let total = 0n;
  for (const [, number = '', unit = ''] of value.matchAll(
    /(\d+(?:\.\d*)?|\.\d+)(ms|us|µs|ns|h|m|s)/g,
  )) {
    const scale = UNITS.find(([u]) => u === unit)?.[1] ?? 1n;
    const [whole = '0', frac = ''] = number.split('.');
    total += BigInt(whole || '0') * scale;
    if (frac !== '') {
      const digits = BigInt(frac);
      total += (digits * scale) / 10n ** BigInt(frac.length);
    }
  }
  return m[1] === '-' ? -total : total;
}

/**
 * A message that holds JSON as bytes (RawExtension, FieldsV1, apiextensions' JSON): that JSON. A
 * RawExtension may hold a protobuf object in its envelope instead (a watch event's object).
 */
const embeddedJson: SpecialType = {
  toJson(m, nested) {
    const raw = get(m, 1) as Uint8Array | undefined;
    if (!raw || raw.length === 0) return undefined;
    if (hasMagic(raw)) {
      const { type, raw: inner } = unwrap(raw);
      const desc = messageOfKind(type.apiVersion, type.kind);
      if (!desc) return undefined;
      return { ...type, ...(nested(reflect(desc, fromBinary(desc, inner))) as object) };
    }
    const source = utf8.decode(raw);
    try {
      return JSON.parse(source) as unknown;
    } catch {
      return undefined;
    }
  },
  fromJson(m, json) {
    if (json !== undefined) set(m, 1, text.encode(JSON.stringify(json)));
  },
};

const EXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
/** JSONSchemaPropsOrArray / OrStringArray: the schema, or (when given) the array of field 2. */
function schemaOr(arrayOf: 'schemas' | 'strings'): SpecialType {
  return {
    toJson(m, nested) {
      const list = [...((get(m, 2) as Iterable<unknown> | undefined) ?? [])];
      if (list.length > 0)
        return arrayOf === 'strings' ? list : list.map((s) => nested(s as ReflectMessage));
      const schema = get(m, 1) as ReflectMessage | undefined;
      return schema ? nested(schema) : undefined;
    },
    fromJson(m, json, nested) {
      const f = field(m, 2);
      if (Array.isArray(json)) {
        const list = m.get(f) as { add(v: unknown): void };
        for (const item of json)
          list.add(arrayOf === 'strings' ? String(item) : nested(f.message!, item));
      } else if (json !== null && typeof json === 'object') {
        set(m, 1, nested(field(m, 1).message!, json));
      }
    },
  };
}

export const SPECIAL_TYPES: Readonly<Record<string, SpecialType>> = {
  [`${META}.Time`]: time(0),
  [`${META}.MicroTime`]: time(6),
  [`${META}.Duration`]: {
    toJson: (m) => formatGoDuration((get(m, 1) as bigint | undefined) ?? 0n),
    fromJson(m, json) {
      const ns = typeof json === 'string' ? parseGoDuration(json) : undefined;
      if (ns !== undefined) set(m, 1, ns);
    },
  },
  [`${META}.FieldsV1`]: embeddedJson,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': embeddedJson,
  [`${EXTENSIONS}.JSON`]: embeddedJson,
  'k8s.io.apimachinery.pkg.api.resource.Quantity': {
    toJson: (m) => get(m, 1) ?? '0',
    fromJson(m, json) {
      if (typeof json === 'string' || typeof json === 'number') set(m, 1, String(json));
    },
  },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
    toJson: (m) => (get(m, 1) === 1n ? (get(m, 3) ?? '') : (get(m, 2) ?? 0)),
    fromJson(m, json) {
      if (typeof json === 'number') {
        set(m, 1, 0n);
        set(m, 2, json);
      } else if (typeof json === 'string') {
        set(m, 1, 1n);
        set(m, 3, json);
      }
    },
  },
  [`${EXTENSIONS}.JSONSchemaPropsOrArray`]: schemaOr('schemas'),
  [`${EXTENSIONS}.JSONSchemaPropsOrStringArray`]: schemaOr('strings'),
  [`${EXTENSIONS}.JSONSchemaPropsOrBool`]: {
    toJson(m, nested) {
      const schema = get(m, 2) as ReflectMessage | undefined;
      return schema ? nested(schema) : Boolean(get(m, 1));
    },
    fromJson(m, json, nested) {
      if (typeof json === 'boolean') set(m, 1, json);
      else if (json !== null && typeof json === 'object') {
        set(m, 1, true);
        set(m, 2, nested(field(m, 2).message!, json));
      }
    },
  },
};

/** A named slice (ExtraValue): one repeated field, `items`, that is the whole JSON array. */
const arrayMessage: SpecialType = {
  toJson: (m) => [...((get(m, 1) as Iterable<unknown> | undefined) ?? [])],
  fromJson(m, json) {
    if (!Array.isArray(json)) return;
    const list = m.get(field(m, 1)) as { add(v: unknown): void };
    for (const item of json) list.add(String(item));
  },
};

export function specialType(desc: DescMessage): SpecialType | undefined {
  return (
    SPECIAL_TYPES[desc.typeName] ?? (ARRAY_MESSAGES.has(desc.typeName) ? arrayMessage : undefined)
  );
}
