// `pods/log` of a simulated cluster: what `kubectl logs` prints for a pod the fake kubelet runs —
// a few lines per container, with kube's errors for a missing pod or an ambiguous container.
import type { RequestContext } from '../apiserver/context.js';
import type { Store } from '../store/types.js';
import { errors } from '../util/errors.js';

interface ContainerSpec {
  name?: string;
  image?: string;
}

export function podLogHandler(store: Store) {
  return async (ctx: RequestContext): Promise<void> => {
    const { namespace, name } = ctx.info;
    const pod = await store.get('pods', namespace, name);
    if (!pod) throw errors.notFound('pods', '', name);
    const spec = (pod['spec'] ?? {}) as { containers?: ContainerSpec[]; initContainers?: ContainerSpec[] };
    const containers = spec.containers ?? [];
    const all = [...containers, ...(spec.initContainers ?? [])];
    let container = ctx.query.get('container') ?? '';
    if (container === '') {
      if (containers.length !== 1) {
        const names = containers.map((c) => c.name ?? '').join(' ');
        throw errors.badRequest(
          `a container name must be specified for pod ${name}, choose one of: [${names}]`,
        );
      }
      container = containers[0]!.name ?? '';
    }
    const chosen = all.find((c) => c.name === container);
    if (!chosen) throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
    const status = (pod['status'] ?? {}) as { phase?: string; startTime?: string };
    if (status.phase === 'Pending')
      throw errors.badRequest(
        `container "${container}" in pod "${name}" is waiting to start: ContainerCreating`,
      );
    const started = status.startTime ?? pod.metadata.creationTimestamp ?? new Date().toISOString();
    const stamps = ctx.query.get('timestamps') === 'true';
    const lines = [
      `simulated container ${container} started from image ${chosen.image ?? ''}`,
      `pod ${namespace}/${name} is running on a fleethub simulated node`,
    ];
    const tail = Number(ctx.query.get('tailLines') ?? '');
    const limited = ctx.query.has('tailLines') && Number.isInteger(tail) && tail >= 0;
    const shown = !limited ? lines : tail === 0 ? [] : lines.slice(-tail);
    const text =
      shown.map((l) => (stamps ? `${started.replace('Z', '.000000000Z')} ${l}` : l)).join('\n') + '\n';
    ctx.code = 200;
    ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
    ctx.res.end(text);
  };
}
