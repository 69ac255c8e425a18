// `npm run package`: packages the Lambda service with osls fully offline (no AWS credentials, a
// scratch HOME, no telemetry), then checks what it made: one zip per function holding its ESM
// bundle, the CloudFormation template's schedule rules, HTTP API route, runtime and least-privilege
// IAM, each bundle and its chunks importable by Node, each function's zip under the size budget, and the
// Slack entry's static imports (all it loads before acknowledging, ADR 0018) under theirs. Prints a table;
// exits non-zero naming what is wrong. Bundles are unpacked to .serverless/bundles/ for the
// cold-import benchmark (bench/functions-cold.ts). Decisions: docs/adr/0005-lambda-packaging.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const STAGE = 'ci';
const REGION = 'us-east-1';
const OUT = '.serverless';
/** What Lambda downloads on a cold start: the deployment zip of each function. */
const MAX_ZIP_BYTES = 1.5 * 1024 * 1024;
/**
 * What the Slack function loads before it can acknowledge (ADR 0018): its entry and the chunks that
 * entry imports statically. Bolt, the Kubernetes client and the control plane come later, by import().
 */
const MAX_ACK_PATH_BYTES = 256 * 1024;
const FUNCTIONS = {
  tick: { entry: 'functions/tick.mjs' },
  slack: { entry: 'functions/slack.mjs', ackPathBudget: MAX_ACK_PATH_BYTES },
};

const started = performance.now();
const problems = [];
const problem = (text) => problems.push(text);

rmSync(OUT, { recursive: true, force: true });
runOsls();
const template = readJson(join(OUT, 'cloudformation-template-update-stack.json'));
const rows = Object.entries(FUNCTIONS).map(([name, fn]) => checkFunction(name, fn));
if (template) checkTemplate(template);
printTable(rows);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (problems.length > 0) {
  console.error(`\nnpm run package: ${problems.length} problem(s) (${seconds} s):`);
  for (const text of problems) console.error(`  - ${text}`);
  process.exit(1);
}
console.log(`\nnpm run package: ok (${seconds} s)`);

function runOsls() {
  const home = mkdtempSync(join(tmpdir(), 'kubemaint-package-'));
  const env = { ...process.env };
  // No way to reach AWS: packaging must not depend on credentials (serverless.yml uses none).
  for (const key of Object.keys(env)) if (/^AWS_/.test(key)) delete env[key];
  Object.assign(env, {
    HOME: home,
    AWS_PROFILE: 'nonexistent',
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
    AWS_CONFIG_FILE: join(home, 'no-config'),
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    npm_config_update_notifier: 'false',
  });
  const result = spawnSync('npx', ['osls', 'package', '--stage', STAGE, '--region', REGION], {
    env,
    encoding: 'utf8',
  });
  rmSync(home, { recursive: true, force: true });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    console.error(`\nnpm run package: osls package failed (exit ${result.status})`);
    process.exit(1);
  }
}

function checkFunction(name, fn) {
  const zipPath = join(OUT, `${name}.zip`);
  let zip;
  try {
    zip = readFileSync(zipPath);
  } catch {
    problem(`${name}: ${zipPath} is missing (is it listed under functions: in serverless.yml?)`);
    return { name, zipped: 0, unzipped: 0, files: 0 };
  }
  const entries = readZip(zip);
  const unzipped = entries.reduce((sum, e) => sum + e.data.length, 0);
  const bundleDir = join(OUT, 'bundles', name);
  for (const entry of entries) {
    const path = join(bundleDir, entry.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, entry.data);
  }
  const bundle = entries.find((e) => e.name === fn.entry);
  let ackPath;
  if (!bundle) {
    problem(`${name}: ${fn.entry} is not in ${zipPath} (has: ${entries.map((e) => e.name)})`);
  } else {
    checkImport(name, join(bundleDir, fn.entry), { handler: true });
    // Chunks load later (import()), on a warm path a cold-start check would never reach.
    for (const chunk of entries.filter((e) => e.name !== fn.entry && e.name.endsWith('.mjs')))
      checkImport(`${name} (${chunk.name})`, join(bundleDir, chunk.name), { handler: false });
    if (fn.ackPathBudget) {
      ackPath = staticImports(entries, fn.entry);
      if (ackPath.bytes > fn.ackPathBudget) {
        problem(
          `${name}: the entry and what it imports statically are ${kib(ackPath.bytes)}, over the ` +
            `${kib(fn.ackPathBudget)} it may load before acknowledging (${ackPath.files.join(', ')}); ` +
            'import the heavy part with import() after the ack (ADR 0018)',
        );
      }
    }
  }
  if (zip.length > MAX_ZIP_BYTES) {
    problem(
      `${name}: the zip is ${mib(zip.length)}, over the ${mib(MAX_ZIP_BYTES)} budget ` +
        '(run bench/functions-cold.ts or an esbuild metafile to see what grew)',
    );
  }
  return { name, zipped: zip.length, unzipped, files: entries.length, ackPath };
}

