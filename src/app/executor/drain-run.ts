/**
 * One drain in flight (see drain.ts): a loop per pod (evict or delete, wait for it to be gone, retry
 * refusals) plus a supervisor that enforces the deadline and skip-wait-for-delete-timeout, notices a
 * stall and follows the operator's decision. Progress goes out through the hooks on every change.
 */
import type { Clock, EvictionResult, PodInfo, PodsPort } from '../ports.js';
import type { DrainHooks, DrainInput, DrainReport } from './drain-types.js';
import { describeRefusal, isOpen, summarize, type PodState } from './drain-progress.js';
import { watchGone, type GoneWatch } from './drain-watch.js';

export class DrainRun {
  private readonly ports: { pods: PodsPort; clock: Clock };
  private readonly input: DrainInput;
  private readonly hooks: DrainHooks;
  private readonly states: PodState[];
  private readonly byUid = new Map<string, PodState>();
  private readonly waiters = new Map<string, () => void>();
  private readonly done = new AbortController();
  private wake = new AbortController();
  private forced = false;
  private forcedBy: 'config' | 'decision' | undefined;
  /** Set once the timeout passed under `onTimeout: force`: when the remaining pods are deleted. */
  private forceAt: Date | undefined;
  private lastChangeAt: Date;
  private stalledSince: Date | undefined;
  private ending: 'skipped' | 'timeout' | undefined;
  private readonly errors: string[] = [];
  /** Each pod's PDB lane by uid (core/eviction-lanes.ts), and the last eviction sent in each lane. */
  private readonly lanes: ReadonlyMap<string, string>;
  private readonly laneTails = new Map<string, Promise<unknown>>();

  constructor(
    ports: { pods: PodsPort; clock: Clock },
    input: DrainInput,
    hooks: DrainHooks,
    states: PodState[],
    started: Date,
    lanes: ReadonlyMap<string, string> = new Map(),
  ) {
    this.lanes = lanes;
    this.ports = ports;
    this.input = input;
    this.hooks = hooks;
    this.states = states;
    this.lastChangeAt = started;
    for (const state of states) this.byUid.set(state.uid, state);
  }

  async execute(
    targets: PodInfo[],
  ): Promise<Omit<DrainReport, 'evict' | 'skipped' | 'warnings' | 'durationMs'>> {
    const { pods, clock } = this.ports;
    const watch: GoneWatch = await watchGone(pods, clock, {
      node: this.input.node,
      wanted: () => this.states.filter(isOpen).map((s) => s.uid),
      onGone: (uid) => this.finish(uid, 'done', 'evicted'),
      onSeen: (pod) => {
        const state = this.byUid.get(pod.uid);
        if (state && pod.deletionTimestamp) state.deletionTimestamp = pod.deletionTimestamp;
      },
      onError: (error) => this.hooks.log?.warn({ err: error }, 'pod watch error; resyncing'),
    });
    await this.emit();
    const supervisor = this.supervise();
    try {
      await Promise.all(targets.map((pod) => this.drainPod(pod)));
    } finally {
      this.done.abort();
      watch.stop();
      await supervisor;
    }
    return this.result();
  }

  private result(): Omit<DrainReport, 'evict' | 'skipped' | 'warnings' | 'durationMs'> {
    const progress = summarize(this.states, this.stalledSince, this.forceAt);
    const remaining = this.states
      .filter((s) => isOpen(s) || s.status === 'failed')
      .map((s) => ({ pod: s.ref, reason: s.reason }));
    const node = this.input.node;
    const marks = {
      ...(this.ending === 'timeout' || this.forceAt ? { timedOut: true } : {}),
      ...(this.forcedBy ? { forced: this.forcedPods } : {}),
    };
    if (remaining.length === 0) {
      return {
        outcome: 'drained',
        progress,
        errors: this.errors,
        remaining,
        message: `node ${node} drained: ${progress.message}`,
        ...marks,
      };
    }
    const why =
      this.ending === 'skipped'
        ? 'an operator chose to skip this node'
        : this.ending === 'timeout'
          ? `the drain timeout (${Math.round(this.input.settings.timeoutMs / 1_000)}s) passed`
          : 'pods could not be evicted';
    return {
      outcome: this.ending === 'skipped' ? 'skipped' : 'blocked',
      progress,
      errors: this.errors,
      remaining,
      message: `drain of ${node} blocked (${why}): ${progress.message}`,
      ...marks,
    };
  }

