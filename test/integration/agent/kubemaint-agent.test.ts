import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeApi, type FakeApi, type NodeMeta } from './fake-apiserver.js';
import { availableShells, eventually, runAgent, sandbox, startAgent } from './agent-harness.js';

const NODE = 'worker-1';
const TOKEN = 'agent-sa-token-1';
const LABEL = 'kubemaint.io/reboot-required';
const SINCE = 'kubemaint.io/reboot-required-since';
const PKGS = 'kubemaint.io/reboot-required-packages';
const OTHER = { 'kubernetes.io/hostname': NODE, 'team.example.com/owner': 'infra' };
const OTHER_ANN = { 'node.alpha.kubernetes.io/ttl': '0' };

const unmarked = (): NodeMeta => ({ labels: { ...OTHER }, annotations: { ...OTHER_ANN } });
const marked = (packages: string, since = '2026-11-20T03:00:00Z'): NodeMeta => ({
  labels: { ...OTHER, [LABEL]: 'true' },
  annotations: { ...OTHER_ANN, [SINCE]: since, [PKGS]: packages },
});
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Every write changed nothing but kubemaint.io/ labels and annotations. */
function assertOnlyOwnKeys(api: FakeApi) {
  for (const w of api.writes()) {
    assert.equal(w.contentType, 'application/merge-patch+json');
    const body = w.body as { metadata: Record<string, Record<string, unknown>> };
    assert.deepEqual(Object.keys(body), ['metadata']);
    for (const [section, entries] of Object.entries(body.metadata)) {
      assert.ok(['labels', 'annotations'].includes(section), `patch touches metadata.${section}`);
      for (const key of Object.keys(entries))
        assert.ok(key.startsWith('kubemaint.io/'), `patch touches ${key}`);
    }
    for (const part of ['labels', 'annotations'] as const) {
      const changed = new Set([...Object.keys(w.before[part]), ...Object.keys(w.after[part])]);
      for (const key of changed) {
        if (!key.startsWith('kubemaint.io/')) assert.equal(w.after[part][key], w.before[part][key]);
      }
    }
  }
}

