/**
 * Regenerates src/api/openapi/documents.gen.ts: the OpenAPI documents kubesim serves, fetched from a
 * real kube-apiserver and filtered to what kubesim serves (the built-in kinds of src/resources.ts,
 * their subresources, and every schema those paths reach). Nothing in them is written by hand.
 *
 *   npm run real-cluster -- up --dir .kubemaint/rc-openapi --port 36443
 *   npx tsx packages/kubesim/scripts/fetch-openapi.ts .kubemaint/rc-openapi/admin.kubeconfig
 *   npm run real-cluster -- down --dir .kubemaint/rc-openapi
 *
 * Run it again after adding a kind or a subresource (a test fails until then). /openapi/v2 is also
 * kept in its protobuf form (kubectl 1.27 and 1.28 ask for nothing else), made from the filtered JSON
 * by gnostic as kube-apiserver makes it (scripts/go/openapi-v2-proto).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { KubeConfig } from '@kubernetes/client-node';
import { allResources, type ResourceDef } from '../src/resources.js';

type Json = Record<string, unknown>;
const here = dirname(fileURLToPath(import.meta.url));
const OUT = join(here, '../src/api/openapi/documents.gen.ts');

const kubeconfig = process.argv[2];
if (!kubeconfig) {
  process.stderr.write(
    'usage: tsx packages/kubesim/scripts/fetch-openapi.ts <admin kubeconfig of a real apiserver>\n',
  );
  process.exit(2);
}
const kc = new KubeConfig();
kc.loadFromFile(kubeconfig);

async function get(path: string): Promise<string> {
  const server = kc.getCurrentCluster()?.server ?? '';
  const opts: Parameters<typeof request>[1] = { headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    request(`${server}${path}`, opts, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(text)
          : reject(new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

const defs = allResources();
const gvPath = (d: Pick<ResourceDef, 'group' | 'version'>) =>
  d.group === '' ? `api/${d.version}` : `apis/${d.group}/${d.version}`;

/** Whether kubesim serves an API path of the documents (its plural, and subresource if any). */
function served(path: string): boolean {
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/?(.*)$/.exec(path);
  if (!m) return false;
  const [, coreVersion, group = '', groupVersion, rest = ''] = m;
  const version = coreVersion ?? groupVersion ?? '';
  let segments = rest.split('/').filter((s) => s !== '');
  if (segments.length === 0) return defs.some((d) => d.group === group && d.version === version);
  if (segments[0] === 'watch') return false; // deprecated watch paths: kubesim serves ?watch=1 only
  if (segments[0] === 'namespaces' && segments[1] === '{namespace}') segments = segments.slice(2);
  const [plural, , sub] = segments;
  const def = defs.find((d) => d.group === group && d.version === version && d.plural === plural);
  return def !== undefined && (sub === undefined || def.subresources.includes(sub));
}

/** The names a value refers to with `$ref: "#/<section>/<name>"`, by section. */
function refs(value: unknown, into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  if (Array.isArray(value)) for (const v of value) refs(v, into);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Json)) {
      if (k === '$ref' && typeof v === 'string') {
        const at = v.lastIndexOf('/');
        const section = v.slice(2, at);
        if (!into.has(section)) into.set(section, new Set());
        into.get(section)!.add(v.slice(at + 1));
      } else refs(v, into);
    }
  }
  return into;
}

/** The paths kubesim serves and, from `sections`, what they reach (transitively). */
function filterDocument(doc: Json, sections: readonly string[]): Json {
  const paths = Object.fromEntries(
    Object.entries(doc['paths'] as Json).filter(([path]) => served(path)),
  );
  const pick = (section: string): Json | undefined =>
    section.split('/').reduce<Json | undefined>((o, k) => o?.[k] as Json | undefined, doc);
  const kept = new Map<string, Set<string>>(sections.map((s) => [s, new Set<string>()]));
  let frontier = refs(paths);
  while (frontier.size > 0) {
    const next = new Map<string, Set<string>>();
    for (const [section, names] of frontier) {
      const have = kept.get(section);
      if (!have) continue;
      for (const name of names) {
        if (have.has(name)) continue;
        have.add(name);
        refs(pick(section)?.[name], next);
      }
    }
    frontier = next;
  }
  const out: Json = { ...doc, paths };
  for (const section of sections) {
    const all = pick(section) ?? {};
    const names = [...(kept.get(section) ?? [])].sort();
    const filtered = Object.fromEntries(names.map((n) => [n, all[n]]));
    if (section.includes('/')) {
      const [top = '', inner = ''] = section.split('/');
      out[top] = { ...(doc[top] as Json), [inner]: filtered };
    } else out[section] = filtered;
  }
  return out;
}

const version = JSON.parse(await get('/version')) as { gitVersion: string };
const v2 = filterDocument(JSON.parse(await get('/openapi/v2')) as Json, [
  'definitions',
  'parameters',
]);
const v2Json = JSON.stringify(v2);
const v2Protobuf = execFileSync('go', ['run', './openapi-v2-proto'], {
  cwd: join(here, 'go'),
  input: v2Json,
  env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod' },
  maxBuffer: 64 * 1024 * 1024,
});
const index = JSON.parse(await get('/openapi/v3')) as { paths: Record<string, unknown> };
const v3: Record<string, Json> = {};
for (const gv of [...new Set(defs.map(gvPath))].sort()) {
  if (!(gv in index.paths)) throw new Error(`the apiserver publishes no OpenAPI v3 for ${gv}`);
  v3[gv] = filterDocument(JSON.parse(await get(`/openapi/v3/${gv}`)) as Json, [
    'components/schemas',
  ]);
}

// One brotli stream with a 16 MB window: the documents repeat each other's schemas, which a
// window that large finds (a third of the size of three gzip streams). Each part is its byte length
// (4 bytes, big-endian) and its bytes.
const parts = [Buffer.from(v2Json), Buffer.from(JSON.stringify(v3)), v2Protobuf].flatMap((part) => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(part.length);
  return [length, part];
});
const packed = brotliCompressSync(Buffer.concat(parts), {
  params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_LGWIN]: 24 },
}).toString('base64');
writeFileSync(
  OUT,
  `// Generated by packages/kubesim/scripts/fetch-openapi.ts from kube-apiserver ${version.gitVersion}. Do not edit.

/** The apiserver the documents come from. */
export const SOURCE_VERSION = ${JSON.stringify(version.gitVersion)};

/**
 * Brotli, base64: three parts, each a 4-byte big-endian length and its bytes: /openapi/v2 as JSON,
 * { [group-version path, e.g. "apis/apps/v1"]: its /openapi/v3 document } as JSON, and /openapi/v2
 * in gnostic's protobuf form; all filtered to kubesim's kinds.
 */
export const DOCUMENTS = ${JSON.stringify(packed)};
`,
);
process.stderr.write(
  `wrote ${OUT}: v2 ${Object.keys(v2['paths'] as Json).length} paths, ${Object.keys(v2['definitions'] as Json).length} definitions; v3 ${Object.keys(v3).length} group versions (from ${version.gitVersion})\n`,
);
