/**
 * What a person does with kubectl on a cluster, as steps: create, apply, diff, explain, get -o wide,
 * describe, logs, rollout status and undo, scale, auth can-i and whoami, events, cordon, drain and
 * delete --wait. Each step is one kubectl run with what its output must show; the steps of one
 * kubectl version work in a namespace and on a node of their own, so versions run one after another
 * on one cluster. A step that fails does not stop the ones after it (a later step may then fail for
 * the same reason: that is still a step kubectl could not do).
 */

export interface StepContext {
  /** kubectl's minor version (27 for 1.27). */
  minor: number;
  namespace: string;
  /** A node this version may cordon and drain. */
  node: string;
  /** Folder with the manifests below, as files. */
  dir: string;
}

export interface KubectlStep {
  /** Stable: the key of known failures and of the report. */
  id: string;
  args: (c: StepContext) => string[];
  /** @default 0 */
  exit?: number;
  /** What stdout must show. */
  stdout?: RegExp | ((c: StepContext) => RegExp);
  /** Wait (polling the same command) until it passes, for what controllers do in the background. */
  eventually?: boolean;
}

const deployment = (name: string, image: string, replicas = 2) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: ${name}
        image: ${image}
        ports:
        - containerPort: 8080
`;

/** File name → content, written to `StepContext.dir` before the steps run. */
export const MANIFESTS: Readonly<Record<string, string>> = {
  'web.yaml': deployment('web', 'nginx:1.27'),
  'api.yaml': deployment('api', 'registry.k8s.io/pause:3.9', 1),
  'api-v2.yaml': deployment('api', 'registry.k8s.io/pause:3.10', 1),
  'api-v3.yaml': deployment('api', 'registry.k8s.io/pause:3.10', 2),
  'settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`,
};

const ns = (c: StepContext) => ['-n', c.namespace];

