/**
 * The pod subresources a kubelet serves through the apiserver: `log` (GET, plain text) and `exec`,
 * `attach`, `portforward` (upgraded streams). kubesim has no container runtime: a pod that ran as a
 * local process (an image mapped in the sim's `images`) has that process's output as its log; any
 * other container writes one line saying it is simulated. The stream subresources are refused
 * with a Status that says why, for every kubectl.
 */
import { badRequest, notFound } from '../status-errors.js';
import { StatusError, type KObject } from '../types.js';
import type { Target } from './handlers.js';
import { queryFlag, type RequestContext } from './http.js';

/** What discovery lists for each (upstream's kinds and verbs). */
export const POD_STREAMS: Readonly<Record<string, { kind: string; verbs: readonly string[] }>> = {
  log: { kind: 'Pod', verbs: ['get'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
};

/** A pod's local-process output by `namespace/name` and uid; undefined if it ran none. */
export type PodOutput = (podKey: string, uid: string) => string | undefined;

type Obj = Record<string, unknown>;
const containerNames = (pod: KObject, field: string) =>
  ((pod.spec?.[field] as Obj[] | undefined) ?? []).map((c) => String(c['name']));

function chooseContainer(pod: KObject, wanted: string | null): string {
  const name = pod.metadata.name ?? '';
  const names = containerNames(pod, 'containers');
  const all = [...names, ...containerNames(pod, 'initContainers')];
  if (wanted) {
    if (!all.includes(wanted)) throw badRequest(`container ${wanted} is not valid for pod ${name}`);
    return wanted;
  }
  if (names.length === 1) return names[0] ?? '';
  throw badRequest(
    `a container name must be specified for pod ${name}, choose one of: [${names.join(' ')}]`,
  );
}

/** Why a container on a node has no log yet (the kubelet's words), or undefined when it has one. */
function notStarted(pod: KObject, container: string): string | undefined {
  const name = pod.metadata.name ?? '';
  const statuses = [
    ...((pod.status?.['containerStatuses'] as Obj[] | undefined) ?? []),
    ...((pod.status?.['initContainerStatuses'] as Obj[] | undefined) ?? []),
  ];
  const state = (statuses.find((s) => s['name'] === container)?.['state'] ?? {}) as Obj;
  if (state['running'] || state['terminated']) return undefined;
  const waiting = ((state['waiting'] ?? {}) as Obj)['reason'];
  const reason = typeof waiting === 'string' ? waiting : 'ContainerCreating';
  return `container "${container}" in pod "${name}" is waiting to start: ${reason}`;
}

function tail(text: string, query: URLSearchParams): string {
  let out = text;
  const lines = query.get('tailLines');
  if (lines !== null && Number(lines) >= 0) {
    const kept = out.split('\n');
    if (kept.at(-1) === '') kept.pop();
    out =
      kept.slice(kept.length - Number(lines)).join('\n') +
      (kept.length > 0 && Number(lines) > 0 ? '\n' : '');
  }
  const limit = query.get('limitBytes');
  if (limit !== null && Number(limit) > 0)
    out = Buffer.from(out).subarray(0, Number(limit)).toString();
  return out;
}

export function servePodStream(
  ctx: RequestContext,
  t: Target,
  verb: string,
  deps: { pod: KObject | undefined; output?: PodOutput },
): void {
  const name = t.name ?? '';
  const sub = t.subresource ?? '';
  if (!POD_STREAMS[sub]?.verbs.includes(verb)) {
    throw new StatusError(
      405,
      'MethodNotAllowed',
      'the server does not allow this method on the requested resource',
    );
  }
  const pod = deps.pod;
  if (!pod) throw notFound(t.def, name);
  const onNode = Boolean(pod.spec?.['nodeName']);
  if (sub !== 'log') {
    if (!onNode) throw badRequest(`pod ${name} does not have a host assigned`);
    throw badRequest(
      `kubesim runs no container runtime: ${sub} is not available for pod ${name} (its containers are simulated; kubectl logs works)`,
    );
  }
  const container = chooseContainer(pod, ctx.query.get('container'));
  // A pod no node has taken yet has no log: an empty answer, as upstream's.
  if (!onNode) return void ctx.res.writeHead(204).end();
  if (queryFlag(ctx.query, 'previous')) {
    throw badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  }
  const waiting = notStarted(pod, container);
  if (waiting) throw badRequest(waiting);
  const key = `${pod.metadata.namespace ?? ''}/${name}`;
  const output =
    deps.output?.(key, pod.metadata.uid ?? '') ??
    `[kubesim] container ${container} of pod ${name} is simulated: it runs no process and writes no output\n`;
  const body = tail(output, ctx.query);
  ctx.res.writeHead(200, {
    'Content-Type': 'text/plain',
    'Content-Length': Buffer.byteLength(body),
  });
  ctx.res.end(body);
}
