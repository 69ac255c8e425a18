/**
 * Issue 9, hostile input (Slack): the real Bolt app over HTTP on a demo sim gets forged requests
 * (bad or missing signatures, stale timestamps, bodies changed after signing, malformed
 * bodies), then generated `/maint` texts (10,000 in a full run: unicode with RTL, zero-width and
 * emoji, shell metacharacters, node names that look like flags or paths, mentions, versions with a
 * command after them, every verb of DESIGN §3 with garbage arguments, and huge texts) as correctly
 * signed commands from approvers and strangers, then replays of valid requests, then oversized
 * bodies. Ticks run meanwhile and after, as `serve` would, so an approval that got through would
 * become a Job: every signed command is acked in time with a useful answer; nothing forged changes
 * anything; no Job comes of a forgery or a stranger, only of an approver's approval, and no host
 * command or child process of any of it; no stranger's approval counts; no mention from the input
 * reaches Slack unescaped; a replay does its work once; the process sees no unhandled rejection or
 * exception and the server stays up.
 */
import assert from 'node:assert/strict';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { cancelRequest, requestMaintenance, setPause } from '../../src/app/control/commands.js';
import { runTick } from '../../src/app/control/tick.js';
import { parseCommand, USAGE } from '../../src/adapters/slack/parse-command.js';
import { jobName } from '../../src/core/names.js';
import { isActive, type MaintenanceRequest } from '../../src/core/request.js';
import { checkSim } from '../support/invariants.js';
import { approveClickBody, slackHeaders, slashCommandBody } from '../support/slack-sign.js';
import { startTestSim, type TestSim } from '../support/sim.js';
import {
  CHANNEL,
  eventsOn,
  requestOn,
  SECRET,
  startHarness,
  type Harness,
} from '../support/slack-app.js';
import { COUNTS, report } from './support.js';

const APPROVERS = new Set(['UALICE', 'UBOB', 'UCAROL']);
const NODES = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5', 'node-6'];
/** node-6 is kept out of the generated texts: the replay test proposes it. */
const FUZZ_NODES = NODES.slice(0, 5);
/** Mentions and links a stranger might type; none may reach Slack as a live mention. */
const MENTIONS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!subteam^SEVIL>',
  '<@UEVIL>',
  '<#CEVIL>',
  '<https://evil.example|click me>',
] as const;
const LIVE_MENTION = /<!|<@UEVIL|<#CEVIL|<https:\/\/evil/;

const HOSTILE_WORDS = [
  '--force',
  '-rf',
  '--all',
  '-h',
  '../../etc/passwd',
  '/etc/shadow',
  '$(reboot)',
  '`reboot`',
  '; rm -rf /',
  '&& reboot',
  '| sh',
  '> /etc/passwd',
  '< /dev/zero',
  '$HOME',
  '${IFS}',
  'v1.31.4; rm -rf /',
  'v1.31.4',
  'v1.30.9',
  'v99.0.0',
  'V1.31.4',
  '1.31.4',
  'r-000000',
  'r-zzzzzz',
  'R-7F3A9C',
  'kubemaint-slot-0',
  'kubemaint-slot-99999',
  '0',
  '-1',
  'NODE-1',
  'node-1.',
  'node-1\u200b',
  '\u202enode-1',
  'nоde-1', // Cyrillic o
  '🔥',
  '%00',
  '\\',
  '"',
  "'",
  '*bold*',
  '_it_',
  '~strike~',
  '```code```',
  '&amp;',
  '&lt;!channel&gt;',
  ...MENTIONS,
  ...FUZZ_NODES,
] as const;

const word = (requestIds: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<string>(...HOSTILE_WORDS) },
    { weight: 2, arbitrary: fc.constantFrom(...requestIds) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }) },
    {
      weight: 1,
      // Slack caps a command's text at a few thousand characters; the receiver must not rely on it.
      arbitrary: fc
        .constantFrom(300, 3_000, 4_001, 40_000, 120_000)
        .chain((n) => fc.constantFrom('x'.repeat(n), '🔥'.repeat(n / 2), `${'-'.repeat(n)}f`)),
    },
  );

const verb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...Object.keys(USAGE)) },
  { weight: 1, arbitrary: fc.constantFrom('APPROVE', 'Reboot', 'aprove', 'stauts', 'rm', 'sudo') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);

