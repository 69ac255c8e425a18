/**
 * The `k8s\0` envelope Kubernetes puts around every protobuf object: the 4-byte magic, then a
 * runtime.Unknown whose typeMeta names the apiVersion and kind and whose `raw` is the object's own
 * message. Read and written with the generated runtime.Unknown, so that special-types.ts can open an
 * envelope nested in a RawExtension without the JSON mapping.
 */
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  TypeMetaSchema,
  UnknownSchema,
} from './gen/k8s.io/apimachinery/pkg/runtime/generated_pb.js';

export const MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

export class ProtobufError extends Error {}

export const hasMagic = (body: Uint8Array): boolean =>
  body.length >= 4 && MAGIC.every((b, i) => body[i] === b);

export function unwrap(body: Uint8Array): { type: TypeMeta; raw: Uint8Array } {
  if (!hasMagic(body))
    throw new ProtobufError('the body does not start with the Kubernetes protobuf magic k8s\\0');
  const unknown = fromBinary(UnknownSchema, body.subarray(4));
  return {
    type: { apiVersion: unknown.typeMeta?.apiVersion ?? '', kind: unknown.typeMeta?.kind ?? '' },
    raw: unknown.raw ?? new Uint8Array(),
  };
}

export function wrap(type: TypeMeta, raw: Uint8Array): Uint8Array {
  const unknown = create(UnknownSchema, { typeMeta: create(TypeMetaSchema, type), raw });
  const bytes = toBinary(UnknownSchema, unknown);
  const out = new Uint8Array(4 + bytes.length);
  out.set(MAGIC);
  out.set(bytes, 4);
  return out;
}