export const KUBECTL_STEPS: readonly KubectlStep[] = [
  {
    id: 'create namespace',
    args: (c) => ['create', 'namespace', c.namespace],
    stdout: (c) => new RegExp(`namespace/${c.namespace} created`),
  },
  {
    id: 'create -f',
    args: (c) => ['create', '-f', `${c.dir}/web.yaml`, ...ns(c)],
    stdout: /deployment\.apps\/web created/,
  },
  {
    id: 'create configmap',
    args: (c) => ['create', 'configmap', 'flags', '--from-literal=color=blue', ...ns(c)],
    stdout: /configmap\/flags created/,
  },
  {
    id: 'apply (create)',
    args: (c) => ['apply', '-f', `${c.dir}/api.yaml`, '-f', `${c.dir}/settings.yaml`, ...ns(c)],
    stdout: /deployment\.apps\/api created\nconfigmap\/settings created/,
  },
  {
    id: 'apply (patch)',
    args: (c) => ['apply', '-f', `${c.dir}/api-v2.yaml`, ...ns(c)],
    stdout: /deployment\.apps\/api configured/,
  },
  {
    id: 'apply --server-side',
    args: (c) => ['apply', '--server-side', '-f', `${c.dir}/settings.yaml`, ...ns(c)],
    stdout: /configmap\/settings serverside-applied/,
  },
  {
    id: 'diff',
    args: (c) => ['diff', '-f', `${c.dir}/api-v3.yaml`, ...ns(c)],
    exit: 1,
    stdout: /-\s+replicas: 1\n\+\s+replicas: 2/,
  },
  {
    id: 'diff (no change)',
    args: (c) => ['diff', '-f', `${c.dir}/api-v2.yaml`, ...ns(c)],
  },
  {
    id: 'explain',
    args: () => ['explain', 'deployment.spec.replicas'],
    stdout: /FIELD:\s+replicas\s+<integer>[\s\S]*Number of desired pods/,
  },
  {
    id: 'explain --recursive',
    args: () => ['explain', 'nodes.spec', '--recursive'],
    stdout: /unschedulable\s+<boolean>/,
  },
  {
    id: 'rollout status',
    args: (c) => ['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns(c)],
    stdout: /successfully rolled out/,
  },
  {
    id: 'get pods -o wide',
    args: (c) => ['get', 'pods', '-o', 'wide', ...ns(c)],
    stdout:
      /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE[\s\S]*\nweb-\S+\s+1\/1\s+Running/,
  },
  {
    id: 'get deployments -o wide',
    args: (c) => ['get', 'deployments', '-o', 'wide', ...ns(c)],
    stdout:
      /CONTAINERS\s+IMAGES\s+SELECTOR[\s\S]*\nweb\s+2\/2\s+2\s+2\s+\S+\s+web\s+nginx:1\.27\s+app=web/,
  },
  {
    id: 'get nodes -o wide',
    args: (c) => ['get', 'nodes', c.node, '-o', 'wide'],
    stdout: /INTERNAL-IP\s+EXTERNAL-IP\s+OS-IMAGE[\s\S]*\n\S+\s+Ready\s/,
  },
  {
    id: 'describe deployment',
    args: (c) => ['describe', 'deployment', 'web', ...ns(c)],
    stdout: /Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available/,
  },
  {
    id: 'describe node',
    args: (c) => ['describe', 'node', c.node],
    stdout: (c) => new RegExp(`Name:\\s+${c.node}[\\s\\S]*Conditions:[\\s\\S]*Ready\\s+True`),
  },
  {
    id: 'describe pod',
    args: (c) => ['describe', 'pods', '-l', 'app=web', ...ns(c)],
    stdout: /Status:\s+Running[\s\S]*Containers:\s+web:/,
  },
  {
    id: 'logs',
    args: (c) => ['logs', 'deployment/web', ...ns(c)],
    stdout: /\S/,
  },
  {
    id: 'set image',
    args: (c) => ['set', 'image', 'deployment/web', 'web=nginx:1.28', ...ns(c)],
    stdout: /deployment\.apps\/web image updated/,
  },
  {
    id: 'rollout status (after update)',
    args: (c) => ['rollout', 'status', 'deployment/web', '--timeout=60s', ...ns(c)],
    stdout: /successfully rolled out/,
  },
  {
    id: 'rollout history',
    args: (c) => ['rollout', 'history', 'deployment/web', ...ns(c)],
    stdout: /REVISION\s+CHANGE-CAUSE\n1\s+\S+\n2\s+/,
  },
  {
    id: 'rollout undo',
    args: (c) => ['rollout', 'undo', 'deployment/web', ...ns(c)],
    stdout: /deployment\.apps\/web rolled back/,
  },
  {
    id: 'rollout undo took effect',
    args: (c) => [
      'get',
      'deployment',
      'web',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image}',
      ...ns(c),
    ],
    stdout: /^nginx:1\.27$/,
  },
  {
    id: 'scale',
    args: (c) => ['scale', 'deployment/web', '--replicas=3', ...ns(c)],
    stdout: /deployment\.apps\/web scaled/,
  },
  {
    id: 'scale took effect',
    args: (c) => ['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}', ...ns(c)],
    stdout: /^3$/,
    eventually: true,
  },
  {
    id: 'auth can-i (yes)',
    args: (c) => ['auth', 'can-i', 'create', 'deployments', ...ns(c)],
    stdout: /^yes$/m,
  },
  {
    id: 'auth can-i (no)',
    args: (c) => [
      'auth',
      'can-i',
      'delete',
      'nodes',
      `--as=system:serviceaccount:${c.namespace}:default`,
    ],
    exit: 1,
    stdout: /^no$/m,
  },
  {
    id: 'auth whoami',
    args: () => ['auth', 'whoami'],
    stdout: /Username\s+\S/,
  },
  {
    id: 'events',
    args: (c) => ['events', ...ns(c)],
    stdout: /LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n[\s\S]*ScalingReplicaSet/,
  },
  {
    id: 'get events',
    args: (c) => ['get', 'events', ...ns(c)],
    stdout: /LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n[\s\S]*deployment\/web/,
  },
  {
    id: 'cordon',
    args: (c) => ['cordon', c.node],
    stdout: (c) => new RegExp(`node/${c.node} cordoned`),
  },
  {
    id: 'drain',
    args: (c) => [
      'drain',
      c.node,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--timeout=60s',
    ],
    stdout: (c) => new RegExp(`node/${c.node} drained`),
  },
  {
    id: 'uncordon',
    args: (c) => ['uncordon', c.node],
    stdout: (c) => new RegExp(`node/${c.node} uncordoned`),
  },
  {
    id: 'delete --wait',
    args: (c) => ['delete', 'deployment', 'api', '--wait', '--timeout=60s', ...ns(c)],
    stdout: /deployment\.apps "api" deleted/,
  },
  {
    id: 'delete namespace --wait',
    args: (c) => ['delete', 'namespace', c.namespace, '--wait', '--timeout=60s'],
    stdout: (c) => new RegExp(`namespace "${c.namespace}" deleted`),
  },
];
