/**
 * A sim with a state directory is the same cluster after a restart (ADR 0030): its objects with
 * their uids and resourceVersions, its CA, token and port, so a client holding the old kubeconfig
 * goes on working; versions continue upward and a watch from before the restart is 410 Gone. A state
 * that will not load is refused naming the file and saying how to start afresh; a write torn by a
 * crash is dropped; two sims cannot share one directory; a saved cluster is not quietly re-seeded.
 */
import assert from 'node:assert/strict';
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createSim, R, SimError, type Sim, type SimOptions } from '../../src/index.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubesim-state-'));
  dirs.push(dir);
  return dir;
}

const start = (dir: string, options: SimOptions = {}): Promise<Sim> =>
  createSim({
    scenario: 'empty',
    controllers: false,
    scale: 100,
    kubeconfigPath: join(dir, 'sim.kubeconfig'),
    state: join(dir, 'state'),
    ...options,
  });

const client = (path: string): CoreV1Api => {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc.makeApiClient(CoreV1Api);
};

const configMap = (name: string) => ({
  metadata: { name, namespace: 'default' },
  data: { a: '1' },
});

/** The SimError a promise rejects with (assert.rejects cannot return it). */
async function refusal(promise: Promise<Sim>): Promise<SimError> {
  let started: Sim;
  try {
    started = await promise;
  } catch (error) {
    assert.ok(error instanceof SimError, String(error));
    return error;
  }
  // Started after all: stop it, or the test process never ends.
  await started.stop();
  assert.fail('expected a SimError');
}

