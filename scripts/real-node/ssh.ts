/** Reaching a node over SSH: its forwarded port on loopback, the state folder's key. */
import { join } from 'node:path';

/** The options for `ssh` into a node: the state folder's key, no host-key bookkeeping (every VM is new). */
export function sshArgs(dir: string, port: number): string[] {
  return [
    '-i',
    join(dir, 'id_ed25519'),
    '-p',
    String(port),
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    'ConnectTimeout=10',
    'root@127.0.0.1',
  ];
}
