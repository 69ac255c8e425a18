/** Where the node's builds are cached (kept across clones) and where a running set of VMs keeps its state. */
import { join } from 'node:path';
import { cacheBase } from '../real-cluster/versions.js';

/** `$XDG_CACHE_HOME/kubemaint/node`, else `~/.cache/kubemaint/node`. */
export function nodeCacheDir(): string {
  return join(cacheBase(), 'kubemaint', 'node');
}

export const DEFAULT_NODE_STATE_DIR = '.kubemaint/real-node';
