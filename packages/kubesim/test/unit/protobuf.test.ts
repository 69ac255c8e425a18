/**
 * Protobuf bodies as kube-apiserver reads and writes them: Go's zero values dropped where its JSON
 * would drop them, pointers kept even when zero, the types with JSON of their own, the envelope and
 * watch frames, and content negotiation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeObject,
  decodeWatchEvents,
  encodeObject,
  encodeWatchEvent,
  prefersProtobuf,
  ProtobufError,
} from '../../src/api/protobuf/index.js';
import { formatGoDuration, parseGoDuration } from '../../src/api/protobuf/special-types.js';

const bytes = (hex: string) => Buffer.from(hex.replace(/\s+/g, ''), 'hex');

/** The body kubectl 1.33 sent for `kubectl create namespace y33` (its -v=9 dump). */
const KUBECTL_CREATE_NAMESPACE = bytes(`
  6b 38 73 00 0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65 12 1b 0a 13 0a 03 79 33 33 12 00
  1a 00 22 00 2a 00 32 00 38 00 42 00 12 00 1a 02 0a 00 1a 00 22 00`);

const roundTrip = (object: Record<string, unknown>) => decodeObject(encodeObject(object));

describe('protobuf bodies', () => {
  it("decodes kubectl's create namespace as the JSON kube-apiserver would see (empty Go fields gone)", () => {
    assert.deepEqual(decodeObject(KUBECTL_CREATE_NAMESPACE), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'y33' },
      spec: {},
      status: {},
    });
  });

  it('keeps pointer fields that are zero (replicas: 0) and maps int-or-string, quantities, times', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'd',
        creationTimestamp: '2026-01-02T03:04:05Z',
        labels: { app: 'web' },
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:replicas': {} } },
            time: '2026-01-02T03:04:05Z',
          },
        ],
      },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx',
                resources: { requests: { cpu: '100m', memory: '64Mi' } },
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
              },
            ],
            volumes: [{ name: 'cache', emptyDir: {} }],
          },
        },
      },
      status: {},
    };
    assert.deepEqual(roundTrip(deployment), deployment);
  });

  it('bytes as base64, ExtraValue as arrays, MicroTime with microseconds', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { token: Buffer.from('hi').toString('base64') },
      type: 'Opaque',
    };
    assert.deepEqual(roundTrip(secret), secret);
    const review = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: 'u', extra: { scopes: ['a', 'b'] }, resourceAttributes: { verb: 'get' } },
      status: { allowed: true },
    };
    assert.deepEqual(roundTrip(review), review);
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e' },
      eventTime: '2026-01-02T03:04:05.123456Z',
      reportingController: 'c',
      reportingInstance: 'i',
      action: 'a',
      reason: 'r',
      regarding: { kind: 'Pod', name: 'p' },
    };
    assert.deepEqual(roundTrip(event), event);
  });

  it("a CRD's schema: $ref, maps of schemas, schema-or-bool, x-kubernetes fields", () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                    additionalProperties: false,
                    properties: {
                      size: { type: 'integer', minimum: 1, default: 3 },
                      tags: { type: 'array', items: { type: 'string' } },
                      labels: { type: 'object', additionalProperties: { type: 'string' } },
                    },
                    'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'small' }],
                  },
                },
              },
            },
          },
        ],
      },
      status: {},
    };
    assert.deepEqual(roundTrip(crd), crd);
  });

  it('Go durations as Go writes and reads them', () => {
    assert.equal(formatGoDuration(0n), '0s');
    assert.equal(formatGoDuration(90_000_000_000n), '1m30s');
    assert.equal(formatGoDuration(3_600_000_000_000n), '1h0m0s');
    assert.equal(formatGoDuration(1_500_000_000n), '1.5s');
    assert.equal(formatGoDuration(2_000_000n), '2ms');
    assert.equal(parseGoDuration('1h0m0s'), 3_600_000_000_000n);
    assert.equal(parseGoDuration('1.5s'), 1_500_000_000n);
    assert.equal(parseGoDuration('-2ms'), -2_000_000n);
    assert.equal(parseGoDuration('soon'), undefined);
  });

  it('refuses what is not an envelope, and kinds without a message (custom resources)', () => {
    assert.throws(() => decodeObject(Buffer.from('{"kind":"Pod"}')), ProtobufError);
    assert.throws(
      () => encodeObject({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: {} }),
      /no protobuf message for example.com\/v1, Kind=Widget/,
    );
  });

  it('frames watch events behind a 4-byte length: a bare WatchEvent, the object in its envelope', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', resourceVersion: '7' } };
    const frame = encodeWatchEvent('ADDED', pod);
    const length = new DataView(frame.buffer, frame.byteOffset).getUint32(0);
    assert.equal(length, frame.length - 4);
    assert.deepEqual(frame.subarray(4, 6), new Uint8Array([0x0a, 0x05])); // field 1, "ADDED": no k8s\0
    const stream = Buffer.concat([frame, encodeWatchEvent('DELETED', pod), frame.subarray(0, 9)]);
    assert.deepEqual(decodeWatchEvents(stream), [
      { type: 'ADDED', object: pod },
      { type: 'DELETED', object: pod },
    ]);
  });

  it('negotiates protobuf only when the client puts it before JSON', () => {
    assert.equal(prefersProtobuf('application/vnd.kubernetes.protobuf,application/json'), true);
    assert.equal(prefersProtobuf('application/vnd.kubernetes.protobuf, */*'), true);
    assert.equal(prefersProtobuf('application/json, application/vnd.kubernetes.protobuf'), false);
    assert.equal(prefersProtobuf(undefined), false);
    assert.equal(
      prefersProtobuf(
        'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json',
      ),
      false,
    );
  });
});