for (const shell of availableShells()) {
  describe(`kubemaint-agent.sh under ${shell.name}`, () => {
    let api: FakeApi;
    before(async () => (api = await startFakeApi(NODE, TOKEN)));
    after(() => api.close());
    const fresh = (meta: NodeMeta) => {
      api.setNode(meta);
      api.clearWrites();
      api.failNext(0);
      return sandbox(shell, api, TOKEN, NODE);
    };

    it('marks its node when the sentinel appears, with the file time and the packages', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '*** System restart required ***\n');
      writeFileSync(
        `${box.sentinel}.pkgs`,
        'linux-image-6.8.0-49-generic\nlibc6\nlinux-image-6.8.0-49-generic\n',
      );
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }));
      assert.equal(run.code, 0, run.output);
      const node = api.node();
      assert.equal(node.labels[LABEL], 'true');
      assert.equal(node.annotations[PKGS], 'linux-image-6.8.0-49-generic,libc6');
      assert.equal(node.annotations[SINCE], isoSeconds(statSync(box.sentinel).mtime));
      assert.equal(api.writes().length, 1);
      assertOnlyOwnKeys(api);
    });

    it('clears the label and annotations when the sentinel is gone, and nothing else', async () => {
      const box = fresh(marked('libc6'));
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }));
      assert.equal(run.code, 0, run.output);
      assert.deepEqual(api.node(), unmarked());
      assert.equal(api.writes().length, 1);
      assertOnlyOwnKeys(api);
    });

    it('writes nothing when the node already says what the host says', async () => {
      const box = fresh(marked('libc6'));
      writeFileSync(box.sentinel, '');
      writeFileSync(`${box.sentinel}.pkgs`, 'libc6\n');
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '5' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(api.writes().length, 0);
      const clean = fresh(unmarked());
      assert.equal((await runAgent(shell, clean.env({ AGENT_ITERATIONS: '5' }))).code, 0);
      assert.equal(api.writes().length, 0);
    });

    it('remembers what it wrote: one write over many checks of an unchanged host', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      const readsBefore = api.reads();
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '6', RESYNC_EVERY: '100' }));
      assert.equal(run.code, 0, run.output);
      assert.equal(api.writes().length, 1);
      assert.equal(api.reads() - readsBefore, 1, 'reads the node once, at start');
    });

    it('updates the packages but keeps the first time when more packages ask for a reboot', async () => {
      const box = fresh(marked('libc6', '2026-11-01T00:00:00Z'));
      writeFileSync(box.sentinel, '');
      writeFileSync(`${box.sentinel}.pkgs`, 'libc6\nopenssl\n');
      assert.equal((await runAgent(shell, box.env({ AGENT_ITERATIONS: '1' }))).code, 0);
      assert.equal(api.node().annotations[PKGS], 'libc6,openssl');
      assert.equal(api.node().annotations[SINCE], '2026-11-01T00:00:00Z');
    });

    it('follows the host while it runs: marks, then clears, then stops on SIGTERM', async () => {
      const box = fresh(unmarked());
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      try {
        await eventually('the agent has started', () => agent.output().includes('starting'));
        writeFileSync(box.sentinel, '');
        await eventually('the node is marked', () => api.node().labels[LABEL] === 'true');
        unlinkSync(box.sentinel);
        await eventually('the node is cleared', () => api.node().labels[LABEL] === undefined);
      } finally {
        assert.equal(await agent.stop(), 0, agent.output());
      }
      assert.equal(api.writes().length, 2);
      assert.equal(api.node().annotations[SINCE], undefined);
      assertOnlyOwnKeys(api);
    });

    it('survives API errors: logs, keeps running and writes once the API answers', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      api.failNext(3, 500);
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '6' }));
      assert.equal(run.code, 0, run.output);
      assert.match(run.output, /level=warn msg="cannot read this node; will retry" status=500/);
      assert.equal(api.node().labels[LABEL], 'true');
      assert.equal(api.writes().length, 1);
    });

    it('survives a failing patch and retries it', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      try {
        await eventually('the first read is done', () => agent.output().includes('starting'));
        api.failNext(1, 503);
        await eventually('the node is marked', () => api.node().labels[LABEL] === 'true');
      } finally {
        assert.equal(await agent.stop(), 0);
      }
      assert.equal(api.writes().length, 1);
    });

    it('re-reads the rotating token each time, and waits while it cannot be read', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      writeFileSync(box.tokenFile, 'an-expired-token');
      const agent = startAgent(shell, box.env({ PERIOD_SECONDS: '1' }));
      try {
        await eventually('the API refused the old token', () =>
          agent.output().includes('status=401'),
        );
        writeFileSync(box.tokenFile, TOKEN);
        await eventually(
          'the node is marked with the new token',
          () => api.node().labels[LABEL] === 'true',
        );
      } finally {
        await agent.stop();
      }
    });

    it('refuses a server its CA did not sign (TLS is verified)', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      writeFileSync(join(box.saDir, 'ca.crt'), (await import('node:tls')).rootCertificates[0]!);
      const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '2' }));
      assert.equal(run.code, 0);
      assert.match(run.output, /cannot read this node; will retry" status=000/);
      assert.equal(api.writes().length, 0);
    });

    const commands = [
      { command: 'exit 0', start: unmarked(), label: 'true', writes: 1 },
      { command: 'exit 1', start: marked('x'), label: undefined, writes: 1 },
      { command: 'exit 7', start: marked('x'), label: 'true', writes: 0 },
    ];
    for (const c of commands) {
      it(`with SENTINEL_COMMAND "${c.command}" the label ends ${c.label ?? 'absent'} after ${c.writes} write(s)`, async () => {
        const box = fresh(c.start);
        writeFileSync(box.sentinel, ''); // ignored: the command wins over the file
        const run = await runAgent(
          shell,
          box.env({ AGENT_ITERATIONS: '1', SENTINEL_COMMAND: c.command, NSENTER: '' }),
        );
        assert.equal(run.code, 0, run.output);
        assert.equal(api.node().labels[LABEL], c.label);
        assert.equal(api.writes().length, c.writes);
      });
    }

    it('keeps the packages annotation short and JSON-safe', async () => {
      const box = fresh(unmarked());
      writeFileSync(box.sentinel, '');
      const names = Array.from({ length: 40 }, (_, i) => `package-number-${i}`);
      writeFileSync(`${box.sentinel}.pkgs`, `evil"},"x":"y\n${names.join('\n')}\n`);
      const run = await runAgent(
        shell,
        box.env({ AGENT_ITERATIONS: '1', MAX_PACKAGES_CHARS: '100' }),
      );
      assert.equal(run.code, 0, run.output);
      const value = api.node().annotations[PKGS]!;
      assert.ok(value.length <= 100, value);
      assert.match(value, /^evil,x,:,y,package-number-0,[a-z0-9,-]+,\.\.\.$/);
      assertOnlyOwnKeys(api);
    });

    const bad: { env: Record<string, string>; message: RegExp }[] = [
      { env: { NODE_NAME: '' }, message: /NODE_NAME must be this node's name/ },
      { env: { NODE_NAME: 'Bad Name' }, message: /NODE_NAME must be this node's name/ },
      { env: { PERIOD_SECONDS: '5m' }, message: /PERIOD_SECONDS must be a whole number/ },
    ];
    for (const b of bad) {
      it(`exits 2 with a clear message for ${JSON.stringify(b.env)}`, async () => {
        const box = fresh(unmarked());
        const run = await runAgent(shell, box.env({ AGENT_ITERATIONS: '1', ...b.env }));
        assert.equal(run.code, 2);
        assert.match(run.output, b.message);
        assert.equal(api.writes().length, 0);
      });
    }
  });
}
