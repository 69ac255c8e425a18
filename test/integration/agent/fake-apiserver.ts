/**
 * A tiny HTTPS Kubernetes API for the agent's tests, standing in until the sim's HTTP API serves
 * nodes: GET and merge-PATCH of one Node, bearer-token auth, TLS from the sim's throwaway CA, a
 * record of every write, and injected failures.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serverTls } from '../../../src/sim/tls.js';

export interface NodeMeta {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface Write {
  contentType: string | undefined;
  body: unknown;
  before: NodeMeta;
  after: NodeMeta;
}

export interface FakeApi {
  readonly url: string;
  readonly caPem: string;
  /** Tokens the server accepts; the agent must present one of them. */
  readonly tokens: Set<string>;
  node(): NodeMeta;
  setNode(meta: NodeMeta): void;
  writes(): readonly Write[];
  clearWrites(): void;
  reads(): number;
  /** The next `count` requests fail with `code`. */
  failNext(count: number, code?: number): void;
  /** Answer every request this much later (keeps curl alive long enough to be measured). */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

function mergePatch(target: Record<string, string>, patch: Record<string, string | null>) {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete target[k];
    else target[k] = v;
  }
}

export async function startFakeApi(nodeName: string, token: string): Promise<FakeApi> {
  const tls = serverTls();
  const tokens = new Set([token]);
  let meta: NodeMeta = { labels: { 'kubernetes.io/hostname': nodeName }, annotations: {} };
  const writes: Write[] = [];
  let reads = 0;
  let failures = 0;
  let failCode = 500;
  let delayMs = 0;
  const path = `/api/v1/nodes/${nodeName}`;
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => answer(), delayMs));
    const answer = () => {
      const send = (code: number, body: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const status = (code: number, reason: string, message: string) =>
        send(code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code });
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !tokens.has(auth.slice(7))) {
        return status(401, 'Unauthorized', 'Unauthorized');
      }
      if (failures > 0) {
        failures -= 1;
        return status(failCode, 'InternalError', 'injected failure');
      }
      if (req.url !== path) return status(404, 'NotFound', `nodes "${req.url}" not found`);
      const object = () => ({
        kind: 'Node',
        apiVersion: 'v1',
        metadata: { name: nodeName, labels: meta.labels, annotations: meta.annotations },
        spec: { podCIDR: '10.0.0.0/24' },
        status: { nodeInfo: { kubeletVersion: 'v1.31.2', bootID: 'b-1' } },
      });
      if (req.method === 'GET') {
        reads += 1;
        return send(200, object());
      }
      if (req.method === 'PATCH') {
        const contentType = req.headers['content-type'];
        if (contentType !== 'application/merge-patch+json') {
          return status(415, 'UnsupportedMediaType', `unsupported ${contentType}`);
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          metadata?: {
            labels?: Record<string, string | null>;
            annotations?: Record<string, string | null>;
          };
        };
        const before = structuredClone(meta);
        mergePatch(meta.labels, body.metadata?.labels ?? {});
        mergePatch(meta.annotations, body.metadata?.annotations ?? {});
        writes.push({ contentType, body, before, after: structuredClone(meta) });
        return send(200, object());
      }
      return status(405, 'MethodNotAllowed', 'method not allowed');
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: tls.caPem,
    tokens,
    node: () => structuredClone(meta),
    setNode: (m) => (meta = structuredClone(m)),
    writes: () => writes,
    clearWrites: () => (writes.length = 0),
    reads: () => reads,
    failNext: (count, code = 500) => {
      failures = count;
      failCode = code;
    },
    setDelay: (ms) => (delayMs = ms),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
