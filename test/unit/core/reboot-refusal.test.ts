import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeRefusal, rebootRefusal } from '../../../src/core/reboot-refusal.js';

// systemd's own lines (src/systemctl/systemctl-logind.c, src/login/logind-dbus.c).
const V258 = 'Failed to reboot system via logind: Operation denied due to active block inhibitor';
const V257 = 'Failed to reboot system via logind: Access denied due to active block inhibitor';
const CLIENT =
  'Operation inhibited by "backup.sh" (PID 4242 "bash", user root), reason is "nightly backup to s3".\n' +
  'Please retry operation after closing inhibitors and logging out other users.\n' +
  "Alternatively, ignore inhibitors and users with 'systemctl reboot -i'.";
const POLKIT = 'Failed to reboot system via logind: Interactive authentication required.';
const OLD = 'Call to Reboot failed: Access denied';

describe('rebootRefusal: systemd refusing a reboot, told apart from any other failure', () => {
  const cases = [
    { why: 'logind, systemd 258 (root too, PR #30307)', out: V258, kind: 'inhibitor' },
    { why: 'logind, systemd 257', out: V257, kind: 'inhibitor' },
    { why: "systemctl's own check names the holder", out: CLIENT, kind: 'inhibitor' },
    { why: 'polkit', out: POLKIT, kind: 'logind' },
    { why: 'an older systemctl', out: OLD, kind: 'logind' },
    {
      why: 'nsenter failing is not systemd',
      out: 'nsenter: cannot open /proc/1/ns/mnt: Permission denied',
      kind: undefined,
    },
    { why: 'nothing printed', out: '', kind: undefined },
  ];
  for (const c of cases)
    it(`${c.kind ?? 'none'}: ${c.why}`, () => assert.equal(rebootRefusal(c.out)?.kind, c.kind));

  it('names who holds the lock and why when systemd said, and how to find out when not', () => {
    const named = describeRefusal(rebootRefusal(CLIENT)!);
    assert.match(
      named,
      /a block inhibitor on shutdown is held \("backup.sh" holds it: nightly backup to s3\)/,
    );
    const unnamed = describeRefusal(rebootRefusal(`kubemaint: ...\n${V258}\n`)!);
    assert.match(unnamed, /systemd-inhibit --list --mode=block/);
    assert.match(unnamed, /Operation denied due to active block inhibitor$/);
  });
});
