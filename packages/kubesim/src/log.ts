/**
 * The logger kubesim writes to: the subset of pino's interface it calls, so an embedding program
 * passes its own pino logger and a test passes nothing.
 */
type LogFn = (object: object, message?: string) => void;

export interface Logger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

export function silentLogger(): Logger {
  const quiet: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    child: () => quiet,
  };
  return quiet;
}
