/**
 * Work started side by side that must all end before the caller goes on: every value, or the first
 * failure (in the given order) thrown only once every other one has ended too, so that nothing is
 * left under way when a step or a tick ends (Promise.all rejects at the first failure).
 */
export async function allEnded<const T extends readonly unknown[]>(
  work: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
