/**
 * Errors that carry a stable code (bolt-js style). Library code throws these; only entry points
 * (CLI, Lambda handlers, the executor) turn them into exit codes or answers.
 */
import { EXIT, type ExitCode } from './core/exit-codes.js';

export type ErrorCode =
  | 'config_invalid'
  | 'usage'
  | 'no_slot'
  | 'drain_blocked'
  | 'request_invalid'
  | 'not_found'
  | 'conflict'
  | 'unexpected';

export class KubemaintError extends Error {
  readonly code: ErrorCode;
  /** A one-line hint saying how to fix it, shown under the message. */
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { hint?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KubemaintError';
    this.code = code;
    this.hint = options?.hint;
  }
}

const EXIT_BY_CODE: Record<ErrorCode, ExitCode> = {
  config_invalid: EXIT.config,
  usage: EXIT.config,
  no_slot: EXIT.noSlot,
  drain_blocked: EXIT.drainBlocked,
  request_invalid: EXIT.requestInvalid,
  not_found: EXIT.unexpected,
  conflict: EXIT.unexpected,
  unexpected: EXIT.unexpected,
};

export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof KubemaintError ? EXIT_BY_CODE[error.code] : EXIT.unexpected;
}
