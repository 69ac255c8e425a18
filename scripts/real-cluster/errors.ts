/** An error the real-cluster script reports as one line (no stack): what is wrong and what to do. */
export class RealClusterError extends Error {
  override readonly name = 'RealClusterError';
}
