/**
 * Issue 9, hostile input (config): seeded mutations of kubemaint.example.yaml and the config
 * fixtures (keys deleted, typo'd or unknown; wrong types; huge, negative and non-finite numbers; bad
 * cron, time zones, durations, selectors and URLs; YAML syntax damage; deep nesting; alias bombs and
 * self-referencing aliases; tokens where values go) through the path `serve` and `config check`
 * load a file by. Each one either loads or is refused with the project's own ConfigInvalidError,
 * listing at least one problem with a path, never quoting a secret, and nothing hangs. A few of the
 * refused files also go through the real CLI: exit 2 and a useful message on stderr.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { ConfigInvalidError, loadConfig } from '../../src/config/load.js';
import { EXIT } from '../../src/core/exit-codes.js';
import { runCli } from '../support/cli-process.js';
import { COUNTS, report } from './support.js';

const SOURCES = [
  'kubemaint.example.yaml',
  'test/fixtures/config/valid-eks.yaml',
  'test/fixtures/config/valid-kubeconfig.yaml',
  'test/fixtures/config/many-problems.yaml',
].map((path) => ({ path, text: readFileSync(path, 'utf8') }));

/** Planted where values go; no problem may ever quote them. */
const SECRETS = [
  'xoxb-111111111111-2222222222222-HOSTILECONFIGbot',
  'xapp-1-A0HOSTILE-1234567890123-hostileconfigapp',
  'ghp_HOSTILEconfigGITHUBtoken0123456789',
] as const;
/** The user info, path and query of a URL with credentials, planted as values. */
const URL_SECRETS = ['hunter2pass', 'tok3nPATH', 'qs3cret'] as const;
const CREDENTIAL_URL = `generic+https://user:${URL_SECRETS[0]}@hooks.example/${URL_SECRETS[1]}?token=${URL_SECRETS[2]}`;

const BAD_TEXT = [
  '* * * *',
  '61 * * * *',
  '0 2 * * 6#9',
  '@reboot',
  'Mars/Olympus',
  'UTC+25',
  'Europe/../../etc/passwd',
  '15 minutes',
  '-5m',
  '1e999h',
  'P1Y',
  '0s',
  '([',
  '(?<x',
  'a++',
  'app in (a,',
  'a=b,,c',
  '!!==',
  'http://',
  'javascript:alert(1)',
  'discord://',
  'bogus://x@y',
  CREDENTIAL_URL,
  '$(rm -rf /)',
  '`reboot`',
  'systemctl reboot; rm -rf /',
  '--force',
  '-rf',
  '../../etc/shadow',
  '\u202eevil\u200b',
  '\u0000',
  '💥'.repeat(500),
  'x'.repeat(100_000),
  '',
  ' ',
  '25:00',
  'v1.31.4; rm -rf /',
] as const;

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...BAD_TEXT) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      -1,
      0,
      -(2 ** 53),
      2 ** 64,
      1e308,
      Number.POSITIVE_INFINITY,
      Number.NaN,
      0.5,
      true,
      false,
      [],
      {},
      [[[]]],
      { nested: { deeper: [1, 'two', { three: 3 }] } },
    ),
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
);

const KINDS = [
  'delete',
  'wrongValue',
  'unknownKey',
  'typoKey',
  'deepNest',
  'secret',
  'yamlDamage',
  'aliasBomb',
  'selfAlias',
] as const;
type Kind = (typeof KINDS)[number];
/** Kinds no file can survive: a token in the file, an alias bomb, an alias to itself. */
const MUST_FAIL = new Set<Kind>(['secret', 'aliasBomb', 'selfAlias']);

const mutationArb = fc.record({
  source: fc.nat({ max: SOURCES.length - 1 }),
  kind: fc.constantFrom(...KINDS),
  target: fc.nat(),
  value: hostileValue,
  secret: fc.constantFrom(...SECRETS, CREDENTIAL_URL),
  offset: fc.nat(),
  damage: fc.constantFrom(
    '\t',
    ': :',
    '"',
    "'",
    '[',
    '{',
    '- ',
    '&',
    '*nope',
    '!!binary',
    '%YAML 9.9\n',
    '\n  bad indent: 1\n',
    '\ncluster: again\n',
    '\u0000',
    '---\n',
  ),
  depth: fc.integer({ min: 50, max: 3_000 }),
});
type MutationValue = typeof mutationArb extends fc.Arbitrary<infer T> ? T : never;

