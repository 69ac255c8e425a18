/**
 * Benchmark: an `eks` cluster's first tick on a cold tick Lambda (issue 36), from the packaged bundle
 * (`.serverless/bundles/tick`, what Lambda runs), each run a fresh Node process: the entry imported,
 * the config read from SSM, the EKS token presigned with the environment's credentials (as Lambda
 * hands them over) and the tick run to its end. Everything it reaches is on loopback:
 * - SSM at the AWS stand-in (test/support/aws-stub.ts), which holds the config;
 * - the cluster's endpoint, an HTTPS stand-in that does what EKS's authenticator does: it decodes the
 *   `k8s-aws-v1.` bearer token and replays the presigned GetCallerIdentity at the STS stand-in
 *   (test/support/aws-identity-stub.ts), which checks the SigV4 presign the way STS does; only a
 *   token that verifies is let through, to a fresh embedded sim (demo scenario, controllers off).
 * The child's credentials are in its environment, its HOME and AWS config files are empty, instance
 * metadata is disabled, and a guard loaded first fails the run if anything connects beyond loopback:
 * the SDK's chain stops at the environment and nothing leaves the machine.
 * Figures per tree, medians of interleaved runs (bare Node in between, as the baseline): wall and CPU
 * of the child from its start to the tick's end, and when the first authenticated Kubernetes request
 * arrived. Give a second tree (KUBEMAINT_BENCH_BASELINE, or the second argument) to compare another
 * commit's code under the same load: `npx tsx bench/eks-first-tick.ts 7 /path/to/other/worktree`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startAwsStub } from '../test/support/aws-stub.js';
import { KEYS, SESSION_TOKEN, startIdentityStub } from '../test/support/aws-identity-stub.js';
import { startTestSim } from '../test/support/sim.js';
import { COUNTER, median, round, runsArgument } from './functions-cold.js';

export interface EksTickRow {
  /** `bare node`, or the tree (its folder and commit). */
  name: string;
  /** Child's own clock at the tick's end (bare: its first line), median. */
  doneAtMs: number;
  /** Its CPU time (user + system) to that point, median. */
  cpuMs: number;
  /** From spawn to the first Kubernetes request whose EKS token verified, median. */
  firstAuthMs?: number;
  /** The child's first connection to the cluster, token signed: its clock and its CPU by then. */
  connect?: { atMs: number; cpuMs: number };
  /** Modules loaded to the tick's end: node built-ins and files, and the files' bytes. */
  loaded: { modules: number; files: number; bytes: number };
  /** Spawn to exit, median. */
  wallMs: number;
  /** Each run's tick done at, and its CPU: the spread behind the medians. */
  runs: number[];
  cpuRuns: number[];
}

export interface EksTickFigures {
  runs: number;
  rows: EksTickRow[];
  /** Kubernetes requests of one first tick, per tree (all authenticated). */
  requests: Record<string, number>;
}

const CLUSTER = 'bench-eks';
const REGION = 'eu-west-1';
const CONFIG_PARAMETER = '/kubemaint/bench/config';
const scheduledEvent = {
  version: '0',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  region: REGION,
  detail: {},
};

const bundleOf = (tree: string): string =>
  resolve(tree, '.serverless', 'bundles', 'tick', 'functions', 'tick.mjs');

/** Fails the process on any connection beyond loopback (loaded before the code under test). */
const GUARD = `import net from 'node:net';
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const o = typeof args[0] === 'object' && args[0] !== null ? (Array.isArray(args[0]) ? args[0][0] : args[0]) : { host: args[1] };
  const host = o.path ? 'unix' : String(o.host ?? 'localhost');
  if (!['127.0.0.1', '::1', 'localhost', 'unix'].includes(host)) {
    process.stderr.write('connection beyond loopback: ' + host + '\\n'); process.exit(3);
  }
  // The first connection to the cluster: its token is signed by now (client-node signs, then connects).
  if (String(o.port) === process.env.KUBEMAINT_BENCH_EKS_PORT && !globalThis.__eks)
    globalThis.__eks = { at: performance.now(), cpu: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
  return connect.apply(this, args);
};`;

const REPORT = `process.stdout.write('\\n' + JSON.stringify({ at: performance.now(),
  cpu: (process.cpuUsage().user + process.cpuUsage().system) / 1000, eks: globalThis.__eks,
  loaded: globalThis.__loaded?.() }) + '\\n');
  process.exit(0);`;

const tickCode = (bundle: string): string =>
  `const { handler } = await import(${JSON.stringify(bundle)});
   const summary = await handler(${JSON.stringify(scheduledEvent)}, {});
   if (summary.kind !== 'tick' || summary.counts.proposed !== 2)
     throw new Error('unexpected tick: ' + JSON.stringify(summary));`;

interface Sample {
  wallMs: number;
  at: number;
  cpu: number;
  /** The child's first connection to the cluster (its clock, its CPU by then). */
  eks?: { at: number; cpu: number };
  /** Modules loaded (the warm-up round counts them: the hooks cost time, so not when measured). */
  loaded?: { modules: number; files: number; bytes: number };
  firstAuthMs?: number;
}

