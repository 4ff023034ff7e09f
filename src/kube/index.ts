// fleethub's Kubernetes API client: the contract, the client and kubeconfig loading.
export * from './types.js';
export { KubeClient } from './client.js';
export { loadKubeconfig, parseKubeconfig } from './kubeconfig.js';
