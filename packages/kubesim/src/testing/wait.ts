/** Wall-clock waiting for tests that drive a sim over its API. */

/**
 * Poll `probe` until it returns a truthy value (wall time, every `everyMs`, 20 ms by default); fails
 * with the last thing seen. The default limit is a minute: these are waits, not timing goals, and
 * 15 s was missed on loaded CI machines (a watch's first change after a label patch, at load 20).
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 60_000,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const isReady = (pod: {
  status?: { conditions?: { type: string; status: string }[] };
}): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
