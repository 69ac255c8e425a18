/**
 * Protobuf bodies (`application/vnd.kubernetes.protobuf`) for the built-in kinds, as kube-apiserver
 * reads and writes them: Kubernetes' own messages (generated from its `.proto` files by
 * scripts/generate-protobuf.sh), in the `k8s\0` envelope, mapped to and from the JSON the rest of
 * kubesim works with. Custom resources have no protobuf form, upstream as here.
 */
export {
  decodeObject,
  decodeWatchEvents,
  encodeObject,
  encodeWatchEvent,
  hasMessage,
  PROTOBUF,
  ProtobufError,
} from './envelope.js';

/**
 * Whether a request's Accept header puts protobuf before JSON (kubectl's typed clients send
 * `application/vnd.kubernetes.protobuf,application/json`). Media types with parameters such as
 * `as=Table` ask for something else and are skipped, as are ranges with q=0.
 */
export function prefersProtobuf(accept: string | undefined): boolean {
  for (const range of (accept ?? '').split(',')) {
    const [type = '', ...params] = range.split(';').map((s) => s.trim().toLowerCase());
    if (params.some((p) => p.startsWith('as=') || p === 'q=0')) continue;
    if (type === 'application/vnd.kubernetes.protobuf') return true;
    if (['application/json', 'application/*', '*/*', 'application/yaml'].includes(type))
      return false;
  }
  return false;
}
