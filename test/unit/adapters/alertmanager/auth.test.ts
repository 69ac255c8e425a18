/**
 * alertmanager.auth as the adapter sends it: a bearer token from the environment (unset: an error at
 * start that names the variable), basic auth with its password from a file read on every call (a
 * rotated Secret is picked up), and a 401 that points at alertmanager.auth.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alertmanagerFromConfig } from '../../../../src/adapters/alertmanager/from-config.js';
import type { AlertmanagerConfig } from '../../../../src/config/schema.js';
import { startHttpRecorder, type HttpRecorder } from '../../../support/http-recorder.js';

const section = (auth: AlertmanagerConfig['auth'], url: string): AlertmanagerConfig => ({
  url,
  ...(auth ? { auth } : {}),
  silences: ['node="<node>"'],
  margin: 900_000,
  onFailure: 'block',
});

describe('alertmanager.auth', () => {
  let recorder: HttpRecorder;
  let dir: string;
  before(async () => {
    recorder = await startHttpRecorder({ status: 200, body: '[]' });
    dir = mkdtempSync(join(tmpdir(), 'kubemaint-am-auth-'));
  });
  after(async () => {
    await recorder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a bearer token from the environment; an unset variable is an error at start', async () => {
    const port = alertmanagerFromConfig(
      section({ bearerToken: { env: 'AM_TOKEN' } }, recorder.url),
      {
        cluster: 'prod',
        env: { AM_TOKEN: 's3cret' },
      },
    );
    await port!.listOwn();
    assert.equal(recorder.requests.at(-1)?.headers.authorization, 'Bearer s3cret');
    assert.throws(
      () =>
        alertmanagerFromConfig(section({ bearerToken: { env: 'AM_TOKEN' } }, recorder.url), {
          cluster: 'prod',
          env: {},
        }),
      /alertmanager\.auth\.bearerToken: AM_TOKEN is not set/,
    );
  });

  it('sends basic auth with the password file as it is at each call', async () => {
    const file = join(dir, 'password');
    writeFileSync(file, 'one\n');
    const port = alertmanagerFromConfig(
      section({ basic: { username: 'kubemaint', password: { file } } }, recorder.url),
      { cluster: 'prod', env: {} },
    )!;
    await port.listOwn();
    const basic = (password: string) =>
      `Basic ${Buffer.from(`kubemaint:${password}`).toString('base64')}`;
    assert.equal(recorder.requests.at(-1)?.headers.authorization, basic('one'));
    writeFileSync(file, 'two');
    await port.listOwn();
    assert.equal(recorder.requests.at(-1)?.headers.authorization, basic('two'));
  });

  it('no auth, no header; a 401 says to check alertmanager.auth', async () => {
    const port = alertmanagerFromConfig(section(undefined, recorder.url), {
      cluster: 'prod',
      env: {},
    })!;
    recorder.reply({ status: 401, body: 'Unauthorized' });
    await assert.rejects(
      port.listOwn(),
      /refused to list silences: HTTP 401 Unauthorized \(check alertmanager\.auth\)/,
    );
    assert.equal(recorder.requests.at(-1)?.headers.authorization, undefined);
  });
});
