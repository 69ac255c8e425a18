/** The message of anything thrown: an Error's own, else its text. One spelling for every log and reply. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
