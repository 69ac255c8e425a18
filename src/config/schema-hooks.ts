/**
 * `hooks:` — a person's Job before the drain and after the node is back (issue 18, ADR 0021): a
 * container (or a whole pod template), a timeout and a failure policy. The template is checked here
 * against what infra/k8s/admission-hooks.yaml admits, so `config check` says "hostPID is refused"
 * instead of the first hook failing at the apiserver; the apiserver still has the last word (and
 * checks the image's repository, which only the cluster's policy knows).
 */
import { z } from 'zod';
import { HOOK_FAILURE_POLICIES } from '../core/hooks.js';
import { describeValue, duration } from './fields.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const IMAGE =
  /^[a-z0-9]+([._-][a-z0-9]+)*(:\d+)?(\/[a-z0-9]+([._-][a-z0-9]+)*)*(:[\w][\w.-]{0,127})?(@sha256:[a-f0-9]{64})?$/;
const image = () =>
  z.string().superRefine((text, ctx) => {
    if (!IMAGE.test(text))
      ctx.addIssue({
        code: 'custom',
        message: `${describeValue(text)} is not an image reference`,
        params: { hint: 'e.g. registry.example.com/ops/backup:1.2' },
      });
  });

/** The short form: one container, named `hook`. */
const ContainerSchema = z.strictObject({
  image: image(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  env: z.array(z.strictObject({ name: z.string().min(1), value: z.string() })).optional(),
  workingDir: z.string().optional(),
  resources: z
    .record(z.string(), z.record(z.string(), z.union([z.string(), z.number()])))
    .optional(),
});

const TemplateSchema = z.strictObject({
  metadata: z
    .strictObject({
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  spec: z.record(z.string(), z.unknown()),
});

export const HookSchema = z
  .strictObject({
    container: ContainerSchema.optional(),
    template: TemplateSchema.optional(),
    timeout: duration().default(10 * MINUTE),
    onFailure: z.enum(HOOK_FAILURE_POLICIES).default('abort'),
    onNode: z.boolean().default(false),
  })
  .superRefine((hook, ctx) => {
    if ((hook.container === undefined) === (hook.template === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'needs exactly one of container and template',
        params: {
          hint: 'container: {image: …, args: […]} for one container; template: {spec: …} for a pod template',
        },
      });
    }
    if (hook.timeout <= 0 || hook.timeout > DAY) {
      ctx.addIssue({
        code: 'custom',
        path: ['timeout'],
        message: 'must be more than 0 and at most 24h (the hook Job’s deadline)',
        params: { hint: 'e.g. 10m' },
      });
    }
    if (hook.template) {
      for (const p of templateProblems(hook.template.spec)) {
        ctx.addIssue({
          code: 'custom',
          path: ['template', 'spec', ...p.path],
          message: p.message,
          params: { hint: p.hint },
        });
      }
    }
  });

export const HooksSchema = z.strictObject({
  beforeDrain: HookSchema.optional(),
  afterReady: HookSchema.optional(),
});

interface TemplateProblem {
  path: (string | number)[];
  message: string;
  hint: string;
}

const REFUSED = 'admission (kubemaint-hook-jobs) refuses it';
const SAFE_VOLUMES = [
  'configMap',
  'secret',
  'emptyDir',
  'projected',
  'downwardAPI',
  'persistentVolumeClaim',
  'ephemeral',
];

/** What infra/k8s/admission-hooks.yaml would refuse in a pod spec, each with its path. */
export function templateProblems(spec: Record<string, unknown>): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  const refuse = (path: (string | number)[], what: string, hint: string) =>
    problems.push({ path, message: `${what}: ${REFUSED}`, hint });
  const containers = spec['containers'];
  if (!Array.isArray(containers) || containers.length === 0) {
    problems.push({
      path: ['containers'],
      message: 'a pod template needs at least one container',
      hint: 'containers: [{name: hook, image: …}]',
    });
  }
  for (const key of ['hostNetwork', 'hostPID', 'hostIPC'])
    if (spec[key] === true) refuse([key], `${key} shares the host's namespace`, `remove ${key}`);
  for (const key of ['nodeName', 'serviceAccountName', 'serviceAccount', 'ephemeralContainers'])
    if (spec[key] !== undefined)
      refuse(
        [key],
        `${key} is kubemaint's to set`,
        key === 'nodeName'
          ? 'use onNode: true to run the hook on the node being maintained'
          : 'hooks run as kubemaint-hook; bind that account what the hook needs',
      );
  if (spec['tolerations'] !== undefined)
    refuse(
      ['tolerations'],
      'a hook tolerates no taint',
      'remove tolerations; onNode: true tolerates the cordon of its node',
    );
  const context = spec['securityContext'] as Record<string, unknown> | undefined;
  if (context?.['sysctls'] !== undefined)
    refuse(['securityContext', 'sysctls'], 'sysctls change the node', 'remove sysctls');
  for (const [i, volume] of (Array.isArray(spec['volumes']) ? spec['volumes'] : []).entries()) {
    const kind = Object.keys(volume as object).find((k) => k !== 'name');
    if (kind !== undefined && !SAFE_VOLUMES.includes(kind))
      refuse(['volumes', i, kind], `a ${kind} volume`, `use one of ${SAFE_VOLUMES.join(', ')}`);
  }
  for (const list of ['containers', 'initContainers']) {
    for (const [i, c] of (Array.isArray(spec[list]) ? spec[list] : []).entries()) {
      problems.push(...containerProblems(c as Record<string, unknown>, [list, i], refuse));
    }
  }
  return problems;
}

function containerProblems(
  c: Record<string, unknown>,
  at: (string | number)[],
  refuse: (path: (string | number)[], what: string, hint: string) => void,
): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  if (typeof c['name'] !== 'string' || typeof c['image'] !== 'string')
    problems.push({
      path: at,
      message: 'a container needs a name and an image',
      hint: 'name: hook',
    });
  else if (!IMAGE.test(c['image']))
    problems.push({
      path: [...at, 'image'],
      message: `${describeValue(c['image'])} is not an image reference`,
      hint: 'e.g. registry.example.com/ops/backup:1.2',
    });
  const sc = (c['securityContext'] ?? {}) as Record<string, unknown>;
  const where = [...at, 'securityContext'];
  if (sc['privileged'] === true)
    refuse([...where, 'privileged'], 'a privileged container', 'remove it');
  if (sc['allowPrivilegeEscalation'] === true)
    refuse(
      [...where, 'allowPrivilegeEscalation'],
      'privilege escalation',
      'set it false or remove it',
    );
  const add = (sc['capabilities'] as { add?: unknown[] } | undefined)?.add;
  if (Array.isArray(add) && add.length > 0)
    refuse([...where, 'capabilities', 'add'], 'added capabilities', 'remove capabilities.add');
  const ports = Array.isArray(c['ports']) ? (c['ports'] as Record<string, unknown>[]) : [];
  for (const [i, port] of ports.entries())
    if (port['hostPort'] !== undefined && port['hostPort'] !== 0)
      refuse([...at, 'ports', i, 'hostPort'], 'a host port', 'remove hostPort');
  return problems;
}
