/**
 * A ClusterPort that dies: after a random number of calls it throws, as a tick whose process was
 * killed mid-way stops issuing requests. Every call before the crash really happened, so the cluster
 * is left exactly as a killed tick would leave it. After `crashes` crashes it behaves.
 */
import type { ClusterPort } from '../../src/app/control/ports.js';
import { seededRandom } from '@kubemaint/kubesim/testing';

export interface CrashingCluster {
  cluster: ClusterPort;
  crashed(): number;
}

export class TickKilled extends Error {
  constructor(call: string) {
    super(`tick killed before ${call}`);
  }
}

export function crashingCluster(
  inner: ClusterPort,
  options: { crashes: number; seed: number; maxCalls: number },
): CrashingCluster {
  const random = seededRandom(options.seed);
  const draw = () => Math.floor(random() * options.maxCalls);
  let budget = draw();
  let crashed = 0;
  const cluster = new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        if (crashed < options.crashes && budget-- <= 0) {
          crashed++;
          budget = draw();
          throw new TickKilled(String(key));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { cluster, crashed: () => crashed };
}