  private readonly forcedPods: string[] = [];

  private get stopped(): boolean {
    return this.ending !== undefined;
  }

  /** Evict (or delete) one pod until it is gone, refused for good, or the drain stops. */
  private async drainPod(pod: PodInfo): Promise<void> {
    const state = this.byUid.get(pod.uid)!;
    const { pods, clock } = this.ports;
    const settings = this.input.settings;
    const grace = settings.gracePeriodSeconds;
    const options = grace === undefined || grace < 0 ? {} : { gracePeriodSeconds: grace };
    while (isOpen(state) && !this.stopped) {
      if (state.status === 'terminating') {
        await this.waitGone(state);
        if (!this.forced || !isOpen(state)) return;
      }
      let result: EvictionResult;
      try {
        if (settings.disableEviction || this.forced) {
          await pods.deletePod(pod, options);
          result = { outcome: 'evicting' };
        } else {
          result = await this.inLane(pod.uid, () => pods.evictPod(pod, options));
        }
      } catch (error) {
        // No verdict (a delete's outage past the adapter's retries, anything unforeseen): the pod is
        // still there as far as we know, so try again until the deadline.
        const message = error instanceof Error ? error.message : String(error);
        result = { outcome: 'refused', message, pdbBlocked: false };
      }
      if (!isOpen(state)) return;
      if (result.outcome === 'unavailable') {
        // An apiserver restart or an etcd outage: wait like a refusal, never count the pod as done.
        this.update(state, 'refused', `API server unavailable: ${result.message}`);
        await clock.sleep(this.retryMs(), AbortSignal.any([this.done.signal, this.wake.signal]));
      } else if (result.outcome === 'evicting') {
        this.update(state, 'terminating', 'terminating');
      } else if (result.outcome === 'gone') {
        this.finish(pod.uid, 'done', 'evicted');
      } else if (result.outcome === 'failed') {
        this.errors.push(
          `error when evicting pods/"${pod.name}" -n "${pod.namespace}": ${result.message}`,
        );
        this.update(state, 'failed', result.message);
        return;
      } else {
        this.update(state, 'refused', describeRefusal(result.message, result.pdbBlocked));
        const retry = Math.max(this.retryMs(), result.retryAfterMs ?? 0);
        await clock.sleep(retry, AbortSignal.any([this.done.signal, this.wake.signal]));
      }
    }
  }

  /**
   * An eviction sent once the one before it in its PDB's lane has been answered, so kube-apiserver
   * never sees two under one PDB at once (each would cost the other a 500 ms conflict retry). Only
   * the call waits its turn: the refusals' waits run side by side as before.
   */
  private inLane<T>(uid: string, call: () => Promise<T>): Promise<T> {
    const lane = this.lanes.get(uid);
    if (lane === undefined) return call();
    const turn = (this.laneTails.get(lane) ?? Promise.resolve()).then(call);
    this.laneTails.set(
      lane,
      turn.catch(() => undefined),
    );
    return turn;
  }

  /** Jitter spreads the retries of many pods refused by the same PDB (or outage) over the interval. */
  private retryMs(): number {
    return (this.input.settings.evictionRetryMs ?? 1_000) * (0.8 + 0.4 * Math.random());
  }

  private waitGone(state: PodState): Promise<void> {
    if (!isOpen(state)) return Promise.resolve();
    return new Promise((resolve) => {
      const signal = AbortSignal.any([this.done.signal, this.wake.signal]);
      const finish = (): void => {
        signal.removeEventListener('abort', finish);
        this.waiters.delete(state.uid);
        resolve();
      };
      this.waiters.set(state.uid, finish);
      signal.addEventListener('abort', finish, { once: true });
    });
  }

  private update(state: PodState, status: PodState['status'], reason: string): void {
    const changed = state.status !== status || state.reason !== reason;
    state.status = status;
    state.reason = reason;
    if (changed) void this.emit();
  }

  private finish(uid: string, status: 'done' | 'skipped', reason: string): void {
    const state = this.byUid.get(uid);
    if (!state || !isOpen(state)) return;
    state.status = status;
    state.reason = reason;
    this.lastChangeAt = this.ports.clock.now();
    this.stalledSince = undefined;
    this.waiters.get(uid)?.();
    void this.emit();
  }

