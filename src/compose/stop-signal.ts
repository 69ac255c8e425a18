/**
 * The first SIGINT or SIGTERM, as a promise. Take it *before* printing a ready line: a script (or a
 * test) that stops the process as soon as it reads the line must find the handler in place. Taken
 * after, a loaded machine delivered SIGTERM in between and Node's default action killed the process
 * (exit by signal, nothing stopped cleanly).
 */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