describe('a sim with saved state', () => {
  it('restarts as the same cluster: objects, uids, versions, CA, token and port; versions go on upward', async () => {
    const dir = tempDir();
    const first = await start(dir);
    const made = first.store.create(R.configmaps, configMap('kept'), { actor: 'test' });
    first.store.create(R.configmaps, configMap('gone'), { actor: 'test' });
    first.store.delete(R.configmaps, 'default', 'gone');
    const lastRv = Number(first.store.resourceVersion());
    const ca = first.credentials.caPem;
    const url = first.url;
    // A client made before the restart: it must work after it unchanged.
    const before = client(first.kubeconfigPath);
    const kubeconfig = readFileSync(first.kubeconfigPath, 'utf8');
    await first.stop();

    const second = await start(dir);
    try {
      assert.equal(second.credentials.caPem, ca, 'the same CA');
      assert.equal(second.url, url, 'served on the same port');
      assert.equal(readFileSync(second.kubeconfigPath, 'utf8'), kubeconfig, 'the same kubeconfig');
      const kept = await before.readNamespacedConfigMap({ name: 'kept', namespace: 'default' });
      assert.equal(kept.metadata?.uid, made.metadata.uid);
      assert.equal(kept.metadata?.resourceVersion, made.metadata.resourceVersion);
      assert.equal(second.store.get(R.configmaps, 'default', 'gone'), undefined);
      assert.ok(Number(second.store.resourceVersion()) >= lastRv);
      const next = second.store.create(R.configmaps, configMap('next'), { actor: 'test' });
      assert.ok(Number(next.metadata.resourceVersion) > lastRv, 'versions continue upward');
      // The watch cache starts empty at the restart: older versions are 410 Gone, the current one resumes.
      assert.throws(
        () => second.store.watchFrom(R.configmaps, String(lastRv - 1), () => undefined),
        (error: { code?: number }) => error.code === 410,
      );
      const seen: string[] = [];
      const stop = second.store.watchFrom(R.configmaps, String(lastRv), (e) =>
        seen.push(`${e.type} ${e.object.metadata.name ?? ''}`),
      );
      stop();
      assert.deepEqual(seen, ['ADDED next']);
    } finally {
      await second.stop();
    }
  });

  it('ends or restarts a pod whose local process died with the sim, as a kubelet that lost its runtime', async () => {
    const dir = tempDir();
    const sleeper = [process.execPath, '-e', 'setInterval(() => {}, 1000)'];
    const options: SimOptions = {
      scenario: 'demo',
      controllers: true,
      images: { 'sim.test/sleeper:*': { command: sleeper } },
    };
    const pod = (name: string, restartPolicy: string) => ({
      metadata: { name, namespace: 'default' },
      spec: {
        nodeName: 'node-1',
        restartPolicy,
        containers: [{ name: 'main', image: 'sim.test/sleeper:1' }],
      },
    });
    const phase = (sim: Sim, name: string) =>
      sim.store.get(R.pods, 'default', name)?.status?.['phase'] as string | undefined;
    const until = async (what: string, probe: () => boolean) => {
      for (let i = 0; i < 300 && !probe(); i++) await new Promise((r) => setTimeout(r, 50));
      assert.ok(probe(), what);
    };
    const first = await start(dir, options);
    first.store.create(R.pods, pod('once', 'Never'), { actor: 'test' });
    first.store.create(R.pods, pod('server', 'Always'), { actor: 'test' });
    await until(
      'both run',
      () => phase(first, 'once') === 'Running' && phase(first, 'server') === 'Running',
    );
    await first.stop();

    const second = await start(dir, options);
    try {
      await until('the Never pod ends', () => phase(second, 'once') === 'Failed');
      const ended = second.store.get(R.pods, 'default', 'once')!;
      const state = (
        ended.status?.['containerStatuses'] as { state?: { terminated?: { exitCode?: number } } }[]
      )[0]?.state;
      assert.equal(state?.terminated?.exitCode, 137, 'killed with its runtime');
      const restarts = () =>
        (
          second.store.get(R.pods, 'default', 'server')?.status?.['containerStatuses'] as
            { restartCount?: number }[] | undefined
        )?.[0]?.restartCount ?? 0;
      await until('the Always pod starts again', () => restarts() >= 1);
      assert.equal(phase(second, 'server'), 'Running');
    } finally {
      await second.stop();
    }
  });

  it('keeps custom resources: the CRD is served again with its objects', async () => {
    const dir = tempDir();
    const first = await start(dir);
    first.store.create(
      'customresourcedefinitions.apiextensions.k8s.io',
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      },
      { actor: 'test' },
    );
    const widget = first.store.create(
      'widgets.example.com',
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1', namespace: 'default' },
        spec: { size: 3 },
      },
      { actor: 'test' },
    );
    await first.stop();
    const second = await start(dir);
    try {
      const back = second.store.get('widgets.example.com', 'default', 'w1');
      assert.equal(back?.metadata.uid, widget.metadata.uid);
      assert.deepEqual(back?.['spec'], { size: 3 });
      second.store.create(
        'widgets.example.com',
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w2', namespace: 'default' },
        },
        { actor: 'test' },
      );
    } finally {
      await second.stop();
    }
  });

  it('after a crash: the journal replays every whole write and drops a torn last line', async () => {
    const dir = tempDir();
    const first = await start(dir);
    first.store.create(R.configmaps, configMap('before'), { actor: 'test' });
    // What a crash (kill -9) leaves: the snapshot taken at start, and the journal since.
    const snapshot = join(dir, 'state', 'snapshot.json');
    const journal = join(dir, 'state', 'journal.ndjson');
    const atCrash = {
      snapshot: readFileSync(snapshot, 'utf8'),
      journal: readFileSync(journal, 'utf8'),
    };
    assert.doesNotMatch(atCrash.snapshot, /"name":"before"/);
    assert.match(atCrash.journal, /"name":"before"/);
    await first.stop();
    writeFileSync(snapshot, atCrash.snapshot);
    writeFileSync(journal, atCrash.journal);
    // The write the process died in: half a line, never answered.
    appendFileSync(journal, '{"rv":99999,"type":"ADDED","resource":"configmaps","obj');
    const second = await start(dir);
    try {
      assert.ok(second.store.get(R.configmaps, 'default', 'before'), 'replayed from the journal');
      assert.ok(Number(second.store.resourceVersion()) < 99999, 'the torn write is dropped');
    } finally {
      await second.stop();
    }
  });

  it('refuses a corrupt or incompatible state naming the file and how to start afresh', async () => {
    const dir = tempDir();
    await (await start(dir)).stop();
    const snapshot = join(dir, 'state', 'snapshot.json');
    const saved = readFileSync(snapshot, 'utf8');

    writeFileSync(snapshot, saved.slice(0, 40));
    let error = await refusal(start(dir));
    assert.equal(error.code, 'config_invalid');
    assert.match(error.message, new RegExp(`${snapshot} is not valid JSON`));
    assert.match(error.hint ?? '', /mv .*state .*state\.old/);

    writeFileSync(snapshot, saved.replace('"version":1', '"version":7'));
    error = await refusal(start(dir));
    assert.match(error.message, /snapshot\.json is version 7; this kubesim reads version 1 only/);

    writeFileSync(snapshot, saved);
    const journal = join(dir, 'state', 'journal.ndjson');
    writeFileSync(journal, 'not json\n{"rv":1}\n');
    error = await refusal(start(dir));
    assert.match(error.message, /journal\.ndjson line 1 is not valid JSON/);

    writeFileSync(journal, '');
    writeFileSync(
      join(dir, 'state', 'credentials.json'),
      '{"kind":"KubesimCredentials","version":1}',
    );
    error = await refusal(start(dir));
    assert.match(error.message, /credentials\.json has no caPem/);
  });

  it('is used by one sim at a time, and is not re-seeded as another scenario', async () => {
    const dir = tempDir();
    const first = await start(dir, { kubeconfigPath: join(dir, 'a.kubeconfig') });
    try {
      // The lock names a live pid: another process's sim is refused.
      const lock = join(dir, 'state', 'lock');
      writeFileSync(lock, String(process.ppid));
      const error = await refusal(start(dir, { kubeconfigPath: join(dir, 'b.kubeconfig') }));
      assert.match(error.message, new RegExp(`another sim \\(pid ${process.ppid}\\) is using`));
      writeFileSync(lock, String(process.pid));
    } finally {
      await first.stop();
    }
    // A live pid that started at another time is not the sim that wrote the lock (the system gave
    // its pid to another process): the lock is taken over, and nothing is left beside it.
    writeFileSync(join(dir, 'state', 'lock'), `${process.ppid} 1`);
    const second = await start(dir, { kubeconfigPath: join(dir, 'c.kubeconfig') });
    try {
      const taken = readFileSync(join(dir, 'state', 'lock'), 'utf8').split(' ');
      assert.equal(taken[0], String(process.pid));
      assert.match(taken[1] ?? '', /^\d+$/, 'the lock records when this process started');
      assert.deepEqual(
        readdirSync(join(dir, 'state')).filter((f) => f.startsWith('lock')),
        ['lock'],
      );
      // The lock as this sim wrote it refuses a sim of another process.
      writeFileSync(join(dir, 'state', 'lock'), `${process.ppid} ${startTimeOf(process.ppid)}`);
      const error = await refusal(start(dir, { kubeconfigPath: join(dir, 'd.kubeconfig') }));
      assert.match(error.message, new RegExp(`another sim \\(pid ${process.ppid}\\) is using`));
      writeFileSync(join(dir, 'state', 'lock'), taken.join(' '));
    } finally {
      await second.stop();
    }
    const error = await refusal(start(dir, { scenario: 'fleet', nodes: 3 }));
    assert.equal(error.code, 'config_invalid');
    assert.match(
      error.message,
      /holds a cluster seeded as empty with 0 nodes, not fleet with 3 nodes/,
    );
    assert.match(error.hint ?? '', /mv /);
  });
});

/** When a process started, in clock ticks since boot (/proc/<pid>/stat, field 22). */
function startTimeOf(pid: number): string {
  return (
    readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')[19] ?? ''
  );
}
