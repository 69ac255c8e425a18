/**
 * Shapes of credentials people paste by mistake. Text people type (a reason for a reboot, a
 * rejection, a pause) is stored on the Node, recorded in Events and posted to Slack; a token pasted
 * into it must not travel that far. Config checks use the same shapes (src/config/secrets.ts).
 */
export const TOKEN_PATTERNS = {
  slackBot: /xoxb-[\w-]+/,
  slackApp: /xapp-[\w-]+/,
  slackOther: /xox[aoprse]-[\w-]+/,
  github: /gh[pousr]_[A-Za-z0-9]{20,}/,
  awsKey: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  jwt: /eyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]+/,
  privateKey: /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
} as const;

const IN_TEXT = new RegExp(
  Object.values(TOKEN_PATTERNS)
    .map((p) => p.source)
    .join('|'),
  'g',
);

/** A secret kept to its first four characters, so people can still tell which one it was. */
export const maskToken = (token: string): string => `${token.slice(0, 4)}…(masked)`;

/** Every token-shaped part of `text` masked. */
export function maskTokens(text: string): string {
  return text.replace(IN_TEXT, maskToken);
}
