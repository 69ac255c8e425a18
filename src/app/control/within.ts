/**
 * A time limit on one read of a cluster: its answer, or a rejection saying it took longer. Used
 * where several clusters are read together, so one that does not answer is shown as such instead
 * of holding up the others (issue 22). The read itself is not cancelled; its answer is dropped.
 */
export function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000}s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
