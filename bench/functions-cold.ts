/**
 * Benchmark: the Lambda cold start, from the bundles `npm run package` built and unzipped (what Lambda
 * downloads): a fresh Node process importing each entry (`await import(bundle)`, what a cold start
 * pays before the handler runs), and the Slack function's cold acknowledgement (ADR 0018: import,
 * then a signed slash command answered, with its signing secret read from SSM and the asynchronous
 * invocation queued, both at a local AWS stand-in), each against a bare Node process. Variants are
 * interleaved so machine load hits each alike; medians of N runs. Because a shared machine's wall
 * time wanders, it also reports each as a ratio to bare Node and counts what was loaded (modules,
 * files, bytes), which does not wander at all.
 * Run: `npm run package && npx tsx bench/functions-cold.ts [runs]`. Prints a markdown table.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAwsStub, type AwsStub } from '../test/support/aws-stub.js';
import { slackHeaders, slashCommandBody } from '../test/support/slack-sign.js';

export interface ColdRow {
  name: string;
  /** Wall time of the child process, median. */
  medianMs: number;
  /** The median minus bare Node's: what the bundle itself costs. */
  overBareMs: number;
  /** Median ÷ bare Node's median. */
  ratio: number;
  /** When the child's own work ended, in ms since its process started (bare: its first line). */
  readyAtMs: number;
  /** CPU time (user + system) of the child, median: steadier than wall time on a busy machine. */
  medianCpuMs: number;
  loaded: { modules: number; files: number; bytes: number };
  runs: number[];
}

const SECRET = 'bench-signing-secret-0123456789abcdef';
const bundlePath = (name: string): string =>
  resolve('.serverless', 'bundles', name, 'functions', `${name}.mjs`);

/** Each child prints, on its last stdout line: when its work ended, its CPU time, what it loaded. */
const REPORT = `process.stdout.write('\\n' + JSON.stringify({ at: performance.now(),
  cpu: (process.cpuUsage().user + process.cpuUsage().system) / 1000, loaded: globalThis.__loaded?.() }));`;

/** Counts every module the child loads (Node's synchronous module hooks; node: built-ins too). */
export const COUNTER = `import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { const r = next(url, context);
  seen.push([url, r.source ? r.source.length : 0]); return r; } });
globalThis.__loaded = () => { const files = seen.filter(([u]) => u.startsWith('file:'));
  return { modules: seen.length, files: files.length, bytes: files.reduce((s, [, b]) => s + b, 0) }; };
`;

interface Sample {
  wallMs: number;
  at: number;
  cpu: number;
  loaded?: ColdRow['loaded'];
}

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return fail(new Error(`node ${args.join(' ')} failed: ${err.trim()}`));
      const last = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<Sample, 'wallMs'>;
      done({ wallMs, ...last });
    });
  });
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
export const round = (ms: number): number => Math.round(ms * 10) / 10;

/** A bench's run count from its first argument (`npx tsx bench/X.ts [runs]`); exits 2 on a bad one. */
export function runsArgument(fallback: number): number {
  const runs = Number(process.argv[2] ?? fallback);
  if (!Number.isInteger(runs) || runs < 1) {
    process.stderr.write(`runs must be a positive integer, got ${process.argv[2]}\n`);
    process.exit(2);
  }
  return runs;
}

