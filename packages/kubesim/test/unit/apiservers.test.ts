/**
 * The sim's apiservers as a real HA control plane shows them: `/version` with KEP-4330's emulation
 * fields (an emulated version is the binary's minor or the one below, nothing else), one identity
 * Lease per apiserver, and an extra apiserver answering `/version` at its Lease's peer address.
 */
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { describe, it } from 'node:test';
import {
  IDENTITY_LABEL,
  PEER_ADDRESS_ANNOTATION,
  parseApiserver,
  serverVersion,
  startApiservers,
} from '../../src/apiservers.js';
import { createStore } from '../../src/store.js';
import { serverTls } from '../../src/tls.js';
import { R } from '../../src/types.js';

describe('serverVersion', () => {
  it('emulates its own minor by default, compatible with the one below', () => {
    assert.deepEqual(serverVersion('v1.34.4'), {
      major: '1',
      minor: '34',
      emulationMajor: '1',
      emulationMinor: '34',
      minCompatibilityMajor: '1',
      minCompatibilityMinor: '33',
      gitVersion: 'v1.34.4',
    });
  });

  it('emulates the minor below when asked', () => {
    const v = parseApiserver('v1.34.4@1.33');
    assert.equal(v.emulationMinor, '33');
    assert.equal(v.minCompatibilityMinor, '32');
    assert.equal(v.gitVersion, 'v1.34.4');
  });

  it('refuses two minors down, a newer minor and a malformed one, saying what it can emulate', () => {
    assert.throws(() => serverVersion('v1.34.4', '1.32'), /can emulate 1\.34 or 1\.33, not 1\.32/);
    assert.throws(() => serverVersion('v1.34.4', '1.35'), /can emulate 1\.34 or 1\.33, not 1\.35/);
    assert.throws(() => serverVersion('v1.34.4', '1.33.0'), /major\.minor like 1\.33/);
    assert.throws(() => parseApiserver('1.34'), /must look like v1\.31\.4/);
  });
});

describe('startApiservers', () => {
  it('a Lease per apiserver; the extra one answers /version at its peer address', async () => {
    const store = createStore({ now: () => new Date() });
    // The store refuses objects in a namespace that does not exist; a cluster has kube-system.
    store.create(R.namespaces, { metadata: { name: 'kube-system' } });
    const tls = serverTls(['127.0.0.1', 'localhost', 'kubernetes.default.svc']);
    const apiservers = await startApiservers(store, {
      tls,
      extra: [parseApiserver('v1.33.2')],
      now: new Date(),
    });
    try {
      const leases = store.list(R.leases, {
        namespace: 'kube-system',
        labelSelector: `${IDENTITY_LABEL}=kube-apiserver`,
      });
      assert.equal(leases.length, 2);
      const address = leases
        .map((l) => l.metadata.annotations?.[PEER_ADDRESS_ANNOTATION])
        .filter((a) => a !== undefined);
      assert.equal(address.length, 1);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          `https://${address[0]}/version`,
          { ca: tls.caPem, servername: 'kubernetes.default.svc' },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      const version = JSON.parse(body) as { gitVersion: string; emulationMinor: string };
      assert.equal(version.gitVersion, 'v1.33.2');
      assert.equal(version.emulationMinor, '33');
    } finally {
      await apiservers.stop();
    }
  });
});
