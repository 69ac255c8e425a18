import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  podRequests,
  qosClassOf,
  quantityValue,
  resourceRequest,
} from '../../src/controllers/scheduler-requests.js';
import type { KObject } from '../../src/types.js';

type Res = { requests?: Record<string, string>; limits?: Record<string, string> };
const pod = (
  containers: Res[],
  extra: { init?: (Res & { restartPolicy?: string })[]; spec?: Record<string, unknown> } = {},
): KObject => ({
  metadata: { name: 'p' },
  spec: {
    containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'x', resources })),
    ...(extra.init
      ? {
          initContainers: extra.init.map(({ restartPolicy, ...resources }, i) => ({
            name: `i${i}`,
            image: 'x',
            resources,
            ...(restartPolicy ? { restartPolicy } : {}),
          })),
        }
      : {}),
    ...extra.spec,
  },
});

describe('quantities as Quantity.MilliValue() and Value() read them', () => {
  const cases: [unknown, 0 | 3, number | undefined][] = [
    ['500m', 3, 500],
    ['1', 3, 1000],
    ['1.5', 3, 1500],
    ['0.1', 3, 100],
    [2, 3, 2000],
    ['100n', 3, 1], // rounded up, as MilliValue does
    ['1e3', 0, 1000],
    ['1E-3', 3, 1],
    ['128Mi', 0, 134_217_728],
    ['1Gi', 0, 1_073_741_824],
    ['1.5Gi', 0, 1_610_612_736],
    ['1G', 0, 1_000_000_000],
    ['10k', 0, 10_000],
    ['.5', 3, 500],
    ['', 3, undefined],
    ['1.2.3', 3, undefined],
    ['5 Mi', 0, undefined],
    ['1Mb', 0, undefined],
    [undefined, 0, undefined],
  ];
  for (const [text, scale, want] of cases) {
    it(`${JSON.stringify(text)} at scale ${scale} is ${String(want)}`, () => {
      assert.equal(quantityValue(text, scale), want);
    });
  }
});

describe("a pod's requests (resource.PodRequests)", () => {
  it('adds up its containers', () => {
    const p = pod([{ requests: { cpu: '250m', memory: '64Mi' } }, { requests: { cpu: '1' } }]);
    assert.deepEqual(podRequests(p), { milliCPU: 1250, memory: 64 * 2 ** 20 });
  });
  it('takes a limit for a request the container does not state', () => {
    assert.deepEqual(podRequests(pod([{ limits: { cpu: '2', memory: '1Gi' } }])), {
      milliCPU: 2000,
      memory: 2 ** 30,
    });
  });
  it('needs the largest init container when it is larger than the app containers', () => {
    const p = pod([{ requests: { cpu: '100m' } }], {
      init: [{ requests: { cpu: '3' } }, { requests: { cpu: '1' } }],
    });
    assert.equal(podRequests(p).milliCPU, 3000);
  });
  it('adds sidecars (init containers that restart Always) to the app containers', () => {
    const p = pod([{ requests: { cpu: '100m' } }], {
      init: [{ requests: { cpu: '200m' }, restartPolicy: 'Always' }, { requests: { cpu: '250m' } }],
    });
    // The plain init container runs beside the sidecar (450m); the app runs beside it too (300m).
    assert.equal(podRequests(p).milliCPU, 450);
  });
  it('adds the overhead, and pod-level resources replace the containers', () => {
    const p = pod([{ requests: { cpu: '1' } }], {
      spec: { overhead: { cpu: '250m' }, resources: { requests: { cpu: '2', memory: '1Gi' } } },
    });
    assert.deepEqual(podRequests(p), { milliCPU: 2250, memory: 2 ** 30 });
  });
  it('counts one against pods', () => {
    assert.equal(resourceRequest(pod([{}]), 'pods'), 1);
    assert.equal(resourceRequest(pod([{ requests: { memory: '1Ki' } }]), 'memory'), 1024);
  });
});

describe('QoS class (qos.GetPodQOS)', () => {
  const cases: [string, KObject, string][] = [
    ['no requests or limits', pod([{}, {}]), 'BestEffort'],
    ['requests only', pod([{ requests: { cpu: '1' } }]), 'Burstable'],
    [
      'limits equal requests',
      pod([{ requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }]),
      'Guaranteed',
    ],
    [
      'limits only (requests default to them)',
      pod([{ limits: { cpu: '1', memory: '1Gi' } }]),
      'Guaranteed',
    ],
    ['a limit on cpu only', pod([{ limits: { cpu: '1' } }]), 'Burstable'],
    [
      'one container without limits',
      pod([{ limits: { cpu: '1', memory: '1Gi' } }, {}]),
      'Burstable',
    ],
    [
      'requests below limits',
      pod([{ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }]),
      'Burstable',
    ],
    [
      'the class the apiserver wrote',
      { ...pod([{}]), status: { qosClass: 'Guaranteed' } },
      'Guaranteed',
    ],
  ];
  for (const [why, p, want] of cases) {
    it(`${why}: ${want}`, () => assert.equal(qosClassOf(p), want));
  }
});
