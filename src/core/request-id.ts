/**
 * Request ids: `r-` and six hex characters (`r-7f3a9c`), short enough to type in `/maint approve`.
 * Pure: the caller passes the random bytes (`crypto.getRandomValues(new Uint8Array(3))`), so tests
 * choose them and the core never touches a source of randomness.
 */

export const REQUEST_ID_PATTERN = /^r-[0-9a-f]{6}$/;

/** The id made of the first three bytes of `random`; throws RangeError on fewer or non-byte values. */
export function requestId(random: ArrayLike<number>): string {
  if (random.length < 3)
    throw new RangeError(`requestId needs 3 random bytes, got ${random.length}`);
  let hex = '';
  for (let i = 0; i < 3; i++) {
    const byte = random[i];
    if (byte === undefined || !Number.isInteger(byte) || byte < 0 || byte > 255) {
      throw new RangeError(`requestId: random[${i}] = ${String(byte)} is not a byte (0-255)`);
    }
    hex += byte.toString(16).padStart(2, '0');
  }
  return `r-${hex}`;
}

/** True for text shaped like a request id; use it on ids typed in Slack before looking them up. */
export const isRequestId = (text: string): boolean => REQUEST_ID_PATTERN.test(text);
