/** `kubemaint-sim-host` (host-cli.mjs): runs one host command; resolves to its exit code. */
export declare function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  out?: { stdout: (s: string) => void; stderr: (s: string) => void },
): Promise<number>;
