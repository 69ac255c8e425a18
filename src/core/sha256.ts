/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, as hex. The core stays pure and free of `node:`
 * imports, and a label value derived from a node name (names.ts `labelValue`) must come out the same
 * wherever it is computed; the tests hold this to node:crypto's digest.
 */

/** The first 64 primes (2 … 311): the fractional parts of their roots are the constants. */
const PRIMES: number[] = [];
for (let n = 2; PRIMES.length < 64; n++) if (PRIMES.every((p) => n % p !== 0)) PRIMES.push(n);
const fraction = (x: number): number => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
const K = PRIMES.map((p) => fraction(Math.cbrt(p)));
const H0 = PRIMES.slice(0, 8).map((p) => fraction(Math.sqrt(p)));

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

export function sha256Hex(text: string): string {
  const data = new TextEncoder().encode(text);
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: a multiple of 64 bytes.
  const padded = new Uint8Array((((data.length + 8) >> 6) + 1) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(data.length / 2 ** 29));
  view.setUint32(padded.length - 4, (data.length << 3) >>> 0);
  const h = [...H0];
  const w = new Array<number>(64).fill(0);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 64; i++) {
      if (i < 16) {
        w[i] = view.getUint32(block + i * 4);
        continue;
      }
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0;
    }
    // The working variables a … h of the standard, as v[0] … v[7].
    const v = [...h];
    for (let i = 0; i < 64; i++) {
      const [a, b, c, , e, f, g, last] = v as [
        number,
        number,
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const choice = (e & f) ^ (~e & g);
      const t1 = (last + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + choice + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      v.pop();
      v.unshift((t1 + t2) >>> 0);
      v[4] = (v[4]! + t1) >>> 0;
    }
    for (let i = 0; i < 8; i++) h[i] = (h[i]! + v[i]!) >>> 0;
  }
  return h.map((x) => x.toString(16).padStart(8, '0')).join('');
}
