/**
 * `cluster:` — which Kubernetes kubemaint talks to: the embedded sim (the default, so `npm start`
 * needs nothing), a kubeconfig context, the in-cluster service account, or an EKS cluster reached
 * with IAM. Exactly one type; a block for another type is an error, not silently ignored, because
 * a `kubeconfig:` block left under `type: sim` usually means someone expects a real cluster.
 */
import { z } from 'zod';
import { checkedText, describeValue, int } from './fields.js';

export const CLUSTER_TYPES = ['sim', 'kubeconfig', 'in-cluster', 'eks'] as const;
export type ClusterType = (typeof CLUSTER_TYPES)[number];

/** Nodes in each sim scenario unless `sim.nodes` says otherwise. */
const SIM_NODES = { demo: 6, fleet: 50 } as const;

export const SimSchema = z.strictObject({
  scenario: z.enum(['demo', 'fleet']).default('demo'),
  nodes: int(1, 5000).optional(),
  port: int(0, 65535).default(0),
});

export const KubeconfigSchema = z.strictObject({
  path: z.string().min(1).optional(),
  context: z.string().min(1).optional(),
});

const pattern = (re: RegExp, what: string, hint: string) =>
  checkedText((text) =>
    re.test(text) ? undefined : { message: `${describeValue(text)} is not ${what}`, hint },
  );

export const EksSchema = z.strictObject({
  name: pattern(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'an EKS cluster name', 'e.g. prod-eu'),
  region: pattern(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'an AWS region', 'e.g. eu-central-1'),
  endpoint: checkedText((text) =>
    /^https:\/\/[^\s/]+\/?$/.test(text)
      ? undefined
      : {
          message: 'is not an https:// API server endpoint',
          hint: 'aws eks describe-cluster --query cluster.endpoint',
        },
  ),
  caData: checkedText((text) =>
    isBase64Certificate(text)
      ? undefined
      : {
          message: 'is not a base64-encoded PEM certificate',
          hint: 'aws eks describe-cluster --query cluster.certificateAuthority.data',
        },
  ),
  roleArn: pattern(
    /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/,
    'an IAM role ARN',
    'e.g. arn:aws:iam::123456789012:role/kubemaint',
  ).optional(),
});

function isBase64Certificate(text: string): boolean {
  const compact = text.replace(/\s/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return false;
  return Buffer.from(compact, 'base64').toString('latin1').includes('-----BEGIN CERTIFICATE-----');
}

export type EksConfig = z.output<typeof EksSchema>;

export type ClusterConfig =
  | {
      type: 'sim';
      name: string;
      sim: { scenario: 'demo' | 'fleet'; nodes: number; port: number };
      /** Where its kubeconfig is written; unset: the demo's own (`.kubemaint/sim.kubeconfig`). */
      kubeconfigPath?: string;
    }
  | {
      type: 'kubeconfig';
      /** The context's name unless set; undefined = the kubeconfig's current context, read later. */
      name: string | undefined;
      /** Undefined fields mean kubectl's defaults: `$KUBECONFIG` or `~/.kube/config`, current context. */
      kubeconfig: { path: string | undefined; context: string | undefined };
    }
  | { type: 'in-cluster'; name: string }
  | { type: 'eks'; name: string; eks: EksConfig };

/** How a cluster is reached, as written (`cluster:`, or an entry of `clusters:`). */
export interface ReachInput {
  type: ClusterType;
  name?: string | undefined;
  sim?: z.output<typeof SimSchema> | undefined;
  kubeconfig?: z.output<typeof KubeconfigSchema> | undefined;
  eks?: EksConfig | undefined;
}

export const BLOCKS = ['sim', 'kubeconfig', 'eks'] as const;

export const ClusterSchema = z
  .strictObject({
    type: z.enum(CLUSTER_TYPES).default('sim'),
    name: z.string().min(1).optional(),
    sim: SimSchema.optional(),
    kubeconfig: KubeconfigSchema.optional(),
    eks: EksSchema.optional(),
  })
  .superRefine((cluster, ctx) => reachIssues(cluster, ctx, 'cluster.type'))
  .transform(reachOf);

/** A block for another type, or an eks type without its block: said, never silently ignored. */
export function reachIssues(cluster: ReachInput, ctx: z.core.$RefinementCtx, typeKey: string) {
  for (const block of BLOCKS) {
    if (cluster[block] !== undefined && cluster.type !== block) {
      ctx.addIssue({
        code: 'custom',
        path: [block],
        message: `is only used when ${typeKey} is ${block}, but the type is ${cluster.type}`,
        params: { hint: `set \`type: ${block}\`, or remove the ${block} block` },
      });
    }
  }
  if (cluster.type === 'eks' && cluster.eks === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['eks'],
      message: `is required when ${typeKey} is eks`,
      params: { hint: 'give name, region, endpoint and caData' },
    });
  }
}

/** The parsed way to reach a cluster; only called once `reachIssues` found nothing. */
export function reachOf(cluster: ReachInput): ClusterConfig {
  switch (cluster.type) {
    case 'sim': {
      const scenario = cluster.sim?.scenario ?? 'demo';
      const sim = {
        scenario,
        nodes: cluster.sim?.nodes ?? SIM_NODES[scenario],
        port: cluster.sim?.port ?? 0,
      };
      return { type: 'sim', name: cluster.name ?? 'sim', sim };
    }
    case 'kubeconfig': {
      const { path, context } = cluster.kubeconfig ?? {};
      return { type: 'kubeconfig', name: cluster.name ?? context, kubeconfig: { path, context } };
    }
    case 'in-cluster':
      return { type: 'in-cluster', name: cluster.name ?? 'in-cluster' };
    case 'eks': {
      // reachIssues guarantees the block; the transform only runs without issues.
      const eks = cluster.eks as EksConfig;
      return { type: 'eks', name: cluster.name ?? eks.name, eks };
    }
  }
}
