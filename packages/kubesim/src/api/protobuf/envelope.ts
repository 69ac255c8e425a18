/**
 * Whole objects in Kubernetes' protobuf wire format (the `k8s\0` envelope of unknown.ts around the
 * kind's message), to and from the JSON kubesim works with. Watch streams frame each event behind a
 * 4-byte big-endian length: a bare meta/v1 WatchEvent message (no envelope), its object in an
 * envelope inside the RawExtension.
 */
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { reflect } from '@bufbuild/protobuf/reflect';
import { messageFromJson, messageToJson } from './json-mapping.js';
import { messageNamed, messageOfKind, META } from './registry.js';
import { ProtobufError, unwrap, wrap, type TypeMeta } from './unknown.js';

export { ProtobufError } from './unknown.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/**
 * The JSON object in a protobuf body, with apiVersion and kind; `expected` names the kind when the
 * envelope leaves its typeMeta empty. Throws ProtobufError for what is not such a body or a kind
 * without a message.
 */
export function decodeObject(body: Uint8Array, expected?: TypeMeta): Record<string, unknown> {
  const { type, raw } = unwrap(body);
  const apiVersion = type.apiVersion || expected?.apiVersion || '';
  const kind = type.kind || expected?.kind || '';
  const desc = messageOfKind(apiVersion, kind);
  if (!desc) throw new ProtobufError(`no protobuf message for ${apiVersion}, Kind=${kind}`);
  let json: unknown;
  try {
    json = messageToJson(reflect(desc, fromBinary(desc, raw)));
  } catch (error) {
    throw new ProtobufError(
      `the ${kind} in the body cannot be decoded: ${(error as Error).message}`,
    );
  }
  return { apiVersion, kind, ...(json as Record<string, unknown>) };
}

/** Whether a JSON object (with apiVersion and kind) has a protobuf encoding. */
export const hasMessage = (object: { apiVersion?: unknown; kind?: unknown }): boolean =>
  typeof object.apiVersion === 'string' &&
  typeof object.kind === 'string' &&
  messageOfKind(object.apiVersion, object.kind) !== undefined;

/** A JSON object (with apiVersion and kind that hasMessage accepts) in the protobuf envelope. */
export function encodeObject(object: Record<string, unknown>): Uint8Array {
  const apiVersion = String(object['apiVersion']);
  const kind = String(object['kind']);
  const desc = messageOfKind(apiVersion, kind);
  if (!desc) throw new ProtobufError(`no protobuf message for ${apiVersion}, Kind=${kind}`);
  return wrap({ apiVersion, kind }, toBinary(desc, messageFromJson(desc, object).message));
}

/** One watch event as a length-prefixed frame of a protobuf watch stream. */
export function encodeWatchEvent(type: string, object: Record<string, unknown>): Uint8Array {
  const desc = messageNamed(`${META}.WatchEvent`);
  const event = messageFromJson(desc, { type });
  const raw = reflect(event.findNumber(2)!.message!);
  raw.set(raw.findNumber(1)!, encodeObject(object));
  event.set(event.findNumber(2)!, raw);
  const body = toBinary(desc, event.message);
  const frame = new Uint8Array(4 + body.length);
  new DataView(frame.buffer).setUint32(0, body.length);
  frame.set(body, 4);
  return frame;
}

/** The events of a protobuf watch stream's bytes (whole frames; a cut-off last frame is left out). */
export function decodeWatchEvents(stream: Uint8Array): { type: string; object: unknown }[] {
  const desc = messageNamed(`${META}.WatchEvent`);
  const view = new DataView(stream.buffer, stream.byteOffset, stream.byteLength);
  const events: { type: string; object: unknown }[] = [];
  for (let at = 0; at + 4 <= stream.length;) {
    const length = view.getUint32(at);
    if (at + 4 + length > stream.length) break;
    const frame = stream.subarray(at + 4, at + 4 + length);
    events.push(
      messageToJson(reflect(desc, fromBinary(desc, frame))) as { type: string; object: unknown },
    );
    at += 4 + length;
  }
  return events;
}
