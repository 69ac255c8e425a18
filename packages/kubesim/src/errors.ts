/**
 * The one error kubesim throws for a caller's mistake or a machine problem, with a stable code and a
 * one-line hint. Its codes are a subset of kubemaint's, so an embedding CLI maps them to exit codes
 * without knowing this class (it reads `code` and `hint`).
 */
export type SimErrorCode = 'usage' | 'config_invalid' | 'not_found' | 'unexpected';

export class SimError extends Error {
  readonly code: SimErrorCode;
  /** How to fix it, shown under the message. */
  readonly hint: string | undefined;

  constructor(code: SimErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SimError';
    this.code = code;
    this.hint = options?.hint;
  }
}