type Json = Record<string, unknown>;

/** Every path to a value in the document (maps and lists), parents before children. */
function pathsOf(value: unknown, base: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...base, key], ...pathsOf(child, [...base, key])]);
}

function parentOf(doc: unknown, path: (string | number)[]): Json | unknown[] {
  let current = doc as Json;
  for (const key of path.slice(0, -1)) current = current[key as string] as Json;
  return current;
}

function typo(key: string, n: number): string {
  if (key.length < 2) return `${key}x`;
  const i = n % (key.length - 1);
  return n % 3 === 0
    ? key.slice(0, i) + key.slice(i + 1)
    : key.slice(0, i) + key[i + 1]! + key[i]! + key.slice(i + 2);
}

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { k: value } : [value];
  return value;
}

function aliasBomb(): string {
  const lines = ['l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < 12; i++)
    lines.push(
      `l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(', ')}]`,
    );
  return lines.join('\n');
}

/** The mutated file's text. */
function mutate(m: MutationValue): string {
  const { text } = SOURCES[m.source]!;
  const doc = parse(text) as Json;
  const paths = pathsOf(doc);
  const path = paths[m.target % paths.length]!;
  const parent = parentOf(doc, path);
  const key = path.at(-1)!;
  const set = (value: unknown) => {
    (parent as Json)[key as string] = value;
  };
  switch (m.kind) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return stringify(doc);
    case 'wrongValue':
      set(m.value);
      return stringify(doc);
    case 'unknownKey':
      if (Array.isArray(parent)) set({ unknownSetting: m.value });
      else parent[`unknown${m.target % 7}`] = m.value;
      return stringify(doc);
    case 'typoKey': {
      if (Array.isArray(parent) || typeof key !== 'string') return stringify({ ...doc, lokc: 1 });
      const renamed = typo(key, m.offset);
      const value = parent[key];
      delete parent[key];
      parent[renamed === key ? `${key}_` : renamed] = value;
      return stringify(doc);
    }
    case 'deepNest':
      // JSON is YAML too, and it writes nesting deeper than the yaml library's own stringifier can.
      set(nested(m.depth));
      return JSON.stringify(doc);
    case 'secret':
      set(m.secret);
      return stringify(doc);
    case 'yamlDamage': {
      const at = m.offset % (text.length + 1);
      return text.slice(0, at) + m.damage + text.slice(at);
    }
    case 'aliasBomb':
      return `${aliasBomb()}\n${text}`;
    case 'selfAlias':
      return `${text}\nlock: &loop\n  pools:\n    gpu: *loop\n`;
  }
}

const leaks = (text: string): string[] =>
  [...SECRETS, ...URL_SECRETS].filter(
    (s) => text.includes(s) || text.includes(encodeURIComponent(s)),
  );