/** An HTTPS stand-in for the EKS endpoint: the token checked at STS, then the sim behind it. */
async function startEksFront(
  stsUrl: string,
  dir: string,
): Promise<{
  url: string;
  caData: string;
  route(to: { url: string; caPem: string; token: string } | undefined): void;
  /** performance.now() of each authenticated request since the last route(). */
  authenticated: number[];
  rejected: string[];
  close(): Promise<void>;
}> {
  const key = join(dir, 'front.key');
  const cert = join(dir, 'front.crt');
  const made = spawnSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=eks-stand-in'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
  let sim: { url: string; caPem: string; token: string } | undefined;
  const authenticated: number[] = [];
  const rejected: string[] = [];
  const verifiedTokens = new Set<string>();

  /** What aws-iam-authenticator does with a token: GET the presigned URL, x-k8s-aws-id set. */
  const verify = (token: string): Promise<boolean> => {
    if (verifiedTokens.has(token)) return Promise.resolve(true);
    if (!token.startsWith('k8s-aws-v1.')) return Promise.resolve(false);
    const presigned = new URL(Buffer.from(token.slice(11), 'base64url').toString('utf8'));
    if (presigned.hostname !== `sts.${REGION}.amazonaws.com`) return Promise.resolve(false);
    return new Promise((done) => {
      const replay = httpRequest(
        `${stsUrl}${presigned.pathname}${presigned.search}`,
        { headers: { host: presigned.host, 'x-k8s-aws-id': CLUSTER } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) verifiedTokens.add(token);
            done(res.statusCode === 200);
          });
        },
      );
      replay.on('error', () => done(false));
      replay.end();
    });
  };

  const server: Server = createServer(
    { key: readFileSync(key), cert: readFileSync(cert) },
    (req, res) => {
      const at = performance.now();
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      void verify(token).then((ok) => {
        if (!ok || !sim) {
          rejected.push(`${req.method} ${req.url}`);
          res.writeHead(401, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              kind: 'Status',
              status: 'Failure',
              reason: 'Unauthorized',
              code: 401,
            }),
          );
          return;
        }
        authenticated.push(at);
        const headers = { ...req.headers, authorization: `Bearer ${sim.token}` };
        delete headers.host;
        const upstream = httpsRequest(
          `${sim.url}${req.url}`,
          { method: req.method, headers, ca: sim.caPem },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', (error) => res.writeHead(502).end(String(error)));
        req.pipe(upstream);
      });
    },
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caData: readFileSync(cert).toString('base64'),
    route(to) {
      sim = to;
      authenticated.length = 0;
    },
    authenticated,
    rejected,
    close: () =>
      new Promise<void>((done, fail) => {
        server.closeAllConnections();
        server.close((error) => (error ? fail(error) : done()));
      }),
  };
}

function runChild(args: string[], env: NodeJS.ProcessEnv): Promise<Sample & { started: number }> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return fail(new Error(`child failed (${code}): ${err.trim()}${out.trim()}`));
      const last = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<Sample, 'wallMs'>;
      done({ wallMs, started, ...last });
    });
  });
}

function treeName(tree: string): string {
  const head = spawnSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return `${basename(resolve(tree))} @ ${head.stdout.trim() || '?'}`;
}

/** `npm run package` in each tree, so each bundle is built from that tree's code as it is now. */
export function packageTrees(trees: readonly string[]): void {
  for (const tree of trees) {
    const packaged = spawnSync(process.execPath, ['scripts/package.mjs'], {
      cwd: resolve(tree),
      encoding: 'utf8',
    });
    if (packaged.status !== 0 || !existsSync(bundleOf(tree)))
      throw new Error(`npm run package failed in ${tree}: ${packaged.stdout}${packaged.stderr}`);
  }
}