  private async emit(): Promise<void> {
    try {
      await this.hooks.onProgress?.(summarize(this.states, this.stalledSince, this.forceAt));
    } catch (error) {
      this.hooks.log?.warn({ err: error }, 'could not report drain progress');
    }
  }

  /** Once a second: deadline, skip-wait-for-delete-timeout, stall detection and decisions. */
  private async supervise(): Promise<void> {
    const { clock } = this.ports;
    const settings = this.input.settings;
    const deadline =
      settings.timeoutMs > 0 ? this.lastChangeAt.getTime() + settings.timeoutMs : Infinity;
    while (!this.done.signal.aborted) {
      const next = this.forceAt && !this.forced ? this.forceAt.getTime() : deadline;
      const untilNext = this.forceAt && this.forced ? 1_000 : next - clock.now().getTime();
      const tick = Math.min(
        1_000,
        Math.max(50, settings.stallAfterMs / 4),
        Math.max(10, untilNext),
      );
      await clock.sleep(tick, this.done.signal);
      if (this.done.signal.aborted) return;
      const now = clock.now();
      this.skipLongDeleted(now);
      if (this.hooks.abort?.aborted) return this.stop('skipped');
      if (now.getTime() >= deadline) {
        if (settings.onTimeout !== 'force') return this.stop('timeout');
        await this.forceLater(now);
      }
      if (now.getTime() - this.lastChangeAt.getTime() < settings.stallAfterMs && !this.forceAt)
        continue;
      if (
        !this.stalledSince &&
        now.getTime() - this.lastChangeAt.getTime() >= settings.stallAfterMs
      ) {
        this.stalledSince = this.lastChangeAt;
        await this.emit();
      }
      const decision = await this.hooks.decision?.().catch(() => undefined);
      if (decision === 'skip') return this.stop('skipped');
      if (decision === 'force') this.force('decision');
      // The config's unattended force waits for its second deadline, and yields to a person who
      // chose to keep waiting: their answer is about this node, the config's about every node.
      else if (this.forceAt && now >= this.forceAt && decision !== 'wait') this.force('config');
    }
  }

  /** `onTimeout: force`: the first time past the timeout, set the second deadline and say it. */
  private async forceLater(now: Date): Promise<void> {
    if (this.forceAt) return;
    this.forceAt = new Date(now.getTime() + (this.input.settings.forceAfterMs ?? 5 * 60_000));
    const remaining = this.states.filter(isOpen).map((s) => s.ref);
    try {
      await this.hooks.onTimeout?.({ forceAt: this.forceAt, remaining });
    } catch (error) {
      this.hooks.log?.warn({ err: error }, 'could not report the drain timeout');
    }
    await this.emit();
  }

  /** Delete the remaining pods instead of evicting them (past their PDBs). */
  private force(by: 'config' | 'decision'): void {
    if (this.forced) return;
    this.forced = true;
    this.forcedBy = by;
    this.forcedPods.push(...this.states.filter(isOpen).map((s) => s.ref));
    this.hooks.log?.warn(
      { node: this.input.node, by, pods: this.forcedPods },
      by === 'config'
        ? 'drain.onTimeout force: deleting remaining pods'
        : 'operator chose force: deleting remaining pods',
    );
    void Promise.resolve(this.hooks.onForce?.({ pods: [...this.forcedPods], by })).catch(
      (error: unknown) => this.hooks.log?.warn({ err: error }, 'could not report the force'),
    );
    this.rouse();
  }

  private skipLongDeleted(now: Date): void {
    const limit = this.input.settings.skipWaitForDeleteTimeoutMs;
    if (limit <= 0) return;
    for (const state of this.states) {
      const since = state.deletionTimestamp?.getTime();
      if (isOpen(state) && since !== undefined && now.getTime() - since > limit) {
        this.finish(
          state.uid,
          'skipped',
          `deletionTimestamp older than ${Math.round(limit / 1_000)}s`,
        );
      }
    }
  }

  private stop(why: 'skipped' | 'timeout'): void {
    this.ending = why;
    this.rouse();
    this.done.abort();
  }

  /** Wake every sleeping pod loop (after a force decision or a stop). */
  private rouse(): void {
    this.wake.abort();
    this.wake = new AbortController();
  }
}
