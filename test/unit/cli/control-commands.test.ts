/**
 * The control commands as a person meets them: bad ids, decisions, --as user names (empty or with
 * control characters) and ports are refused with exit 2 and a hint before anything connects; without
 * a running demo (no kubeconfig, or one a stopped demo left) the CLI says so in one line; the status
 * table and console lines read well.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { consoleLines } from '../../../templates/console.js';
import { statusJson, statusTable } from '../../../templates/cli-status.js';
import type { MaintenanceRequest } from '../../../src/core/request.js';
import { impersonationTarget } from '../../../src/cli/control-context.js';
import { KubemaintError } from '../../../src/errors.js';
import { runCli } from '../../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'kubemaint-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('control commands refuse bad input before connecting', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a malformed request id',
      ['approve', 'r-zz;rm'],
      /"r-zz;rm" is not a request id[\s\S]*hint: request ids look like r-7f3a9c/,
    ],
    [
      'a drain decision that is not one',
      ['decide', 'r-abcdef', 'maybe'],
      /"maybe" is not a drain decision[\s\S]*wait, skip or force/,
    ],
    // --as is kubectl's impersonation (ADR 0012): any Kubernetes user name goes, but not an empty one
    // or one with control characters (it would end up in an HTTP header).
    [
      'an empty user name',
      ['approve', 'r-abcdef', '--as', ''],
      /--as "" is not a user name[\s\S]*hint: e\.g\. --as alice/,
    ],
    [
      'a user name with a control character',
      ['approve', 'r-abcdef', '--as', 'alice\nImpersonate-Group: system:masters'],
      // Echoed escaped: the newline does not reach the terminal as one.
      /--as "alice\\nImpersonate-Group: [^"\n]*" is not a user name\nhint: /,
    ],
    [
      // Any other name is the apiserver's to judge: parsing lets it through, and the command goes on
      // to look for a cluster (here: finds none).
      'a Kubernetes user name that is no local user name',
      ['approve', 'r-abcdef', '--as', 'system:serviceaccount:ops:deploy-bot'],
      /the demo is not running/,
    ],
    ['a port that is not one', ['serve', '--ops-port', 'http'], /--ops-port "http" is not a port/],
    [
      'no running demo',
      ['status'],
      /^error: the demo is not running: start it with `kubemaint serve` in this folder \(`npm start` in a checkout\), or give a cluster with --config or --kubeconfig\n$/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: exit 2 with a hint`, async () => {
      const result = await runCli(args, { cwd: dir });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
    });
  }
});

describe('--kubeconfig beside a config of several clusters', () => {
  const several = join(dir, 'several');
  mkdirSync(several, { recursive: true });
  writeFileSync(
    join(several, 'kubemaint.yaml'),
    'clusters:\n  - {name: staging, kubeconfig: {context: staging}}\n  - {name: production, kubeconfig: {context: prod-eu}}\n',
  );
  for (const command of ['status', 'serve']) {
    it(`${command} refuses it rather than read one cluster as all of them (exit 2)`, async () => {
      const result = await runCli([command, '--kubeconfig', join(several, 'k')], { cwd: several });
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        /--kubeconfig names one cluster, and the config lists several\nhint: .*--cluster NAME/,
      );
    });
  }
});

describe('--as takes a Kubernetes user name', () => {
  it('accepts what kube-apiserver accepts: service accounts, e-mails, spaces, any script', () => {
    for (const user of [
      'alice',
      'system:serviceaccount:kubemaint:kubemaint-serve',
      'alice@example.com',
      'arn:aws:iam::123456789012:user/alice',
      'Alice Smith',
      '--rm -rf',
      'ユーザー',
      'a'.repeat(253),
    ]) {
      assert.equal(impersonationTarget(user), user);
    }
  });
  it('refuses what cannot be one, as a usage error before anything connects', () => {
    for (const user of [
      '',
      'al\tice',
      'alice\n',
      'alice\r\nX-Evil: 1',
      '\u0000',
      ' alice',
      'a'.repeat(254),
    ]) {
      assert.throws(
        () => impersonationTarget(user),
        (error: unknown) =>
          error instanceof KubemaintError &&
          error.code === 'usage' &&
          /is not a user name/.test(error.message),
        JSON.stringify(user),
      );
    }
  });
});

describe('a demo that stopped', () => {
  it('its kubeconfig left behind, nothing listening: one line at once, not retries', async () => {
    // A port that was just free: what a stopped demo's kubeconfig points at.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const cwd = mkdtempSync(join(tmpdir(), 'kubemaint-stopped-'));
    try {
      mkdirSync(join(cwd, '.kubemaint'));
      writeFileSync(
        join(cwd, '.kubemaint', 'sim.kubeconfig'),
        `apiVersion: v1
kind: Config
clusters: [{ name: sim, cluster: { server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true } }]
users: [{ name: admin, user: { token: t } }]
contexts: [{ name: sim, context: { cluster: sim, user: admin } }]
current-context: sim
`,
      );
      for (const args of [['status'], ['drain', 'node-1', '--dry-run'], ['approve', 'r-abcdef']]) {
        const result = await runCli(args, { cwd });
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /^error: the demo is not running: start it with [^\n]*\n$/);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('serve refuses before it starts anything', () => {
  it('a taken ops port: exit 2 with a hint, and no demo cluster was started', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const cwd = mkdtempSync(join(tmpdir(), 'kubemaint-serve-'));
    try {
      const result = await runCli(
        ['serve', '--ops-port', String(port), '--ops-host', '127.0.0.1'],
        {
          cwd,
        },
      );
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        /cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE[\s\S]*hint: choose another ops port/,
      );
      assert.equal(existsSync(join(cwd, '.kubemaint')), false, 'the sim never started');
    } finally {
      blocker.close();
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a PORT that is not one', async () => {
    const result = await runCli(['serve'], { cwd: dir, env: { PORT: 'http' } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PORT="http" is not a port/);
  });
});

const request = (over: Partial<MaintenanceRequest>): MaintenanceRequest => ({
  id: 'r-abcdef',
  node: 'node-2',
  action: 'reboot',
  state: 'proposed',
  reason: 'reboot required (label)',
  requestedBy: 'detector',
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  approvals: [],
  history: [],
  ...over,
});

describe('status and console texts', () => {
  const now = new Date('2026-11-22T10:05:00Z');
  it('status shows each request, what it waits for, the pause and the slots', () => {
    const text = statusTable(
      {
        requests: [
          request({}),
          request({
            id: 'r-123456',
            node: 'node-4',
            action: 'upgrade',
            targetVersion: 'v1.31.4',
            state: 'approved',
            approvals: [{ by: 'cli:alice', at: '' }],
            blockedReasons: ['outside the maintenance window; next opens Sat 02:00 UTC'],
          }),
        ],
        pause: { paused: true, by: 'cli:bob', reason: 'launch' },
        slots: [{ name: 'kubemaint-slot-0', holder: '' }],
      },
      now,
    );
    assert.match(text, /^PAUSED by cli:bob: launch/);
    assert.match(
      text,
      /r-abcdef\s+node-2\s+reboot\s+proposed\s+5m\s+reboot required \(label\) — approve: kubemaint approve r-abcdef/,
    );
    assert.match(text, /r-123456 waits: outside the maintenance window/);
    assert.match(text, /slots: 0 of 1 held/);
    const json = JSON.parse(
      statusJson({ requests: [request({})], pause: { paused: false }, slots: [] }),
    ) as {
      requests: { id: string; state: string; reasons: string[]; createdAt: string }[];
    };
    assert.deepEqual(json.requests[0], {
      ...json.requests[0],
      id: 'r-abcdef',
      state: 'proposed',
      reasons: [],
      createdAt: '2026-11-22T10:00:00.000Z',
    });
  });

  it('a proposal on the console says how to answer it; control characters cannot break the line', () => {
    const lines = consoleLines({
      kind: 'proposed',
      node: 'node-2',
      cluster: 'sim',
      requestId: 'r-abcdef',
      action: 'reboot',
      reason: 'evil\u001b[2J\nreason',
      at: '2026-11-22T10:00:00.000Z',
    });
    assert.equal(lines.length, 2);
    assert.equal(
      lines[0],
      '10:00:00 ? proposed  node-2 reboot [r-abcdef]: evil\\u001b[2J\\nreason',
    );
    assert.match(
      lines[1]!,
      /approve: npx kubemaint approve r-abcdef\s+reject: npx kubemaint reject r-abcdef/,
    );
  });
});
