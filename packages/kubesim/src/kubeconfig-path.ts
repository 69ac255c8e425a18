/** Where the sim writes its kubeconfig unless told otherwise; the CLI finds a running demo there. */
export const DEFAULT_KUBECONFIG = '.kubemaint/sim.kubeconfig';
