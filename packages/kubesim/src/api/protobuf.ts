/**
 * Just enough protobuf to read the `DeleteOptions` that kubectl's typed clientset sends as
 * `application/vnd.kubernetes.protobuf` (kubectl drain without the Eviction API does): the `k8s\0`
 * envelope holds a runtime.Unknown whose `raw` field is the encoded DeleteOptions. Anything the
 * reader does not understand is skipped, so an odd body degrades to default options, never a 415.
 */

interface Field {
  no: number;
  wire: number;
  value: bigint | Buffer;
}

function* fields(buf: Buffer): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new RangeError('truncated varint');
      const byte = buf[pos++] ?? 0;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const wire = tag & 7;
    const no = tag >>> 3;
    if (wire === 0) yield { no, wire, value: varint() };
    else if (wire === 2) {
      const len = Number(varint());
      yield { no, wire, value: buf.subarray(pos, pos + len) };
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else return;
  }
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** DeleteOptions fields: 1 gracePeriodSeconds, 2 preconditions{1 uid, 2 resourceVersion}, 4 propagationPolicy, 5 dryRun. */
export function decodeDeleteOptionsProto(body: Buffer): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  try {
    let raw = body;
    if (body.subarray(0, 4).equals(MAGIC)) {
      raw = Buffer.alloc(0);
      for (const f of fields(body.subarray(4)))
        if (f.no === 2 && f.wire === 2) raw = f.value as Buffer;
    }
    for (const f of fields(raw)) {
      if (f.no === 1 && f.wire === 0)
        options['gracePeriodSeconds'] = Number(BigInt.asIntN(64, f.value as bigint));
      if (f.no === 2 && f.wire === 2) {
        const pre: Record<string, string> = {};
        for (const p of fields(f.value as Buffer)) {
          if (p.no === 1 && p.wire === 2) pre['uid'] = (p.value as Buffer).toString('utf8');
          if (p.no === 2 && p.wire === 2)
            pre['resourceVersion'] = (p.value as Buffer).toString('utf8');
        }
        options['preconditions'] = pre;
      }
      if (f.no === 4 && f.wire === 2)
        options['propagationPolicy'] = (f.value as Buffer).toString('utf8');
      if (f.no === 5 && f.wire === 2) {
        options['dryRun'] = [
          ...((options['dryRun'] as string[] | undefined) ?? []),
          (f.value as Buffer).toString('utf8'),
        ];
      }
    }
  } catch {
    // A body we cannot read means "default options", as the DELETE it came with still makes sense.
  }
  return options;
}
