/** The VM's QEMU command line: isolated networking with only the explicit doors, TCG, reboots kept in. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qemuArgs, type VmSpec } from '../../../scripts/real-node/vm.js';

const spec: VmSpec = {
  name: 'kubemaint-vm-1',
  dir: '/state/kubemaint-vm-1',
  disk: '/state/kubemaint-vm-1/disk.img',
  seed: '/state/kubemaint-vm-1/seed.img',
  kernel: '/cache/vmlinuz',
  initrd: '/cache/initrd.img',
  apiserverPort: 41234,
  sshPort: 42022,
  kubeletPort: 43250,
  kubeletHost: '127.0.0.1',
  memoryMiB: 1024,
};

const after = (args: string[], flag: string) => args.filter((_, i) => args[i - 1] === flag);

describe('qemuArgs', () => {
  const args = qemuArgs(spec);
  const [netdev = ''] = after(args, '-netdev');

  it('isolates the guest: restrict=on, and no forward but the apiserver in and SSH and the kubelet out on loopback', () => {
    const options = netdev.split(',');
    assert.ok(options.includes('restrict=on'), netdev);
    const hostfwds = options.filter((o) => o.startsWith('hostfwd='));
    assert.deepEqual(hostfwds, [
      'hostfwd=tcp:127.0.0.1:42022-:22',
      'hostfwd=tcp:127.0.0.1:43250-:43250',
    ]);
    const guestfwds = options.filter((o) => o.startsWith('guestfwd='));
    assert.equal(guestfwds.length, 1);
    assert.match(
      guestfwds[0]!,
      /^guestfwd=tcp:10\.0\.2\.100:6443-cmd:socat -lf \/state\/kubemaint-vm-1\/socat\.log STDIO TCP:127\.0\.0\.1:41234$/,
    );
    assert.equal(after(args, '-netdev').length, 1, 'one network, no default one (-nodefaults)');
    assert.ok(args.includes('-nodefaults'));
  });

  it('emulates with TCG and a bounded translation cache, and lets the guest reboot inside the same QEMU', () => {
    assert.deepEqual(after(args, '-accel'), ['tcg,tb-size=256']);
    assert.ok(!args.includes('-no-reboot'), 'a guest reboot must reset, not end QEMU');
    assert.ok(!args.some((a) => /kvm/.test(a)));
  });

  it('appends every boot to one console log and boots the disk image read-write, the seed read-only', () => {
    assert.deepEqual(after(args, '-chardev'), [
      'file,id=console,path=/state/kubemaint-vm-1/console.log,append=on',
    ]);
    assert.deepEqual(after(args, '-drive'), [
      'file=/state/kubemaint-vm-1/disk.img,if=virtio,format=raw',
      'file=/state/kubemaint-vm-1/seed.img,if=virtio,format=raw,readonly=on',
    ]);
    assert.match(after(args, '-append')[0]!, /root=\/dev\/vda rw console=ttyS0/);
  });

  it("forwards pkgs.k8s.io's guest address to the test's package server only when there is one", () => {
    const guestfwds = (args: string[]) =>
      (after(args, '-netdev')[0] ?? '').split(',').filter((o) => o.startsWith('guestfwd='));
    assert.equal(guestfwds(args).length, 1, 'no package server: the apiserver only');
    const withPkgs = guestfwds(qemuArgs({ ...spec, pkgsPort: 44443 }));
    assert.equal(withPkgs.length, 2);
    assert.match(
      withPkgs[1]!,
      /^guestfwd=tcp:10\.0\.2\.101:443-cmd:socat -lf \/state\/kubemaint-vm-1\/socat-pkgs\.log STDIO TCP:127\.0\.0\.1:44443$/,
    );
  });
});