const separator = fc.constantFrom(' ', '  ', '\n', '\t', ' \u00a0 ', '\r\n');

function commandText(requestIds: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('', '', '', ' ', '\n'),
      verb,
      fc.array(fc.tuple(separator, word(requestIds)), { maxLength: 5 }),
    )
    .map(([lead, v, rest]) => lead + v + rest.map(([s, w]) => s + w).join(''));
}

const fuzzUser = fc.constantFrom('UMALLORY', 'UMALLORY', 'USTRANGER', 'UALICE', 'UCAROL');
const fuzzChannel = fc.constantFrom(CHANNEL, CHANNEL, CHANNEL, CHANNEL, 'CRANDOM');

/** Hints a refused command's ack must carry: what would work instead. */
const HINT =
  /usage: `|`\/maint help`|did you mean|node names are|request ids look like|slots are named|write it like|commands are/;

/** Runs `work` over `items`, at most `limit` at once. */
async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, i: number) => Promise<void>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

describe('hostile Slack requests against the real app', { timeout: 900_000 }, () => {
  let sim: TestSim;
  let h: Harness;
  const seeded: MaintenanceRequest[] = [];
  const logLines: string[] = [];
  const crashes: string[] = [];
  const spawned: string[] = [];
  const onRejection = (reason: unknown) =>
    void crashes.push(`unhandledRejection: ${String(reason)}`);
  const onException = (error: Error) => void crashes.push(`uncaughtException: ${error.stack}`);
  const restores: (() => void)[] = [];

  const jobs = async () =>
    (await sim.batch.listNamespacedJob({ namespace: 'kubemaint' })).items.map(
      (j) => j.metadata?.name ?? '',
    );
  const errorLogs = () => logLines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
  const signedCommand = (text: string, user: string, channel = CHANNEL) => {
    const responseUrl = h.api.responseUrl();
    const body = slashCommandBody({
      command: '/maint',
      text,
      userId: user,
      channelId: channel,
      responseUrl,
    });
    return { body, responseUrl, headers: slackHeaders(SECRET, body) };
  };
  const answersTo = (responseUrl: string) =>
    h.api
      .callsOf('response_url')
      .filter((c) => responseUrl.endsWith(c.path))
      .map((c) => (typeof c.args['text'] === 'string' ? c.args['text'] : ''));

  before(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    // Nothing on this path may start a process: count every child_process entry point.
    // The CommonJS exports object: assigning to it (then syncing) is what ESM importers see.
    const cp = createRequire(import.meta.url)('node:child_process') as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    for (const name of [
      'spawn',
      'spawnSync',
      'exec',
      'execSync',
      'execFile',
      'execFileSync',
      'fork',
    ]) {
      const original = cp[name]!;
      cp[name] = (...args: unknown[]) => {
        spawned.push(`${name} ${String(args[0])}`);
        return original(...args);
      };
      restores.push(() => (cp[name] = original));
    }
    syncBuiltinESMExports();
    sim = await startTestSim({ scenario: 'demo', scale: 20, delays: { jobPodRunMs: 600_000 } });
    const log = pino({ level: 'warn' }, { write: (line: string) => void logLines.push(line) });
    // Ten slots: the replay test's Job must not wait behind requests approvers approved while fuzzing.
    h = await startHarness(sim, { lock: { concurrency: 10, pools: {} } }, { log });
    h.api.setGroup('SAPPROVERS', ['UCAROL']);
    for (const node of ['node-1', 'node-3', 'node-5']) {
      const result = await requestMaintenance(h.deps, {
        node,
        action: 'reboot',
        reason: 'seeded for the hostile run',
        by: { kind: 'person', id: 'UREQ' },
      });
      assert.ok(result.request, result.message);
      seeded.push(result.request);
    }
  });

  after(async () => {
    for (const restore of restores) restore();
    syncBuiltinESMExports();
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    await h?.close();
    await sim?.close();
  });

  it('forged, stale, tampered and malformed requests are refused and change nothing', async () => {
    const target = seeded[0]!;
    const now = Math.floor(Date.now() / 1000);
    // What a forger wants: an approver's approval, a pause; both would show if they got through.
    const wanted = [`approve ${target.id}`, 'pause FORGED'];
    const forgeries = fc.sample(
      fc.record({
        text: fc.constantFrom(...wanted),
        // Not here: a correctly signed future timestamp. Bolt refuses only stale ones, and signing
        // one takes the secret, so it is no forgery (Slack's own timestamps are never ahead).
        how: fc.constantFrom(
          'no signature',
          'no timestamp',
          'wrong secret',
          'random signature',
          'v1 signature',
          'empty signature',
          'stale',
          'non-numeric timestamp',
          'tampered body',
          'signature of another body',
          'json content type',
        ),
        skew: fc.integer({ min: 301, max: 7 * 86_400 }),
        hex: fc.stringMatching(/^[0-9a-f]{64}$/),
      }),
      { seed: 9_1, numRuns: Math.max(100, COUNTS.fuzzRuns / 10) },
    );
    const statuses: Record<string, number> = {};
    const unexpected: string[] = [];
    const urls: string[] = [];
    await pool(forgeries, 8, async (f) => {
      const { body, responseUrl, headers } = signedCommand(f.text, 'UALICE');
      urls.push(responseUrl);
      const h2 = { ...headers };
      let sent = body;
      switch (f.how) {
        case 'no signature':
          delete h2['X-Slack-Signature'];
          break;
        case 'no timestamp':
          delete h2['X-Slack-Request-Timestamp'];
          break;
        case 'wrong secret':
          Object.assign(h2, slackHeaders('not-the-secret', body));
          break;
        case 'random signature':
          h2['X-Slack-Signature'] = `v0=${f.hex}`;
          break;
        case 'v1 signature':
          h2['X-Slack-Signature'] = headers['X-Slack-Signature']!.replace('v0=', 'v1=');
          break;
        case 'empty signature':
          h2['X-Slack-Signature'] = '';
          break;
        case 'stale':
          Object.assign(h2, slackHeaders(SECRET, body, now - f.skew));
          break;
        case 'non-numeric timestamp':
          h2['X-Slack-Request-Timestamp'] = `${now}abc`;
          break;
        case 'tampered body':
          sent = body.replace('UALICE', 'UBOB');
          break;
        case 'signature of another body': {
          const other = signedCommand('help', 'UALICE');
          h2['X-Slack-Signature'] = other.headers['X-Slack-Signature']!;
          break;
        }
        case 'json content type':
          Object.assign(h2, slackHeaders('not-the-secret', body, now, 'application/json'));
          break;
      }
      const response = await h.post(sent, h2);
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      if (response.status < 400 || response.status >= 500 || response.text !== '')
        unexpected.push(`${f.how}: ${response.status} ${response.text.slice(0, 100)}`);
    });
    // Signed but malformed: bodies Bolt cannot read. Refused or ignored; never a crash.
    const malformed = [
      'payload={',
      'payload=%7B%22type%22%3A1%7D',
      '%%%',
      '\u0000\u0001',
      'a=1&a=2&&&=',
    ];
    const malformedStatuses: number[] = [];
    // A signed body no listener acks gets Bolt's 404 after 3 s: send them all at once.
    await Promise.all(
      malformed.flatMap((body) =>
        ['application/x-www-form-urlencoded', 'application/json'].map(async (type) =>
          malformedStatuses.push(
            (await h.post(body, slackHeaders(SECRET, body, now, type))).status,
          ),
        ),
      ),
    );
    await h.slack.idle();
    const pausedByForgery = (await h.deps.cluster.readPause()).paused;
    // A tick, as serve runs every minute, unpaused (whatever a forgery did to the pause is asserted
    // below): a forged approval that had got through would start a Job now.
    await setPause(h.deps, false, { kind: 'person', id: 'UALICE' });
    const tick = await runTick(h.deps);
    report('hostile slack forged', {
      forged: forgeries.length,
      statuses,
      malformed: malformedStatuses.length,
      malformedStatuses: [...new Set(malformedStatuses)].sort(),
    });
    assert.deepEqual(unexpected, []);
    assert.deepEqual(
      malformedStatuses.filter((s) => s >= 500),
      [],
    );
    assert.equal((await requestOn(sim, target.node))?.state, 'proposed');
    assert.deepEqual((await requestOn(sim, target.node))?.approvals, []);
    assert.equal(pausedByForgery, false);
    assert.deepEqual(tick.dispatched, [], 'the tick found nothing approved to start');
    assert.deepEqual(await jobs(), [], 'no Job came of a forgery');
    assert.deepEqual(
      h.api.calls.filter((c) => urls.some((u) => u.endsWith(c.path))),
      [],
      'no forged command was answered',
    );
    assert.equal((await h.command('help', 'UALICE')).status, 200, 'the server is still up');
  });

  it(`${COUNTS.fuzzRuns} generated /maint texts, signed: a useful answer each, nothing disruptive`, async () => {
    const ids = seeded.map((r) => r.id);
    const inputs = fc.sample(
      fc.record({ text: commandText(ids), user: fuzzUser, channel: fuzzChannel }),
      { seed: 9_2026, numRuns: COUNTS.fuzzRuns },
    );
    const started = Date.now();
    const logsBefore = errorLogs().length;
    const spawnedBefore = spawned.length;
    const fromRv = Math.max(0, ...sim.admin.audit().map((e) => e.rv));
    // serve ticks every minute and on every change; here every 200 ms while the texts arrive, so
    // an approval that should not count would become a Job, not sit unnoticed in an annotation.
    const tickErrors: string[] = [];
    let ticks = 0;
    let fuzzing = true;
    const ticking = (async () => {
      while (fuzzing) {
        await runTick(h.deps).then(
          () => void ticks++,
          (error: unknown) => void tickErrors.push(String(error)),
        );
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const latencies: number[] = [];
    const sent: {
      text: string;
      user: string;
      channel: string;
      status: number;
      ack: string;
      responseUrl: string;
    }[] = [];
    await pool(inputs, 8, async (input) => {
      const { body, responseUrl, headers } = signedCommand(input.text, input.user, input.channel);
      const t0 = performance.now();
      const response = await h.post(body, headers);
      latencies.push(performance.now() - t0);
      sent.push({ ...input, status: response.status, ack: response.text, responseUrl });
    });
    await h.slack.idle();
    fuzzing = false;
    await ticking;
    // The fuzz may approve, reject or pause anything; one stranger's approval of a fresh proposal
    // on a node the gates let through is certain to be judged: were it to count, the tick below
    // would start its Job.
    const alice = { kind: 'person', id: 'UALICE' } as const;
    const before = await requestOn(sim, 'node-4');
    if (before && isActive(before.state)) await cancelRequest(h.deps, before.id, alice);
    const probe = await requestMaintenance(h.deps, {
      node: 'node-4',
      action: 'reboot',
      reason: 'a proposal a stranger approves',
      by: { kind: 'person', id: 'UREQ' },
    });
    assert.ok(probe.request, probe.message);
    const stranger = signedCommand(`approve ${probe.request.id}`, 'UMALLORY');
    assert.equal((await h.post(stranger.body, stranger.headers)).status, 200);
    await h.slack.idle();
    // Approvers may have paused the fleet while fuzzing, and a paused tick starts nothing: resume,
    // then one more tick, so whatever counts as approved now gets its Job.
    await setPause(h.deps, false, alice);
    await runTick(h.deps);
    ticks++;
    const wallMs = Date.now() - started;

    const problems: string[] = [];
    let refusedInAck = 0;
    let answeredLater = 0;
    let internalErrors = 0;
    for (const s of sent) {
      const what = `${JSON.stringify(s.text.slice(0, 80))} by ${s.user} in ${s.channel}`;
      if (s.status !== 200) {
        problems.push(`${what}: HTTP ${s.status}`);
        continue;
      }
      const ack = s.ack === '' ? '' : String((JSON.parse(s.ack) as { text?: string }).text ?? '');
      const later = answersTo(s.responseUrl);
      const answer = [ack, ...later].join('\n').trim();
      if (answer === '' || answer === 'scanning the fleet…') {
        problems.push(`${what}: no answer`);
        continue;
      }
      if (/that failed:/.test(answer)) internalErrors++;
      if (answer.length > 40_000)
        problems.push(`${what}: an answer of ${answer.length} characters`);
      const parsed = parseCommand(s.text, '/maint');
      if (!parsed.ok) {
        refusedInAck++;
        if (!HINT.test(ack)) problems.push(`${what}: refused without a hint: ${ack.slice(0, 200)}`);
      } else if (s.channel !== CHANNEL) {
        refusedInAck++;
        if (!/kubemaint answers in/.test(ack)) problems.push(`${what}: ${ack.slice(0, 200)}`);
      } else if (later.length > 0) answeredLater++;
      if (LIVE_MENTION.test(answer))
        problems.push(`${what}: a live mention in ${answer.slice(0, 200)}`);
    }
    const payloads = h.api.calls.filter((c) => LIVE_MENTION.test(JSON.stringify(c.args)));
    const blockKit = h.api.calls.filter((c) => c.violations.length > 0);
    const sortedLatency = [...latencies].sort((a, b) => a - b);
    const approvalsByStrangers: string[] = [];
    for (const node of NODES) {
      const request = await requestOn(sim, node);
      for (const a of request?.approvals ?? [])
        if (!APPROVERS.has(a.by)) approvalsByStrangers.push(`${node}: ${a.by}`);
    }
    const refusalsRecorded = (
      await Promise.all(seeded.map((r) => eventsOn(sim, r.node, 'KubemaintUnauthorised')))
    ).flat().length;
    // Every Job the ticks made is for a request only approvers approved (DESIGN §5.2, on the wire).
    const invariants = checkSim(sim, { concurrency: 10, approvers: new Set(APPROVERS), fromRv });
    const figures = {
      inputs: sent.length,
      http200: sent.filter((s) => s.status === 200).length,
      refusedInAck,
      answeredLater,
      internalErrors,
      errorLogs: errorLogs().length - logsBefore,
      unhandled: crashes.length,
      ticks,
      tickErrors: tickErrors.length,
      jobs: invariants.jobs,
      jobViolations: invariants.violations.length,
      hostCommands: sim.admin.hostLog().length,
      childProcesses: spawned.length - spawnedBefore,
      approvalsByStrangers: approvalsByStrangers.length,
      refusalsRecorded,
      liveMentionsInPayloads: payloads.length,
      blockKitViolations: blockKit.length,
      ackMs: {
        p50: Math.round(percentile(sortedLatency, 50)),
        p99: Math.round(percentile(sortedLatency, 99)),
        max: Math.round(sortedLatency.at(-1) ?? 0),
      },
      wallMs,
    };
    report('hostile slack fuzz', figures);
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} problems`);
    assert.equal(internalErrors, 0, 'no answer reported an unexpected failure');
    assert.deepEqual(errorLogs().slice(logsBefore).slice(0, 5), []);
    assert.deepEqual(crashes, []);
    assert.deepEqual(tickErrors, []);
    assert.deepEqual(invariants.violations, [], 'no Job for a request a stranger approved');
    assert.equal((await requestOn(sim, 'node-4'))?.state, 'proposed', 'the stranger did not count');
    assert.deepEqual(sim.admin.hostLog(), []);
    assert.deepEqual(spawned.slice(spawnedBefore), []);
    assert.deepEqual(approvalsByStrangers, []);
    // Strangers did try the seeded requests: each try was refused and recorded.
    assert.ok(refusalsRecorded > 0);
    assert.deepEqual(
      payloads.map((c) => `${c.method}: ${JSON.stringify(c.args).slice(0, 200)}`).slice(0, 5),
      [],
    );
    assert.deepEqual(
      blockKit.map((c) => `${c.method}: ${c.violations.join(', ')}`).slice(0, 5),
      [],
    );
  });

  it('a replayed command or click (same body, same signature) does its work once', async () => {
    const { body, headers, responseUrl } = signedCommand(
      'reboot node-6 replayed <!channel>',
      'UBOB',
    );
    const replays = 5;
    const statuses = await Promise.all(
      Array.from({ length: replays }, () => h.post(body, headers)),
    );
    for (let i = 0; i < replays; i++) statuses.push(await h.post(body, headers));
    await h.slack.idle();
    // Bolt has no replay cache: within its 5-minute window a replay is accepted like the original.
    assert.ok(statuses.every((s) => s.status === 200));
    const request = await requestOn(sim, 'node-6');
    assert.equal(request?.state, 'proposed');
    assert.equal(request?.requestedBy, 'UBOB');
    // Every replay is answered; one proposed, the rest found it there (or lost the write race).
    const answers = answersTo(responseUrl);
    assert.equal(answers.length, statuses.length);
    assert.equal(
      answers.filter((a) => / is proposed$/.test(a) && !/nothing to change/.test(a)).length,
      1,
      answers.join('\n'),
    );

    const click = (id: string) => {
      const payload = approveClickBody({
        requestId: id,
        userId: 'UALICE',
        channelId: CHANNEL,
        responseUrl: h.api.responseUrl(),
        ts: '1700009999.1',
      });
      return { body: payload, headers: slackHeaders(SECRET, payload) };
    };
    const approve = click(request.id);
    const clickStatuses = await Promise.all(
      Array.from({ length: replays }, () => h.post(approve.body, approve.headers)),
    );
    for (let i = 0; i < replays; i++)
      clickStatuses.push(await h.post(approve.body, approve.headers));
    await h.slack.idle();
    assert.ok(clickStatuses.every((s) => s.status === 200));
    const approved = await requestOn(sim, 'node-6');
    assert.equal(approved?.state, 'approved');
    assert.deepEqual(
      approved?.approvals.map((a) => a.by),
      ['UALICE'],
    );
    // Another round of replays after the ticks: still one Job, named for the request. Approvers
    // may have paused the fleet while fuzzing; resume, or no tick would start anything.
    await setPause(h.deps, false, { kind: 'person', id: 'UALICE' });
    await runTick(h.deps);
    for (let i = 0; i < replays; i++) await h.post(approve.body, approve.headers);
    await h.slack.idle();
    await runTick(h.deps);
    const mine = (await jobs()).filter((n) => n === jobName('node-6', request.id));
    assert.equal(mine.length, 1);
    assert.equal((await requestOn(sim, 'node-6'))?.approvals.length, 1);
    report('hostile slack replay', {
      commandReplays: statuses.length,
      clickReplays: clickStatuses.length + replays,
      requests: 1,
      approvals: approved?.approvals.length,
      jobs: mine.length,
    });
  });

  it('oversized bodies are refused (413 past 4 MB, 401 unsigned) and the server stays up', async () => {
    const outcomes: Record<string, string> = {};
    const pauseBefore = await h.deps.cluster.readPause();
    const send = async (label: string, body: string, headers: Record<string, string>) => {
      try {
        const r = await h.post(body, headers);
        outcomes[label] = String(r.status);
        return r;
      } catch (error) {
        // The receiver may close the socket while a 10 MB body is still being sent.
        outcomes[label] =
          `closed (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : String(error)})`;
        return undefined;
      }
    };
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const big = (mb: number, text = 'pause x') =>
      signedCommand(`${text} ${'y'.repeat(mb * 1024 * 1024)}`, 'UALICE');
    const oneUnsigned = big(1);
    await send('1 MB unsigned', oneUnsigned.body, form);
    const oneForged = big(1);
    await send('1 MB wrong secret', oneForged.body, slackHeaders('nope', oneForged.body));
    const five = big(5);
    await send('5 MB signed', five.body, five.headers);
    const ten = big(10);
    await send('10 MB signed', ten.body, ten.headers);
    const tenUnsigned = big(10);
    await send('10 MB unsigned', tenUnsigned.body, form);
    // Under Bolt's 4 MB limit a signed body is a command like any other: answered, clipped.
    const one = signedCommand(`${'z'.repeat(1024 * 1024)} reboot node-2`, 'UALICE');
    const accepted = await send('1 MB signed', one.body, one.headers);
    await h.slack.idle();
    report('hostile slack oversized', outcomes);
    assert.equal(outcomes['1 MB unsigned'], '401');
    assert.equal(outcomes['1 MB wrong secret'], '401');
    for (const label of ['5 MB signed', '10 MB signed', '10 MB unsigned'])
      assert.match(outcomes[label]!, /^(413|closed)/, label);
    assert.equal(accepted?.status, 200);
    const ack = JSON.parse(accepted.text) as { text: string };
    assert.match(ack.text, /is not a \/maint command/);
    assert.ok(ack.text.length < 500, `the ack quotes at most a clip: ${ack.text.length}`);
    assert.deepEqual(
      await h.deps.cluster.readPause(),
      pauseBefore,
      'no oversized pause got through',
    );
    assert.equal((await h.command('help', 'UALICE')).status, 200, 'the server is still up');
    assert.deepEqual(crashes, []);
  });
});
