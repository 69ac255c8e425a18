/**
 * What a person does with kubectl on a cluster, as steps: create, apply, diff, explain, get -o wide,
 * describe, logs, rollout status and undo (Deployments and DaemonSets), scale, services and their
 * endpoints, cron jobs, claims, auth can-i and whoami, events, cordon, drain and delete --wait. Each step is one kubectl run with what its output must show; the steps of one
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
  'agent.yaml': `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: registry.k8s.io/pause:3.9
`,
  'claim.yaml': `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests: {storage: 1Gi}
`,
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
    id: 'create service',
    args: (c) => ['create', 'service', 'clusterip', 'cache', '--tcp=6379:6379', ...ns(c)],
    stdout: /service\/cache created/,
  },
  {
    id: 'expose',
    args: (c) => ['expose', 'deployment', 'web', '--port=80', '--target-port=8080', ...ns(c)],
    stdout: /service\/web exposed/,
  },
  {
    id: 'get services -o wide',
    args: (c) => ['get', 'services', '-o', 'wide', ...ns(c)],
    stdout:
      /NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR\ncache\s+ClusterIP\s+[\d.]+\s+<none>\s+6379\/TCP\s+\S+\s+app=cache\nweb\s+ClusterIP\s+[\d.]+\s+<none>\s+80\/TCP\s+\S+\s+app=web\n/,
  },
  {
    id: 'get endpoints',
    args: (c) => ['get', 'endpoints', 'web', ...ns(c)],
    stdout: /NAME\s+ENDPOINTS\s+AGE\nweb\s+[\d.]+:8080,[\d.]+:8080\s/,
    eventually: true,
  },
  {
    id: 'get endpointslices',
    args: (c) => ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', ...ns(c)],
    stdout: /NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\nweb-\S+\s+IPv4\s+8080\s+[\d.]+,[\d.]+\s/,
    eventually: true,
  },
  {
    id: 'describe service',
    args: (c) => ['describe', 'service', 'web', ...ns(c)],
    stdout:
      /Name:\s+web[\s\S]*Selector:\s+app=web[\s\S]*IP:\s+[\d.]+[\s\S]*Endpoints:\s+[\d.]+:8080,[\d.]+:8080/,
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
    id: 'create -f daemonset',
    args: (c) => ['create', '-f', `${c.dir}/agent.yaml`, ...ns(c)],
    stdout: /daemonset\.apps\/agent created/,
  },
  {
    id: 'rollout status daemonset',
    args: (c) => ['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns(c)],
    stdout: /daemon set "agent" successfully rolled out/,
  },
  {
    id: 'set image daemonset',
    args: (c) => ['set', 'image', 'daemonset/agent', 'agent=registry.k8s.io/pause:3.10', ...ns(c)],
    stdout: /daemonset\.apps\/agent image updated/,
  },
  {
    id: 'rollout status daemonset (after update)',
    args: (c) => ['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns(c)],
    stdout: /daemon set "agent" successfully rolled out/,
  },
  {
    id: 'rollout history daemonset',
    args: (c) => ['rollout', 'history', 'daemonset/agent', ...ns(c)],
    stdout: /REVISION\s+CHANGE-CAUSE\n1\s+\S+\n2\s+/,
  },
  {
    id: 'rollout undo daemonset',
    args: (c) => ['rollout', 'undo', 'daemonset/agent', ...ns(c)],
    stdout: /daemonset\.apps\/agent rolled back/,
  },
  {
    id: 'rollout undo daemonset took effect',
    args: (c) => ['rollout', 'status', 'daemonset/agent', '--timeout=60s', ...ns(c)],
    stdout: /daemon set "agent" successfully rolled out/,
  },
  {
    id: 'get daemonsets -o wide',
    args: (c) => ['get', 'daemonsets', '-o', 'wide', ...ns(c)],
    stdout:
      /NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nagent\s+(\d+)\s+\1\s+\1\s+\1\s+\1\s+<none>\s+\S+\s+agent\s+registry\.k8s\.io\/pause:3\.9\s+app=agent/,
    eventually: true,
  },
  {
    id: 'get controllerrevisions',
    args: (c) => ['get', 'controllerrevisions', ...ns(c)],
    stdout:
      /NAME\s+CONTROLLER\s+REVISION\s+AGE\n(agent-\S+\s+daemonset\.apps\/agent\s+[23]\s+\S+\n){2}/,
  },
  {
    id: 'create cronjob',
    args: (c) => [
      'create',
      'cronjob',
      'tick',
      '--image=busybox:1.36',
      '--schedule=*/1 * * * *',
      ...ns(c),
      '--',
      'true',
    ],
    stdout: /cronjob\.batch\/tick created/,
  },
  {
    id: 'get cronjobs',
    args: (c) => ['get', 'cronjobs', ...ns(c)],
    stdout:
      /NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ntick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s/,
  },
  {
    id: 'cronjob creates jobs',
    args: (c) => ['get', 'jobs', ...ns(c)],
    stdout: /\ntick-\d+\s/,
    eventually: true,
  },
  {
    id: 'create job --from=cronjob',
    args: (c) => ['create', 'job', 'by-hand', '--from=cronjob/tick', ...ns(c)],
    stdout: /job\.batch\/by-hand created/,
  },
  {
    id: 'explain cronjob',
    args: () => ['explain', 'cronjob.spec.concurrencyPolicy'],
    stdout: /FIELD:\s+concurrencyPolicy\s+<string>/,
  },
  {
    id: 'apply pvc',
    args: (c) => ['apply', '-f', `${c.dir}/claim.yaml`, ...ns(c)],
    stdout: /persistentvolumeclaim\/data created/,
  },
  {
    id: 'get pvc',
    args: (c) => ['get', 'pvc', ...ns(c)],
    stdout:
      /NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+(VOLUMEATTRIBUTESCLASS\s+)?AGE\ndata\s+Pending\s/,
  },
  {
    id: 'describe pvc',
    args: (c) => ['describe', 'pvc', 'data', ...ns(c)],
    stdout:
      /Status:\s+Pending[\s\S]*FailedBinding\s+\S+\s+persistentvolume-controller\s+no persistent volumes available/,
    eventually: true,
  },
  {
    id: 'get all',
    args: (c) => ['get', 'all', ...ns(c)],
    // Each kind once, in whatever order discovery lists the `all` category.
    stdout:
      /^(?=[\s\S]*\bservice\/web\s)(?=[\s\S]*\bdaemonset\.apps\/agent\s)(?=[\s\S]*\bdeployment\.apps\/web\s)(?=[\s\S]*\bcronjob\.batch\/tick\s)/,
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