export async function runEksFirstTickBench(
  runs = 7,
  trees: readonly string[] = ['.'],
): Promise<EksTickFigures> {
  const missing = trees.filter((tree) => !existsSync(bundleOf(tree)));
  if (missing.length > 0)
    throw new Error(`no tick bundle in ${missing.join(', ')}: run \`npm run package\` there first`);
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-eks-tick-'));
  const sts = await startIdentityStub();
  const front = await startEksFront(sts.url, dir);
  const config = [
    'cluster:',
    '  type: eks',
    '  eks:',
    `    name: ${CLUSTER}`,
    `    region: ${REGION}`,
    `    endpoint: ${front.url}`,
    `    caData: ${front.caData}`,
    '',
  ].join('\n');
  const aws = await startAwsStub({ [CONFIG_PARAMETER]: config });
  const guard = join(dir, 'guard.mjs');
  writeFileSync(guard, GUARD);
  const counter = join(dir, 'counter.mjs');
  writeFileSync(counter, COUNTER);
  const home = join(dir, 'home');
  // Lambda's environment: its role's credentials and region; nothing of this machine's AWS setup.
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && k !== 'NODE_OPTIONS'),
  );
  Object.assign(env, {
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-bench-tick',
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: KEYS.env.accessKeyId,
    AWS_SECRET_ACCESS_KEY: KEYS.env.secretAccessKey,
    AWS_SESSION_TOKEN: `${SESSION_TOKEN}env`,
    AWS_ENDPOINT_URL_SSM: aws.url,
    KUBEMAINT_BENCH_EKS_PORT: new URL(front.url).port,
    KUBEMAINT_CONFIG_YAML_SSM_PARAMETER: CONFIG_PARAMETER,
    LOG_LEVEL: 'silent',
  });
  const variants = [
    { name: 'bare node', code: '', tree: undefined },
    ...trees.map((tree) => ({ name: treeName(tree), code: tickCode(bundleOf(tree)), tree })),
  ];
  const samples = variants.map(() => [] as Sample[]);
  const loaded: NonNullable<Sample['loaded']>[] = [];
  const requests: Record<string, number> = {};
  try {
    // One unmeasured round warms the file cache; then the variants interleaved, a fresh sim each.
    for (let i = -1; i < runs; i++) {
      for (const [v, variant] of variants.entries()) {
        const sim = variant.tree === undefined ? undefined : await freshSim();
        front.route(sim);
        try {
          const hooks = i < 0 ? ['--import', counter] : [];
          const sample = await runChild(
            ['--import', guard, ...hooks, '--input-type=module', '-e', variant.code + REPORT],
            env,
          );
          if (i < 0) loaded[v] = sample.loaded!;
          const first = front.authenticated[0];
          if (variant.tree !== undefined) {
            if (first === undefined) throw new Error(`${variant.name}: no authenticated request`);
            requests[variant.name] = front.authenticated.length;
          }
          if (i >= 0)
            samples[v]!.push({
              ...sample,
              ...(first === undefined ? {} : { firstAuthMs: first - sample.started }),
            });
        } finally {
          front.route(undefined);
          await sim?.close();
        }
      }
    }
    if (front.rejected.length > 0)
      throw new Error(`the EKS stand-in refused: ${front.rejected.join(', ')}`);
    const verifiedBy = new Set(sts.verified.map((v) => `${v.api}:${v.source}:${v.cluster}`));
    if (verifiedBy.size !== 1 || !verifiedBy.has(`eks-token:env:${CLUSTER}`))
      throw new Error(`unexpected STS verifications: ${[...verifiedBy].join(', ')}`);
  } finally {
    await Promise.all([front.close(), sts.close(), aws.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    runs,
    requests,
    rows: variants.map((variant, v) => {
      const s = samples[v]!;
      const auth = s.flatMap((x) => (x.firstAuthMs === undefined ? [] : [x.firstAuthMs]));
      return {
        name: variant.name,
        doneAtMs: round(median(s.map((x) => x.at))),
        cpuMs: round(median(s.map((x) => x.cpu))),
        ...(auth.length > 0 ? { firstAuthMs: round(median(auth)) } : {}),
        ...(s[0]?.eks
          ? {
              connect: {
                atMs: round(median(s.map((x) => x.eks!.at))),
                cpuMs: round(median(s.map((x) => x.eks!.cpu))),
              },
            }
          : {}),
        wallMs: round(median(s.map((x) => x.wallMs))),
        runs: s.map((x) => round(x.at)),
        cpuRuns: s.map((x) => round(x.cpu)),
        loaded: loaded[v]!,
      };
    }),
  };
}

/** A demo cluster, as new (the same two nodes to propose each time), and how to reach it as admin. */
async function freshSim(): Promise<{
  url: string;
  caPem: string;
  token: string;
  close(): Promise<void>;
}> {
  const sim = await startTestSim({ scenario: 'demo', controllers: false });
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  return {
    url: sim.url,
    caPem: sim.credentials.caPem,
    token: kc.getCurrentUser()?.token ?? '',
    close: () => sim.close(),
  };
}

export function eksTickTable(f: EksTickFigures): string {
  const bare = f.rows[0]!;
  return [
    `| what (fresh Node process, median of ${f.runs}) | tick done at (ms since process start) | over bare node | CPU to then | token signed, first connection to the cluster at (ms since start) | CPU to then | first authenticated Kubernetes request (ms since spawn) | Kubernetes requests | modules loaded (files, bytes) |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...f.rows.map(
      (r) =>
        `| ${r.name} | ${r.doneAtMs} | ${r === bare ? '-' : `+${round(r.doneAtMs - bare.doneAtMs)}`} | ${r.cpuMs} ms | ${r.connect?.atMs ?? '-'} | ${r.connect ? `${r.connect.cpuMs} ms` : '-'} | ${r.firstAuthMs ?? '-'} | ${f.requests[r.name] ?? '-'} | ${r.loaded.modules} (${r.loaded.files}, ${Math.round(r.loaded.bytes / 1024)} KiB) |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const runs = runsArgument(7);
  const other = process.argv[3] ?? process.env.KUBEMAINT_BENCH_BASELINE;
  const trees = other ? [other, '.'] : ['.'];
  const figures = await runEksFirstTickBench(runs, trees);
  process.stdout.write(`${eksTickTable(figures)}\n\nnode ${process.version}\n`);
}
