/** What a terminal would act on: C0 but line feed, DEL, C1, bidi overrides and isolates. */
export const TERMINAL_CONTROL =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** A reason that retitles the window (OSC 0) and clears the screen (CSI 2J), and worse. */
export const PWNED = 'kernel \u001b]0;pwned\u0007 update\u001b[2J';
export const HOSTILE_TERMINAL_TEXT = `${PWNED}\r\n\u009b31m fake line \u202egnp.exe`;
