/**
 * A pod's volumes for a local process (attach mode): ConfigMap and Secret keys written as files, and
 * the container's env paths under a mount rebased onto the copy.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mountedVolumes, rebasePaths, writeVolume } from '../../src/attach/pod-volumes.js';

const dir = mkdtempSync(join(tmpdir(), 'pod-volumes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('rebasePaths', () => {
  const mounts = [
    { mountPath: '/etc/kubemaint', local: '/tmp/p/config' },
    { mountPath: '/etc/kubemaint/tls/', local: '/tmp/p/tls' },
  ];
  it('points a path under a mount, or the mount itself, at the local copy; the deepest mount wins', () => {
    assert.deepEqual(
      rebasePaths(
        {
          KUBEMAINT_CONFIG: '/etc/kubemaint/kubemaint.yaml',
          DIR: '/etc/kubemaint',
          CERT: '/etc/kubemaint/tls/tls.crt',
        },
        mounts,
      ),
      {
        KUBEMAINT_CONFIG: '/tmp/p/config/kubemaint.yaml',
        DIR: '/tmp/p/config',
        CERT: '/tmp/p/tls/tls.crt',
      },
    );
  });
  it('leaves other values alone, a look-alike prefix included', () => {
    const env = { A: '/etc/kubemaint-other/x', B: 'serve', C: 'etc/kubemaint/x' };
    assert.deepEqual(rebasePaths(env, mounts), env);
  });
});

describe('writeVolume', () => {
  it('writes every key of a ConfigMap, and only the items named of a Secret, decoded', () => {
    writeVolume(join(dir, 'cm'), { name: 'cm', configMap: { name: 'c' } }, { a: '1', b: '2' });
    assert.deepEqual(readdirSync(join(dir, 'cm')).sort(), ['a', 'b']);
    writeVolume(
      join(dir, 's'),
      { name: 's', secret: { secretName: 's', items: [{ key: 'pw', path: 'sub/password' }] } },
      { pw: Buffer.from('s3cret').toString('base64'), other: 'eA==' },
    );
    assert.equal(readFileSync(join(dir, 's', 'sub', 'password'), 'utf8'), 's3cret');
    assert.deepEqual(readdirSync(join(dir, 's')), ['sub']);
  });
  it('fails as a mount does for a missing source or key, unless optional', () => {
    assert.throws(
      () => writeVolume(join(dir, 'x'), { name: 'x', configMap: { name: 'gone' } }, undefined),
      /configmap gone not found \(volume x\)/,
    );
    writeVolume(
      join(dir, 'y'),
      { name: 'y', configMap: { name: 'gone', optional: true } },
      undefined,
    );
    assert.throws(
      () =>
        writeVolume(
          join(dir, 'z'),
          { name: 'z', configMap: { name: 'c', items: [{ key: 'nope', path: 'n' }] } },
          {},
        ),
      /key nope not found in configmap c/,
    );
  });
  it('refuses an item path that leaves the volume', () => {
    assert.throws(
      () =>
        writeVolume(
          join(dir, 'w'),
          { name: 'w', configMap: { name: 'c', items: [{ key: 'a', path: '../../evil' }] } },
          { a: '1' },
        ),
      /bad path/,
    );
  });
});

describe('mountedVolumes', () => {
  it('pairs each mount with its volume; a subPath mount is not modelled', () => {
    const pod = {
      metadata: { name: 'p' },
      spec: {
        volumes: [
          { name: 'config', configMap: { name: 'c' } },
          { name: 'tmp', emptyDir: {} },
        ],
      },
    };
    const found = mountedVolumes(pod, {
      name: 'c',
      volumeMounts: [
        { name: 'config', mountPath: '/etc/kubemaint' },
        { name: 'tmp', mountPath: '/tmp', subPath: 'x' },
        { name: 'missing', mountPath: '/m' },
      ],
    });
    assert.deepEqual(
      found.map((f) => [f.volume.name, f.mountPath]),
      [['config', '/etc/kubemaint']],
    );
  });
});
