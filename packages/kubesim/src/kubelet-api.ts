/**
 * What a simulated kubelet reads and writes of its cluster, and nothing more: its own Node, the pods
 * bound to it, its Lease, Events. The kubelet's behaviour (kubelet.ts, kubelet-pods.ts) is written
 * once against this port; two adapters carry it: the embedded store (kubelet-store-api.ts, writes as
 * `kubelet/<node>`) and a real apiserver (attach/kubelet-http-api.ts, writes as `system:node:<node>`).
 *
 * Every call is synchronous and reads its own writes at once. Over HTTP that is a write-behind cache
 * that sends writes in the background, the way the kubelet's own status manager keeps pod statuses
 * in memory and syncs them to the apiserver.
 */
import type { SimDelays } from './controllers/context.js';
import type { KObject, SimClock } from './types.js';

/** The clock and delays a kubelet runs on (the sim's scaled clock, embedded or attached). */
export interface KubeletContext {
  clock: SimClock;
  delays: SimDelays;
}

export interface KubeletApi {
  /** The kubelet's Node as last seen, or undefined once it is gone (or before it registered). */
  node(): KObject | undefined;
  /** Pods bound to this node. */
  pods(): KObject[];
  pod(namespace: string | undefined, name: string): KObject | undefined;
  /** Read-modify-write of the Node's status (`nodes/<name>/status`). */
  writeNodeStatus(mutate: (node: KObject) => void): void;
  /** Renew the node's Lease in kube-node-lease (created the first time). */
  renewLease(renewTime: string): void;
  /**
   * Read-modify-write of `pods/<name>/status`, only while the pod with `pod`'s uid exists; returns the
   * pod as written, undefined when it is gone or replaced.
   */
  writePodStatus(pod: KObject, mutate: (pod: KObject) => void): KObject | undefined;
  /** Remove a pod whose containers have stopped: grace 0, only the pod with that uid. */
  deletePod(pod: KObject): void;
  recordEvent(event: KObject): void;
  /**
   * The status manager's periodic sync, run with each heartbeat: put back what this kubelet last
   * wrote where another writer changed it (the node lifecycle controller marks every pod NotReady
   * when the node's heartbeats were missed; a kubelet still running sets them Ready again). Only an
   * apiserver other than the sim's own has such writers between heartbeats. @default nothing
   */
  resyncPods?(): void;
}