/** The entry and every file it reaches through static `import … from` (not `import()`), with bytes. */
function staticImports(entries, entry) {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name) || !byName.has(name)) return;
    seen.add(name);
    const code = byName.get(name).data.toString('utf8');
    // esbuild's ESM output: `import{a as b}from"./x.mjs";`, `import"./x.mjs";`, `export{…}from"./x.mjs"`.
    for (const [, spec] of code.matchAll(
      /(?:\bimport|\bexport)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.\.?\/[^"']+)["']/g,
    ))
      visit(join(dirname(name), spec).replace(/\\/g, '/'));
  };
  visit(entry);
  const files = [...seen];
  return { files, bytes: files.reduce((sum, f) => sum + byName.get(f).data.length, 0) };
}

// Importing the bundle runs its top level as Lambda's cold start would: a CommonJS-only dependency
// or node-cron's import.meta.url trap fails here, not in production.
function checkImport(name, file, { handler }) {
  const code = `const m = await import(${JSON.stringify(join(process.cwd(), file))});
    if (${handler} && typeof m.handler !== 'function') { console.error('no exported handler'); process.exit(3); }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: `kubemaint-${STAGE}-${name}` },
    timeout: 30_000,
  });
  if (result.status !== 0) {
    const lines = (result.stderr || result.stdout).split('\n');
    const why = lines.find((line) => /Error\b/.test(line)) ?? lines[0];
    problem(`${name}: the bundle does not load: ${why?.trim()}`);
  }
}

function checkTemplate(t) {
  const resources = Object.values(t.Resources ?? {});
  const ofType = (type) => resources.filter((r) => r.Type === type);
  const rules = ofType('AWS::Events::Rule').map((r) => r.Properties);
  if (
    !rules.some((r) => /^rate\(|^cron\(/.test(r.ScheduleExpression ?? '') && !r.Targets?.[0]?.Input)
  ) {
    problem('template: no schedule rule for the ordinary tick');
  }
  if (!rules.some((r) => r.Targets?.[0]?.Input === JSON.stringify({ kind: 'skew-scan' }))) {
    problem('template: no schedule rule with input {"kind":"skew-scan"}');
  }
  const routes = ofType('AWS::ApiGatewayV2::Route').map((r) => r.Properties.RouteKey);
  if (!routes.includes('POST /slack/events')) {
    problem(
      `template: no HTTP API route POST /slack/events (routes: ${routes.join(', ') || 'none'})`,
    );
  }
  for (const fn of ofType('AWS::Lambda::Function').map((r) => r.Properties)) {
    if (fn.Runtime !== 'nodejs24.x') problem(`template: ${fn.FunctionName} runs ${fn.Runtime}`);
  }
  const slack = ofType('AWS::Lambda::Function').find((r) =>
    /-slack$/.test(r.Properties.FunctionName),
  );
  if (slack && slack.Properties.Timeout > 29) {
    problem(`template: the slack function's timeout ${slack.Properties.Timeout} s exceeds 29 s`);
  }
  const role = ofType('AWS::IAM::Role')[0];
  const statements = role?.Properties.Policies?.flatMap((p) => p.PolicyDocument.Statement) ?? [];
  const actions = statements.flatMap((s) => [s.Action].flat());
  for (const needed of ['ssm:GetParameter', 'kms:Decrypt', 'lambda:InvokeFunction']) {
    if (!actions.includes(needed)) problem(`template: the role does not allow ${needed}`);
  }
  const broad = actions.filter((a) => a === '*' || /:\*$/.test(a));
  if (broad.length > 0) problem(`template: wildcard IAM actions: ${broad.join(', ')}`);
}

/** A zip's stored and deflated entries (the only methods archiver writes), from its central directory. */
function readZip(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    const method = buf.readUInt16LE(at + 10);
    const size = buf.readUInt32LE(at + 20);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    const local = buf.readUInt32LE(at + 42);
    const name = buf.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    entries.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
  }
  return entries;
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    problem(`${path}: ${error.message}`);
    return undefined;
  }
}

function kib(bytes) {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

function mib(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

function printTable(rows) {
  console.log('\n| function | zip | unzipped | files | zip budget | loaded before the ack |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const share = ((r.zipped / MAX_ZIP_BYTES) * 100).toFixed(0);
    const ack = r.ackPath
      ? `${kib(r.ackPath.bytes)} in ${r.ackPath.files.length} files (budget ${kib(MAX_ACK_PATH_BYTES)})`
      : '-';
    console.log(
      `| ${r.name} | ${mib(r.zipped)} | ${mib(r.unzipped)} | ${r.files} | ${share}% of ${mib(MAX_ZIP_BYTES)} | ${ack} |`,
    );
  }
}