describe('hostile config files', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubemaint-hostile-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  /** Refused files kept for the CLI check: one per kind. */
  const refusedSamples = new Map<Kind, string>();

  it(`${COUNTS.configMutations} mutated files: loaded, or refused with every problem listed`, () => {
    const started = Date.now();
    const mutations = fc.sample(mutationArb, { seed: 9_2026, numRuns: COUNTS.configMutations });
    const failures: string[] = [];
    const perKind: Record<string, { tried: number; refused: number }> = {};
    let problems = 0;
    let problemsWithHint = 0;
    let slowestMs = 0;
    let slowestKind = '';
    for (const [i, m] of mutations.entries()) {
      const figures = (perKind[m.kind] ??= { tried: 0, refused: 0 });
      figures.tried++;
      const text = mutate(m);
      const t0 = Date.now();
      let outcome: unknown;
      try {
        outcome = loadConfig({ path: `mutated-${i}.yaml`, env: {}, readFile: () => text });
      } catch (error) {
        outcome = error;
      }
      const ms = Date.now() - t0;
      if (ms > slowestMs) [slowestMs, slowestKind] = [ms, m.kind];
      const where = `#${i} ${m.kind} of ${SOURCES[m.source]!.path}`;
      if (!(outcome instanceof Error)) {
        // A URL with credentials is a fine value in some places (a notify URL); a token never is.
        const mustFail =
          MUST_FAIL.has(m.kind) && !(m.kind === 'secret' && m.secret === CREDENTIAL_URL);
        if (mustFail) failures.push(`${where}: loaded, but must be refused`);
        continue;
      }
      figures.refused++;
      if (!(outcome instanceof ConfigInvalidError)) {
        failures.push(`${where}: threw ${outcome.name}: ${outcome.message.slice(0, 200)}`);
        continue;
      }
      if (outcome.problems.length === 0) failures.push(`${where}: no problem listed`);
      if (!outcome.hint) failures.push(`${where}: no hint`);
      for (const p of outcome.problems) {
        problems++;
        if (p.hint) problemsWithHint++;
        if (p.path.trim() === '' || p.message.trim() === '')
          failures.push(`${where}: a problem without path or message: ${JSON.stringify(p)}`);
      }
      const leaked = leaks(`${outcome.message}\n${outcome.hint}`);
      if (leaked.length > 0) failures.push(`${where}: quotes ${leaked.join(', ')}`);
      if (!refusedSamples.has(m.kind)) {
        const file = join(dir, `${m.kind}.yaml`);
        writeFileSync(file, text);
        refusedSamples.set(m.kind, file);
      }
    }
    const refused = Object.values(perKind).reduce((n, k) => n + k.refused, 0);
    report('hostile config', {
      mutations: mutations.length,
      refused,
      loaded: mutations.length - refused,
      unexpectedErrors: failures.filter((f) => f.includes(' threw ')).length,
      leaks: failures.filter((f) => f.includes(' quotes ')).length,
      problems,
      problemsWithOwnHint: problemsWithHint,
      slowestMs,
      slowestKind,
      perKind,
      wallMs: Date.now() - started,
    });
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures`);
    // Each kind was tried, and every must-fail kind was refused each time.
    for (const kind of KINDS) assert.ok((perKind[kind]?.tried ?? 0) > 0, `${kind} was tried`);
    for (const kind of ['aliasBomb', 'selfAlias'] as const)
      assert.equal(perKind[kind]?.refused, perKind[kind]?.tried, kind);
  });

  it('an alias bomb is refused in well under a second, not expanded', () => {
    const t0 = Date.now();
    assert.throws(
      () => loadConfig({ path: 'bomb.yaml', env: {}, readFile: () => aliasBomb() }),
      (error: unknown) =>
        error instanceof ConfigInvalidError && /too many values/.test(error.message),
    );
    // 10^12 values if expanded: any real expansion would take minutes and gigabytes.
    assert.ok(Date.now() - t0 < 5_000);
  });

  it('the real CLI: `config check` on refused files exits 2 with the problems on stderr', async () => {
    const files = [...refusedSamples.entries()].slice(0, 6);
    assert.ok(files.length >= 4, `refused samples: ${[...refusedSamples.keys()].join(', ')}`);
    const results: { kind: Kind; code: number | null; stderr: string; stdout: string }[] = [];
    // Two at a time: each is a cold tsx start on two shared cores.
    for (let i = 0; i < files.length; i += 2) {
      results.push(
        ...(await Promise.all(
          files.slice(i, i + 2).map(async ([kind, file]) => ({
            kind,
            ...(await runCli(['config', 'check', file], { cwd: dir })),
          })),
        )),
      );
    }
    for (const r of results) {
      const what = `${r.kind}: ${r.stderr.slice(0, 500)}`;
      assert.equal(r.code, EXIT.config, what);
      assert.match(r.stderr, /^error: .* has \d+ problems?:\n {2}\S/m, what);
      assert.match(r.stderr, /^hint: /m, what);
      assert.doesNotMatch(r.stderr, /unexpected error|\n\s+at /, what);
      assert.deepEqual(leaks(r.stderr + r.stdout), [], what);
    }
    report('hostile config CLI', {
      files: results.length,
      exit2: results.filter((r) => r.code === EXIT.config).length,
    });
  });
});
