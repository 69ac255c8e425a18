/**
 * What a host command called by name means on a simulated node (src/host-shim.mjs): a reboot of the
 * simulated host, a signal passed on, or a refusal that says why. Pure: nothing here runs a command
 * (the shims as processes on a pod's PATH: test/integration/host-shims.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shimAction } from '../../src/host-shim.mjs';

const REBOOT = { kind: 'host', argv: ['reboot'] };

describe('host shims of a simulated node', () => {
  const reboots: [string, string[]][] = [
    ['nsenter', ['-m/proc/1/ns/mnt', '--', 'systemctl', 'reboot']],
    ['nsenter', ['--target', '1', '--mount', '--uts', '--', '/usr/bin/systemctl', 'reboot']],
    ['nsenter', ['-t', '1', '-m', 'reboot']],
    ['nsenter', ['-m/proc/1/ns/mnt', '--', 'kubemaint-sim-host', 'reboot']],
    ['systemctl', ['--no-block', 'reboot']],
    ['systemctl', ['kexec']],
    ['reboot', []],
    ['reboot', ['-f']],
    ['shutdown', ['-r', 'now']],
    ['shutdown', ['--reboot', '+1']],
    ['kill', ['-s', 'RTMIN+5', '1']],
    ['kill', ['-SIGRTMIN+5', '1']],
    ['kill', ['-39', '1']],
    ['kill', ['-n', '39', '--', '1']],
    ['telinit', ['6']],
    ['nsenter', ['-m/proc/1/ns/mnt', '--', 'init', '6']],
  ];
  for (const [name, args] of reboots) {
    it(`${name} ${args.join(' ')} reboots the simulated node`, () => {
      assert.deepEqual(shimAction(name, args), REBOOT);
    });
  }

  it('passes an upgrade through nsenter on to the simulated host', () => {
    assert.deepEqual(
      shimAction('nsenter', ['-m/proc/1/ns/mnt', '--', 'kubemaint-sim-host', 'upgrade', 'v1.31.4']),
      { kind: 'host', argv: ['upgrade', 'v1.31.4'] },
    );
  });

  const refusals: [string, string[], RegExp][] = [
    [
      'nsenter',
      ['-m/proc/1/ns/mnt', '--', 'sh', '-c', 'apt-get install -y kubelet'],
      /would run "sh" on the machine that runs the simulator/,
    ],
    ['nsenter', ['-m/proc/1/ns/mnt', '--', '/usr/bin/apt-get', 'upgrade'], /would run "apt-get"/],
    ['nsenter', ['-m/proc/1/ns/mnt', '--', 'nsenter', '-t', '1', 'sh'], /would run "nsenter"/],
    ['nsenter', ['-t', '1', '-m'], /nsenter without a command would start a shell/],
    ['systemctl', ['poweroff'], /systemctl poweroff is not a reboot/],
    ['systemctl', ['restart', 'kubelet'], /systemctl restart kubelet is not a reboot/],
    ['reboot', ['--poweroff'], /would power the node off/],
    ['shutdown', ['-h', 'now'], /shutdown -h now powers the node off \(shutdown -r reboots it\)/],
    ['shutdown', [], /powers the node off/],
    ['halt', [], /halt would power the node off/],
    ['poweroff', ['-f'], /poweroff would power the node off/],
    ['kill', ['1'], /would signal the init of the machine that runs the simulator/],
    ['kill', ['-TERM', '1'], /would signal the init/],
    ['kill', ['-s', 'RTMIN+5', '1', '42'], /would signal the init/],
    ['kill', ['-9', '-1'], /a process group or every process/],
    ['kill', ['0'], /a process group or every process/],
    ['kill', ['-9', '--', '-1234'], /a process group or every process/],
    ['kill', ['-l'], /only numeric PIDs/],
    ['kill', ['%1'], /only numeric PIDs/],
    ['init', ['0'], /init 0 is not runlevel 6/],
    ['telinit', ['1'], /telinit 1 is not runlevel 6/],
    [
      'nsenter',
      [
        '-m/proc/1/ns/mnt',
        '--',
        'systemd-run',
        '--on-active=15',
        'systemctl',
        'restart',
        'kubelet',
      ],
      /systemd-run would schedule a unit on the machine/,
    ],
  ];
  for (const [name, args, says] of refusals) {
    it(`refuses ${name} ${args.join(' ')}, saying why`, () => {
      const action = shimAction(name, args);
      assert.equal(action.kind, 'refuse');
      assert.match(action.kind === 'refuse' ? action.why : '', says);
      assert.match(action.kind === 'refuse' ? action.why : '', /only a reboot reaches its host/);
    });
  }

  it('passes a signal to another PID on, as the caller could send it itself', () => {
    assert.deepEqual(shimAction('kill', ['4242']), {
      kind: 'signal',
      pids: [4242],
      signal: 'SIGTERM',
    });
    assert.deepEqual(shimAction('kill', ['-s', 'HUP', '7', '8']), {
      kind: 'signal',
      pids: [7, 8],
      signal: 'SIGHUP',
    });
    assert.deepEqual(shimAction('kill', ['-9', '4242']), {
      kind: 'signal',
      pids: [4242],
      signal: 9,
    });
  });
});
