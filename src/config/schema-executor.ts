/**
 * `executor:` — the Job that takes a slot, drains and reboots or upgrades one node
 * (templates/executor-job.ts). Its image, account, deadlines and host prefix, and the pod's
 * scheduling: pull policy, CPU and memory, and priority class. The bounds here are the ones the
 * admission policy `kubemaint-jobs-of-the-executors-shape` (infra/k8s/admission-requests.yaml)
 * enforces, so a config that passes here makes Jobs that are admitted.
 */
import { z } from 'zod';
import { VERSION } from '../version.js';
import { checkedText, describeValue, dnsLabel, duration } from './fields.js';

const HOUR = 3_600_000;

const IMAGE =
  /^[a-z0-9]+([._-][a-z0-9]+)*(:\d+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;

/** A PriorityClass name (a DNS subdomain), or "" for none. */
const PRIORITY_CLASS = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$/;

/** Millicores in `50m`, `1`, `0.5` (YAML may give a number); undefined for anything else. */
export function cpuMillis(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const milli = /^(\d{1,6})m$/.exec(text);
  if (milli) return Number(milli[1]);
  const cores = /^(\d{1,3})(?:\.(\d{1,3}))?$/.exec(text);
  if (!cores) return undefined;
  return Number(cores[1]) * 1000 + Number((cores[2] ?? '').padEnd(3, '0'));
}

/** MiB in `256Mi`, `1Gi`; undefined for anything else (other units are refused, not guessed). */
export function memoryMiB(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{1,6})(Mi|Gi)$/.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

/**
 * As the apiserver writes a quantity back (`1000m` → `1`, `1024Mi` → `1Gi`): what admission sees,
 * so the policy's patterns and the config speak of the same strings.
 */
export const cpuText = (millis: number): string =>
  millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
export const memoryText = (mib: number): string =>
  mib % 1024 === 0 ? `${mib / 1024}Gi` : `${mib}Mi`;

/** At most 4 cores and 4 GiB: the executor is a small Node process; more is a typo. */
const MAX_MILLIS = 4000;
const MAX_MIB = 4096;
/** Below this the executor (a Node process, about 100 MiB at work) is killed as it starts. */
const MIN_LIMIT_MIB = 128;

const cpu = () =>
  z.unknown().transform((value, ctx) => {
    const millis = cpuMillis(value);
    if (millis !== undefined && millis >= 1 && millis <= MAX_MILLIS) return cpuText(millis);
    ctx.addIssue({
      code: 'custom',
      message:
        millis === undefined
          ? `${describeValue(value)} is not a CPU quantity`
          : `${describeValue(value)} is outside 1m … 4 (cores)`,
      params: { hint: 'write millicores (50m, 500m) or cores (1, 0.5), at most 4' },
    });
    return z.NEVER;
  });

const memory = (min: number) =>
  z.unknown().transform((value, ctx) => {
    const mib = memoryMiB(value);
    if (mib !== undefined && mib >= min && mib <= MAX_MIB) return memoryText(mib);
    ctx.addIssue({
      code: 'custom',
      message:
        mib === undefined
          ? `${describeValue(value)} is not a memory quantity in Mi or Gi`
          : `${describeValue(value)} is outside ${memoryText(min)} … 4Gi`,
      params: { hint: 'write 64Mi, 256Mi or 1Gi (binary units; M, G and bytes are not taken)' },
    });
    return z.NEVER;
  });

const ResourcesSchema = z
  .strictObject({
    requests: z
      .strictObject({ cpu: cpu().default('50m'), memory: memory(16).default('64Mi') })
      .prefault({}),
    limits: z
      .strictObject({ cpu: cpu().optional(), memory: memory(MIN_LIMIT_MIB).default('256Mi') })
      .prefault({}),
  })
  .superRefine(({ requests, limits }, ctx) => {
    // A request above its limit: the apiserver would refuse the Job at dispatch, so say it here.
    const pairs = [
      ['memory', requests.memory, limits.memory, memoryMiB],
      ['cpu', requests.cpu, limits.cpu, cpuMillis],
    ] as const;
    for (const [name, request, limit, amount] of pairs) {
      if (limit === undefined || amount(request)! <= amount(limit)!) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['requests', name],
        message: `${request} is more than limits.${name} (${limit})`,
        params: {
          hint: 'a request may not exceed its limit; raise the limit or lower the request',
        },
      });
    }
  });

/** Where kubemaint's own executor image is published (the default `executor.image`, without its tag). */
export const EXECUTOR_IMAGE_REPOSITORY = 'ghcr.io/kubemaint/kubemaint';

export const ExecutorSchema = z.strictObject({
  image: checkedText((text) =>
    IMAGE.test(text)
      ? undefined
      : {
          message: `${describeValue(text)} is not an image reference`,
          hint: 'e.g. ghcr.io/acme/kubemaint:0.1.0',
        },
  ).default(`${EXECUTOR_IMAGE_REPOSITORY}:${VERSION}`),
  /** Unset: Kubernetes' default (Always for `:latest`, IfNotPresent otherwise). */
  imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
  serviceAccount: dnsLabel('kubemaint-executor').default('kubemaint-executor'),
  activeDeadline: duration().default(2 * HOUR),
  ttlAfterFinished: duration().default(HOUR),
  // What makes an argv run on the host: PID 1's mount namespace (kured's idiom). [] runs it as is.
  hostPrefix: z.array(z.string()).default(['nsenter', '-m/proc/1/ns/mnt', '--']),
  resources: ResourcesSchema.prefault({}),
  // The pod is bound by nodeName to a node that may be full: only a critical pod is admitted there
  // by evicting others (the kubelet's critical-pod admission). "" runs without a class.
  priorityClassName: checkedText((text) =>
    PRIORITY_CLASS.test(text) && text.length <= 253
      ? undefined
      : {
          message: `${describeValue(text)} is not a PriorityClass name`,
          hint: 'e.g. system-node-critical, or "" for none',
        },
  ).default('system-node-critical'),
});