/** A signed `/maint approve` as API Gateway hands it over; fresh, so its signature is in time. */
function slashEvent(): Record<string, unknown> {
  const body = slashCommandBody({
    command: '/maint',
    text: 'approve r-abc123',
    userId: 'U0ALICE',
    channelId: 'C0MAINT',
    responseUrl: 'http://127.0.0.1:9/response',
  });
  const headers = Object.fromEntries(
    Object.entries(slackHeaders(SECRET, body)).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return {
    version: '2.0',
    routeKey: 'POST /slack/events',
    rawPath: '/slack/events',
    headers,
    requestContext: { http: { method: 'POST', path: '/slack/events' }, stage: '$default' },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  };
}

export async function runFunctionsColdBench(runs = 15): Promise<ColdRow[]> {
  const missing = ['tick', 'slack'].filter((name) => !existsSync(bundlePath(name)));
  if (missing.length > 0) {
    throw new Error(
      `no bundle for ${missing.join(', ')} under .serverless/bundles: run \`npm run package\` first`,
    );
  }
  const aws: AwsStub = await startAwsStub({ '/kubemaint/bench/slack-signing-secret': SECRET });
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-cold-'));
  const counter = join(dir, 'counter.mjs');
  writeFileSync(counter, COUNTER);
  const env = {
    AWS_LAMBDA_FUNCTION_NAME: 'kubemaint-bench-slack',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'secret',
    AWS_ENDPOINT_URL_SSM: aws.url,
    AWS_ENDPOINT_URL_LAMBDA: aws.url,
    SLACK_SIGNING_SECRET_SSM_PARAMETER: '/kubemaint/bench/slack-signing-secret',
    LOG_LEVEL: 'silent',
  };
  const module = (code: string) => ['--input-type=module', '-e', code];
  const importOf = (name: string) => `await import(${JSON.stringify(bundlePath(name))});`;
  const variants: { name: string; code: () => string }[] = [
    { name: 'bare node', code: () => '' },
    { name: 'tick: import', code: () => importOf('tick') },
    { name: 'slack: import', code: () => importOf('slack') },
    {
      name: 'slack: cold ack (import, SSM read, Invoke queued, 200)',
      code: () =>
        `const { handler } = ${importOf('slack').replace(/;$/, '')};
         const answer = await handler(${JSON.stringify(slashEvent())}, {});
         if (answer.statusCode !== 200) throw new Error('answered ' + answer.statusCode);`,
    },
  ];
  try {
    const samples = variants.map(() => [] as Sample[]);
    for (const variant of variants) await runNode(module(variant.code() + REPORT), env); // warm the file cache
    for (let i = 0; i < runs; i++) {
      for (const [v, variant] of variants.entries())
        samples[v]!.push(await runNode(module(variant.code() + REPORT), env));
    }
    const loaded = await Promise.all(
      variants.map(
        async (variant) =>
          (await runNode(['--import', counter, ...module(variant.code() + REPORT)], env)).loaded!,
      ),
    );
    const bare = median(samples[0]!.map((s) => s.wallMs));
    return variants.map((variant, v) => {
      const wall = samples[v]!.map((s) => s.wallMs);
      return {
        name: variant.name,
        medianMs: round(median(wall)),
        overBareMs: round(median(wall) - bare),
        ratio: Math.round((median(wall) / bare) * 100) / 100,
        readyAtMs: round(median(samples[v]!.map((s) => s.at))),
        medianCpuMs: round(median(samples[v]!.map((s) => s.cpu))),
        loaded: loaded[v]!,
        runs: wall.map(round),
      };
    });
  } finally {
    await aws.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function markdownTable(rows: readonly ColdRow[], runs: number): string {
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  return [
    `| what (fresh Node process) | wall, median of ${runs} | over bare node | ÷ bare node | work done at (ms since process start) | CPU | modules loaded (files, bytes) |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.medianMs} ms | ${r.name === 'bare node' ? '-' : `+${r.overBareMs} ms`} | ${r.ratio} | ${r.readyAtMs} | ${r.medianCpuMs} ms | ${r.loaded.modules} (${r.loaded.files}, ${kib(r.loaded.bytes)}) |`,
    ),
  ].join('\n');
}

if (import.meta.url === `file://${resolve(process.argv[1] ?? '')}`) {
  const runs = runsArgument(15);
  const rows = await runFunctionsColdBench(runs);
  process.stdout.write(`${markdownTable(rows, runs)}\n\nnode ${process.version}\n`);
}
